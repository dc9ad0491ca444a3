"""The case table's vocabulary, which every family module of `ops_cases`
uses: the corpus's dtypes, tensor inputs (`In` and its shorthands `T`, `Ix`,
`Fixed`, `Idx`), parameters that depend on the case's dtype (`ByDtype`,
`scalar_for`), and `Case` and `Op`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

A = torch.ops.aten


@dataclass(frozen=True)
class Dtype:
    """A dtype of the corpus: torch's, the ScalarType name, the method prefix."""

    torch: torch.dtype
    name: str
    short: str


DTYPES = (
    Dtype(torch.bool, "Bool", "bool"), Dtype(torch.uint8, "Byte", "u8"),
    Dtype(torch.int8, "Char", "i8"), Dtype(torch.int16, "Short", "i16"),
    Dtype(torch.int32, "Int", "i32"), Dtype(torch.int64, "Long", "i64"),
    Dtype(torch.float16, "Half", "f16"), Dtype(torch.bfloat16, "BFloat16", "bf16"),
    Dtype(torch.float32, "Float", "f32"), Dtype(torch.float64, "Double", "f64"),
)
# The complex dtypes, only for the operators that take nothing else (view_as_real_copy,
# _conj_physical). ComplexHalf is not among them: numpy has no complex32, so neither
# the npz nor etsb's runner (tools/runner/npy.h) can carry it.
COMPLEX_DTYPES = (Dtype(torch.complex64, "ComplexFloat", "c64"), Dtype(torch.complex128, "ComplexDouble", "c128"))
BY_TORCH = {d.torch: d for d in DTYPES + COMPLEX_DTYPES}
DTYPE_NAMES = {d.name for d in DTYPES}
ALL = tuple(d.torch for d in DTYPES)
COMPLEX = tuple(d.torch for d in COMPLEX_DTYPES)
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
WIDE_FLOATS = (torch.float32, torch.float64)


def scalar_type_name(dtype: torch.dtype) -> str:
    """ScalarType name of a torch dtype (``Float``, ``BFloat16``...)."""
    return BY_TORCH[dtype].name


def dtype_kind(dtype: torch.dtype) -> str:
    """How input values are drawn for a dtype: ``bool``, ``float``, ``unsigned`` or ``signed``."""
    if dtype == torch.bool:
        return "bool"
    if dtype.is_floating_point:
        return "float"
    return "unsigned" if dtype == torch.uint8 else "signed"


@dataclass(frozen=True)
class In:
    """One tensor input: its shape, a value domain, and a dtype (None: the
    case's dtype).  ``values`` gives fixed contents (domain ``fixed``);
    ``high`` bounds ``index`` values (exclusive)."""

    shape: tuple[int, ...]
    domain: str = "any"
    dtype: torch.dtype | None = None
    high: int = 0
    values: tuple = ()


def T(*shape: int, domain: str = "any", dtype: torch.dtype | None = None) -> In:
    """A tensor of the case's dtype (or ``dtype``) and the given shape."""
    return In(tuple(shape), domain, dtype)


def Ix(shape: tuple[int, ...], high: int) -> In:
    """An int64 index tensor with values in [0, high)."""
    return In(tuple(shape), "index", torch.int64, high)


def Fixed(values: Sequence, dtype: torch.dtype) -> In:
    """A 1-D tensor with fixed contents (offsets and the like)."""
    return In((len(values),), "fixed", dtype, values=tuple(values))


def Idx(rows: tuple) -> In:
    """An int64 index tensor with fixed contents, nested rows giving its
    shape (scatter needs positions that no two elements share)."""
    shape, level = [], rows
    while isinstance(level, tuple):
        shape.append(len(level))
        level = level[0] if level else None
    return In(tuple(shape), "fixed", torch.int64, values=rows)


@dataclass(frozen=True)
class ByDtype:
    """A parameter whose value depends on the case's dtype."""

    pick: Callable[[torch.dtype], Any]


@dataclass(frozen=True)
class Case:
    """One case: a name, a description, tensor inputs and non-tensor
    parameters.  ``dtypes`` narrows the operator's dtypes for this case;
    a ``mixed`` case is exported once, its inputs carrying their own dtypes."""

    name: str
    description: str
    inputs: tuple[In, ...]
    params: dict = field(default_factory=dict)
    dtypes: tuple | None = None
    mixed: bool = False


def case(name: str, description: str, *inputs: In, only: tuple | None = None, **params) -> Case:
    """A case run in every dtype of its operator (or those in ``only``)."""
    return Case(name, description, inputs, params, only)


def mixed(name: str, description: str, *inputs: In, **params) -> Case:
    """A mixed-dtype case, run once (method ``mix_<name>``)."""
    return Case(name, description, inputs, params, None, True)


@dataclass(frozen=True)
class Op:
    """One operator of the corpus.

    ``name`` is the operator as ExecuTorch's program spells it, the one every
    method must call; ``calls`` says what ``fn`` calls; ``fn(*tensors,
    **params)`` is the module's forward.  ``preserve`` lists overloads kept
    from decomposition (``EdgeCompileConfig.preserve_ops``); ``skip_dim_order``
    lowers without the dim-order ops (``_skip_dim_order``), for ``empty``.  An
    in-place operator (``copy_``) writes its first ``mutated_inputs`` inputs:
    the program returns them first (its write-back), so eager's outputs do too."""

    name: str
    calls: str
    fn: Callable
    cases: tuple[Case, ...]
    dtypes: tuple = ALL
    preserve: tuple = ()
    skip_dim_order: bool = False
    mutated_inputs: int = 0  # how many leading inputs fn writes in place (an in-place operator)
    # Why ExecuTorch's own kernel refuses cases etsb's takes (the device copies want a device
    # allocator; convolution_backward is 2-D and plain only there): its runtime's failures are then
    # recorded as not run by it, eager being the reference, instead of dropping the cases.
    executorch_refuses: str = ""
    reinplace: bool = False  # run ExecuTorch's reinplace pass (index_put -> index_put_ on a mutated input)

    @property
    def dir(self) -> str:
        return self.name.replace("::", "_").replace(".", "_")


def per_category(d: torch.dtype, boolean: Any, integer: Any, floating: Any) -> Any:
    """The value for ``d``'s category: Bool, integer or floating."""
    if d == torch.bool:
        return boolean
    return floating if d.is_floating_point else integer


def scalar_for(boolean: Any = True, integer: Any = 3, floating: Any = 1.5) -> ByDtype:
    """A Python scalar suited to the case dtype."""
    return ByDtype(lambda d: per_category(d, boolean, integer, floating))
