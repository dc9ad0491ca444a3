"""Kernel yaml, as values: operator entries with their schemas, aliases and
kernels, each keeping where in its file it was written.

:mod:`selective_build.readers.kernel_yaml` builds these from a file and
checks them; merging, resolution and the emitters take them as they are.
"""

from __future__ import annotations

from selective_build.model.errors import Location
from selective_build.model.names import OperatorName
from selective_build.model.records import record
from selective_build.model.schema import FunctionSchema

# Kinds of entry: an ATen operator named by `op:`, or a custom one with its `func:` schema.
OP = "op"
FUNC = "func"


class FrozenMapping(tuple):
    """A YAML mapping carried as data: a tuple of (key, value) pairs, in order."""

    __slots__ = ()


@record
class ArgMeta:
    """One ``arg_meta`` item: a tensor argument and the aliases of its dtypes and dim orders."""

    argument: str
    type_alias: str
    dim_order_alias: str
    location: Location


@record
class Kernel:
    """A C++ kernel for an operator; ``arg_meta`` is None for the default kernel."""

    kernel_name: str
    arg_meta: tuple[ArgMeta, ...] | None
    location: Location

    @property
    def is_default(self) -> bool:
        """Serves every dtype and dim order not claimed by a specialised kernel."""
        return self.arg_meta is None

    @property
    def cpp_function(self) -> str:
        """The C++ function called: ``native::`` goes before the last name
        (``torch::executor::add_out`` -> ``torch::executor::native::add_out``)."""
        namespace, sep, function = self.kernel_name.rpartition("::")
        return f"{namespace}::native::{function}" if sep else f"native::{function}"


@record
class OperatorEntry:
    """One operator of a kernel yaml with its schema and kernels.

    ``kind`` is :data:`OP` or :data:`FUNC`; ``spelling`` is the op name or
    func schema as written; ``passthrough`` holds the keys etsb carries
    without acting on them (``variants``, ``tags``...)."""

    name: OperatorName
    kind: str
    spelling: str
    schema: FunctionSchema
    type_alias: tuple[tuple[str, tuple[str, ...]], ...]
    dim_order_alias: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
    kernels: tuple[Kernel, ...]
    passthrough: tuple[tuple[str, object], ...]
    location: Location

    @property
    def default_kernel(self) -> Kernel | None:
        """The kernel with ``arg_meta: null``, if any."""
        return next((k for k in self.kernels if k.is_default), None)

    @property
    def is_custom(self) -> bool:
        """Declared with its own schema (``func:``) rather than as an ATen operator."""
        return self.kind == FUNC


@record
class KernelYaml:
    """A parsed and validated kernel yaml file."""

    path: str
    entries: tuple[OperatorEntry, ...]

    def entry(self, name: OperatorName) -> OperatorEntry | None:
        """The entry of the operator ``name``, if any."""
        for entry in self.entries:
            if entry.name == name:
                return entry
        return None
