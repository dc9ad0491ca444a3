"""Kernel keys: what the runtime looks a kernel up by, and what a selection asks for.

A key is ``v1/`` followed by one ``dtype;dim_order`` entry per tensor argument
of the kernel call, separated by ``|``: ``v1/6;0,1|6;0,1|6;0,1``. The dtype is
the ScalarType number, the dim order a permutation of the tensor's dimensions
(empty for a 0-dim tensor). A selection may also hold ``default`` (any key)
and dtype-only keys such as ``v1/6;`` that an ops dict makes from a dtype
name: a key of one entry without a dim order is read as dtype-only, since the
runtime never builds one (an out variant's key lists its out tensor twice).

This module is the only one that reads or spells the format: everything else
handles :class:`KernelKey` values, built here from their parts or parsed here
from text at the edge (yaml, ``.pte``, command line).
"""

from __future__ import annotations

from selective_build.model.dtypes import SCALAR_TYPE_NAMES, SCALAR_TYPES
from selective_build.model.records import record

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable

VERSION_PREFIX = "v1/"
# Every character a key may hold after its prefix: ScalarType numbers, dim
# orders and the separators ';', ',' and '|' (the Starlark rules' check of
# ops dict entries allows these; tests/test_attr_checks.py keeps them equal).
KEY_CHARS = "0123456789;,|"
DEFAULT_SPELLING = "default"

# What a key stands for.
EXACT = "exact"        # the tensors of one call, as the runtime builds its key
DTYPE_ONLY = "dtype"   # every call whose tensors all have one dtype
ANY = "any"            # every call


@record
class TensorMeta:
    """One entry of a key: a tensor's dtype (ScalarType number) and dim order."""

    dtype: int
    dim_order: tuple[int, ...]

    @property
    def text(self) -> str:
        """The entry as a key spells it: ``6;0,1``."""
        return f"{self.dtype};{','.join(map(str, self.dim_order))}"

    @property
    def dtype_name(self) -> str:
        """The dtype's ScalarType name: ``Float``."""
        return SCALAR_TYPE_NAMES[self.dtype]

    def describe(self) -> str:
        """Readable form: ``Float 2-D contiguous``, ``Long 0-D``, ``Float 4-D channels-last``."""
        rank = len(self.dim_order)
        if rank == 0:
            return f"{self.dtype_name} 0-D"
        if self.dim_order == tuple(range(rank)):
            layout = "contiguous"
        elif rank == 4 and self.dim_order == (0, 2, 3, 1):
            layout = "channels-last"
        else:
            layout = "dim order " + ",".join(map(str, self.dim_order))
        return f"{self.dtype_name} {rank}-D {layout}"


@record
class KernelKey:
    """A kernel key: its spelling, its tensor entries in call order, and its
    kind (:data:`EXACT`, :data:`DTYPE_ONLY` or :data:`ANY`). Keys sort as
    their text, the order selections list them in."""

    text: str
    tensors: tuple[TensorMeta, ...]
    kind: str

    @property
    def is_any(self) -> bool:
        """``default``: the operator may be called with any key."""
        return self.kind == ANY

    @property
    def dtype_only(self) -> int | None:
        """The dtype of a dtype-only key (``v1/6;`` -> 6), else None."""
        return self.tensors[0].dtype if self.kind == DTYPE_ONLY else None

    @property
    def dtypes(self) -> tuple[int, ...]:
        """The dtype of each tensor entry, in order."""
        return tuple(t.dtype for t in self.tensors)

    def describe(self) -> str:
        """Readable form, one description per tensor, comma-separated."""
        if self.kind == ANY:
            return "any dtype and dim order"
        if self.kind == DTYPE_ONLY:
            return f"every tensor {self.tensors[0].dtype_name}"
        return ", ".join(t.describe() for t in self.tensors) or "no tensors"

    def __str__(self) -> str:
        return self.text


ANY_KEY = KernelKey(DEFAULT_SPELLING, (), ANY)


def exact_key(tensors: Iterable[TensorMeta]) -> KernelKey:
    """The key the runtime builds for a call with these tensors (in argument order)."""
    tensors = tuple(tensors)
    return KernelKey(VERSION_PREFIX + "|".join(t.text for t in tensors), tensors, EXACT)


def dtype_key(dtype: int) -> KernelKey:
    """The dtype-only key of ``dtype``: 6 -> ``v1/6;``."""
    return KernelKey(f"{VERSION_PREFIX}{dtype};", (TensorMeta(dtype, ()),), DTYPE_ONLY)


def dtype_key_named(dtype_name: str) -> KernelKey:
    """The dtype-only key of a ScalarType name: ``Float`` -> ``v1/6;``.
    Raise ValueError for a name that is not a ScalarType."""
    number = SCALAR_TYPES.get(dtype_name)
    if number is None:
        from selective_build.model.errors import did_you_mean

        raise ValueError(f"unknown dtype '{dtype_name}'{did_you_mean(dtype_name, SCALAR_TYPES)}; dtypes are "
                         f"ScalarType names such as Float, Long, Bool, or kernel keys such as 'v1/6;0,1|6;0,1'")
    return dtype_key(number)


def looks_like_key(text: str) -> bool:
    """Whether ``text`` is meant as a key rather than a dtype name (``v1/...``, ``6;0``)."""
    return text.startswith("v") or text[:1].isdigit()


def parse_kernel_key(text: str) -> KernelKey:
    """Parse ``default`` or ``v1/<dtype>;<dim order>|...``; raise ValueError saying what is wrong."""
    if text == DEFAULT_SPELLING:
        return ANY_KEY
    if not text.startswith(VERSION_PREFIX):
        version = text.partition("/")[0] if "/" in text else text
        raise ValueError(f"kernel key '{text}' does not start with '{VERSION_PREFIX}' "
                         f"(found '{version}'; only version 1 keys exist)")
    body = text[len(VERSION_PREFIX):]
    tensors = tuple(_parse_entry(entry, text) for entry in body.split("|")) if body else ()
    if len(tensors) == 1 and not tensors[0].dim_order:
        return dtype_key(tensors[0].dtype)
    return exact_key(tensors)


def _parse_entry(entry: str, key: str) -> TensorMeta:
    dtype_text, separator, order_text = entry.partition(";")
    if not separator:
        raise ValueError(f"kernel key '{key}': entry '{entry}' has no ';' between dtype and dim order")
    if not dtype_text.isdigit() or not dtype_text.isascii() or int(dtype_text) not in SCALAR_TYPE_NAMES:
        raise ValueError(f"kernel key '{key}': '{dtype_text}' is not a ScalarType number "
                         f"(0 to {max(SCALAR_TYPE_NAMES)})")
    order: tuple[int, ...] = ()
    if order_text:
        parts = order_text.split(",")
        if not all(p.isdigit() and p.isascii() for p in parts):
            raise ValueError(f"kernel key '{key}': dim order '{order_text}' is not a list of integers")
        order = tuple(map(int, parts))
        if sorted(order) != list(range(len(order))):
            raise ValueError(f"kernel key '{key}': dim order '{order_text}' is not a permutation "
                             f"of 0..{len(order) - 1}")
    return TensorMeta(int(dtype_text), order)
