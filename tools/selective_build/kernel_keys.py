"""Kernel keys: what the runtime looks a kernel up by.

A key is ``v1/`` followed by one ``dtype;dim_order`` entry per tensor argument
of the kernel call, separated by ``|``: ``v1/6;0,1|6;0,1|6;0,1``. The dtype is
the ScalarType number, the dim order a permutation of the tensor's dimensions
(empty for a 0-dim tensor). A selection may also hold ``default`` (every
dtype) and dtype-only entries such as ``v1/6;`` that an ops dict makes from a
dtype name.
"""

from __future__ import annotations

from dataclasses import dataclass

from selective_build.dtypes import SCALAR_TYPE_NAMES, SCALAR_TYPES
from selective_build.errors import did_you_mean
from selective_build.selection import DEFAULT_KEY  # noqa: F401  (re-exported)

VERSION_PREFIX = "v1/"


@dataclass(frozen=True)
class TensorMeta:
    """One entry of a key: a tensor's dtype (ScalarType number) and dim order."""

    dtype: int
    dim_order: tuple[int, ...]

    @property
    def text(self) -> str:
        """The entry as a key spells it: ``6;0,1``."""
        return f"{self.dtype};{','.join(map(str, self.dim_order))}"

    def describe(self) -> str:
        """Readable form: ``Float 2-D contiguous``, ``Long 0-D``, ``Float 4-D channels-last``."""
        name = SCALAR_TYPE_NAMES[self.dtype]
        rank = len(self.dim_order)
        if rank == 0:
            return f"{name} 0-D"
        if self.dim_order == tuple(range(rank)):
            layout = "contiguous"
        elif rank == 4 and self.dim_order == (0, 2, 3, 1):
            layout = "channels-last"
        else:
            layout = "dim order " + ",".join(map(str, self.dim_order))
        return f"{name} {rank}-D {layout}"


@dataclass(frozen=True)
class KernelKey:
    """A parsed kernel key: its tensor entries in call order."""

    tensors: tuple[TensorMeta, ...]

    @property
    def text(self) -> str:
        """The key as the runtime spells it."""
        return VERSION_PREFIX + "|".join(t.text for t in self.tensors)

    def describe(self) -> str:
        """Readable form, one description per tensor, comma-separated."""
        return ", ".join(t.describe() for t in self.tensors) or "no tensors"


def parse_kernel_key(text: str) -> KernelKey:
    """Parse ``v1/<dtype>;<dim order>|...``; raise ValueError saying what is wrong."""
    if not text.startswith(VERSION_PREFIX):
        version = text.partition("/")[0] if "/" in text else text
        raise ValueError(f"kernel key '{text}' does not start with '{VERSION_PREFIX}' "
                         f"(found '{version}'; only version 1 keys exist)")
    body = text[len(VERSION_PREFIX):]
    if not body:
        return KernelKey(())
    return KernelKey(tuple(_parse_entry(entry, text) for entry in body.split("|")))


def _parse_entry(entry: str, key: str) -> TensorMeta:
    dtype_text, separator, order_text = entry.partition(";")
    if not separator:
        raise ValueError(f"kernel key '{key}': entry '{entry}' has no ';' between dtype and dim order")
    if not dtype_text.isdigit() or int(dtype_text) not in SCALAR_TYPE_NAMES:
        raise ValueError(f"kernel key '{key}': '{dtype_text}' is not a ScalarType number "
                         f"(0 to {max(SCALAR_TYPE_NAMES)})")
    order: tuple[int, ...] = ()
    if order_text:
        parts = order_text.split(",")
        if not all(p.isdigit() for p in parts):
            raise ValueError(f"kernel key '{key}': dim order '{order_text}' is not a list of integers")
        order = tuple(map(int, parts))
        if sorted(order) != list(range(len(order))):
            raise ValueError(f"kernel key '{key}': dim order '{order_text}' is not a permutation "
                             f"of 0..{len(order) - 1}")
    return TensorMeta(int(dtype_text), order)


def dtype_only_key(dtype_name: str) -> str:
    """The key an ops dict makes from a dtype name: ``Float`` -> ``v1/6;``.
    Raise ValueError for a name that is not a ScalarType."""
    number = SCALAR_TYPES.get(dtype_name)
    if number is None:
        raise ValueError(f"unknown dtype '{dtype_name}'{did_you_mean(dtype_name, SCALAR_TYPES)}; dtypes are ScalarType names "
                         f"such as Float, Long, Bool, or kernel keys such as 'v1/6;0,1|6;0,1'")
    return f"{VERSION_PREFIX}{number};"


def check_key_entry(text: str) -> str:
    """Check one ``et_kernel_metadata`` entry (``default`` or a key); return it, or raise ValueError."""
    if text != DEFAULT_KEY:
        parse_kernel_key(text)
    return text
