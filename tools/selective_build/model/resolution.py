"""Which C++ kernel serves each selected operator and kernel key, as values:
the result of :mod:`selective_build.stages.resolve`, the input of the
registration emitters."""

from __future__ import annotations

from selective_build.model.errors import Location
from selective_build.model.keys import KernelKey
from selective_build.model.kernels import Kernel, OperatorEntry
from selective_build.model.names import OperatorName
from selective_build.model.records import record


@record
class Registration:
    """One row of the kernel table: ``kernel`` registered for ``operator`` under
    ``key`` (None: the fallback for every key)."""

    operator: OperatorName
    key: KernelKey | None
    kernel: Kernel


@record
class ResolvedOperator:
    """A selected operator, its entry, and its kernel table rows (fallback last)."""

    entry: OperatorEntry
    registrations: tuple[Registration, ...]

    @property
    def kernels(self) -> tuple[Kernel, ...]:
        """The distinct kernels registered, in first-registration order."""
        seen: dict[str, Kernel] = {}
        for registration in self.registrations:
            seen.setdefault(registration.kernel.kernel_name, registration.kernel)
        return tuple(seen.values())


@record
class Resolution:
    """Every selected operator with its kernels, sorted by operator name."""

    operators: tuple[ResolvedOperator, ...]

    @property
    def registrations(self) -> tuple[Registration, ...]:
        """Every kernel table row."""
        return tuple(r for op in self.operators for r in op.registrations)

    @property
    def named_kernels(self) -> tuple[tuple[str, str, Location], ...]:
        """Every kernel table row as (operator, C++ kernel name, where the yaml names the kernel)."""
        return tuple((str(r.operator), r.kernel.kernel_name, r.kernel.location) for r in self.registrations)
