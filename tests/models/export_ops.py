"""Export a corpus of single-operator ExecuTorch programs, one per operator.

Run in the export environment (torch==2.13.0 with the full executorch==1.5.1),
which ``scripts/setup.sh --export-env`` creates; ``scripts/export_ops.sh`` does
both.  With no arguments every operator of ``OPS`` is exported; otherwise the
ones named, either as ExecuTorch spells them (``aten::cat.out``) or by their
directory (``aten_cat_out``).  ``--list`` prints the table.

What is written
---------------
For every operator, in ``tests/models/ops/<dir>/`` where ``<dir>`` is the
operator's name with ``::`` and ``.`` replaced by ``_``:

* ``<dir>.pte``: one multi-method program, one method per case.  Each method is
  a tiny module whose ``forward`` calls ``torch.ops.aten.<op>`` directly, so
  that the operator survives to the edge dialect; the program is lowered with
  ``to_edge`` (``_check_ir_validity=False``, so that dtype validation does not
  refuse unusual dtypes) and ``to_executorch`` (``remove_view_copy=False``, so
  that ``view_copy`` stays a kernel call instead of becoming a memory view).
* ``cases.npz``: for each method ``M``, the arrays ``M.input_<i>`` and
  ``M.output_<i>``: the inputs fed to the program and torch eager's outputs.

and one ``tests/models/ops/manifest.json`` (see `Manifest`).

Method names are ``<dtype>_<case>`` (``f32_broadcast``, ``i64_zero_dim``,
``bool_odd``; dtypes ``bool u8 i8 i16 i32 i64 f16 bf16 f32 f64``) for the
cases run once per dtype, and ``mix_<case>`` for mixed-dtype cases (type
promotion: ``mix_i32_f32``, ``mix_u8_i8``, ``mix_bool_i64``,
``mix_f32dim0_i64``...), whose inputs carry their own dtypes.

Array encoding (as etsb's runner reads and writes ``.npy``, tools/runner/npy.h)
-----------------------------------------------------------------------------
``cases.npz`` is a zip (deflated, fixed timestamps so that a re-export is
byte-identical) of ``.npy`` files written by ``numpy.save``, C order,
little-endian.  ``numpy.load`` reads it; each member is a plain ``.npy`` the
runner can be given once extracted.  Dtype by dtype:

==========  ========  ========================================================
ScalarType  ``descr``  notes
==========  ========  ========================================================
Bool        ``|b1``   one byte, 0 or 1
Byte        ``|u1``
Char        ``|i1``
Short       ``<i2``
Int         ``<i4``
Long        ``<i8``
Half        ``<f2``   IEEE binary16, numpy's float16
Float       ``<f4``
Double      ``<f8``
BFloat16    ``<u2``   numpy has no bfloat16: the raw 16-bit patterns (the top
                      half of the float32 bits) stored as uint16; the manifest
                      says ``"dtype": "bfloat16"`` for such arrays
==========  ========  ========================================================

The runner's table (npy.h ``kDtypes``) maps ``<u2`` to ``UInt16``, not to
BFloat16: to feed a BFloat16 input, a caller must reinterpret the ``<u2``
array as BFloat16 (same bytes), and a BFloat16 output it writes must be read
back the same way.  0-dim arrays have shape ``()``; empty ones keep their
shape (e.g. ``(0, 4)``).

Manifest
--------
``manifest.json`` has, per operator (keyed by its ExecuTorch name): ``dir``,
``pte`` and ``npz`` (paths relative to tests/models/ops) with sizes and
SHA-256, ``calls`` (what the module's ``forward`` calls), and ``methods``.
Each method has ``dtype`` (the ScalarType name of the case; for ``mix_``
methods, of the first output), ``case`` and ``description``, ``params`` (the
operator's non-tensor arguments), ``inputs`` and ``outputs`` (``dtype``: the
numpy name or ``bfloat16``; ``scalar_type``; ``shape``; outputs add ``rtol``
and ``atol``), ``tolerance`` (the loosest of its outputs), ``operators`` and
``kernel_keys`` read from the emitted execution plan (``export.describe_plan``),
and ``max_abs_diff_runtime`` and ``executorch_matches`` (ExecuTorch's runtime
against eager at export; null where ExecuTorch's runtime has no kernel for
the operator: such cases are kept, eager being the reference, and listed
under ``not_run_by_executorch``).  ``unsupported_by_torch`` maps a ScalarType name
(every case of that dtype was refused by eager) or a method name (that one
case was) to torch's message; ``skipped`` maps a method name to why ExecuTorch
could not export or run it; ``executorch_mismatch`` maps a method name to how
ExecuTorch's runtime differed from eager.  Each method is one line of the
file.

Tolerances: an output matches when ``|got - expected| <= atol + rtol *
|expected|`` elementwise, NaN matching NaN; integer and Bool outputs must be
equal (rtol = atol = 0).  Floating outputs use `TOLERANCES` by the output's
dtype, looser for Half and BFloat16 (eager computes those in float32 and
rounds once; a kernel may round intermediate values).

Checks
------
Eager is tried on every case: a dtype torch refuses for a case is recorded,
not exported.  Each program is run method by method with ExecuTorch's own
pybindings runtime (``executorch.runtime``), each after a method that fills
the shared memory arena with NaN (so that an output element a kernel never
writes shows; that method is only in a checking copy of the program, see
`lower`), and compared with eager within the tolerance.  A case ExecuTorch cannot export, load or run (or whose outputs it
gives in another dtype or shape) is dropped from the program and recorded
under ``skipped``.  A case it runs to values outside the tolerance is kept,
because eager is the reference, and recorded under ``executorch_mismatch``
(``executorch_matches: false`` in the method).  Every
method left must call the target operator (read from the emitted program):
if one does not, the case tests nothing, and that operator's export fails
with a message naming the method and the operators it did call.

What the edge dialect does to these calls (ExecuTorch 1.5.1)
-----------------------------------------------------------
* ``clone`` becomes ``dim_order_ops::_clone_dim_order.out`` and ``.to(dtype)``
  ``dim_order_ops::_to_dim_order_copy.out``.
* ``squeeze_copy.dim`` is decomposed to ``squeeze_copy.dims`` and
  ``arange.default`` to ``arange.start_out``: both are kept with
  ``preserve_ops`` (see `PreservedOps` for the bug that needs working round).
* ``view_copy`` becomes a memory view, not a kernel call, unless
  ``remove_view_copy=False``.
* ``empty`` becomes ``dim_order_ops::_empty_dim_order.out`` unless lowered
  with ``_skip_dim_order``; ``logit``, ``glu``, ``fill``, ``zeros`` and
  ``ones`` are decomposed unless kept with ``preserve_ops``.
* ``unsqueeze_copy``, ``squeeze_copy.dims``, ``alias_copy``, ``expand_copy``
  and ``split_with_sizes_copy`` get a ``_clone_dim_order`` after them when
  their result is the method's output.
* ``RemoveMixedTypeOperators`` casts the operands of ``add``, ``sub``,
  ``mul``, ``div`` (both overloads) and ``minimum`` to the promoted dtype with
  ``_to_dim_order_copy``: their ``mix_`` methods, and ``div.Tensor`` on
  integers (cast to float), call the kernel with one dtype only.  The other
  binary operators, ``where``, ``clamp.Tensor``, ``cat`` and ``copy`` receive
  mixed dtypes.

Inputs are random from a fixed per-case seed, in a value domain valid for the
operator (positive for ``log``/``sqrt``/``rsqrt``, non-zero divisors,
in-range indices, distinct values where ties would make ``argmax`` or
max-pool indices ambiguous).  Eager runs on one thread.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import hashlib
import io
import json
import math
import os
import re
import sys
import tempfile
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent
OUT_DIR = ROOT / "ops"
# etsb's own package is pure Python: the export environment uses it from source
# for file writing; export.py's reader of the emitted plan is shared.
sys.path.insert(0, str(ROOT.parent.parent / "tools"))
sys.path.insert(0, str(ROOT))
from export import describe_plan
from selective_build.readers.files import write_bytes_atomic

MANIFEST_VERSION = 1
A = torch.ops.aten

# (rtol, atol) per floating output dtype; integer and Bool outputs are exact.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-9, 1e-9),
    torch.float32: (1e-5, 1e-5),
    torch.complex128: (1e-9, 1e-9),  # for the real and imaginary parts alike
    torch.complex64: (1e-5, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (4e-2, 4e-2),
}
TOLERANCE_RULE = ("|got - expected| <= atol + rtol * |expected| elementwise, NaN matching NaN; "
                  "integer and Bool outputs exactly equal")
# Fixed zip member timestamps: a re-export writes byte-identical files.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
SIZE_BUDGET = 12 * 2**20  # as tests/test_op_corpus.py: the whole portable set


# ----------------------------------------------------------------------------
# Dtypes
# ----------------------------------------------------------------------------


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


def _kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "bool"
    if dtype.is_floating_point:
        return "float"
    return "unsigned" if dtype == torch.uint8 else "signed"


# ----------------------------------------------------------------------------
# The case table's vocabulary
# ----------------------------------------------------------------------------


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


# ----------------------------------------------------------------------------
# Shared case sets
# ----------------------------------------------------------------------------


def _one(d: torch.dtype, boolean: Any, integer: Any, floating: Any) -> Any:
    """The value for ``d``'s category: Bool, integer or floating."""
    if d == torch.bool:
        return boolean
    return floating if d.is_floating_point else integer


def scalar_for(boolean: Any = True, integer: Any = 3, floating: Any = 1.5) -> ByDtype:
    """A Python scalar suited to the case dtype."""
    return ByDtype(lambda d: _one(d, boolean, integer, floating))


def unary_cases(domain: str = "any", **params) -> tuple[Case, ...]:
    """Elementwise unary shapes: an odd 2-D size, 0-dim, empty."""
    return (
        case("odd", "3x11 (33 elements: vector-loop tails)", T(3, 11, domain=domain), **params),
        case("zero_dim", "0-dim tensor", T(domain=domain), **params),
        case("empty", "empty 0x4 tensor (numel 0)", T(0, 4, domain=domain), **params),
    )


def binary_cases(a: str = "any", b: str = "any", **params) -> tuple[Case, ...]:
    """Elementwise binary shapes: same shape, broadcasting, with a 0-dim."""
    return (
        case("odd", "3x11 with 3x11 (33 elements)", T(3, 11, domain=a), T(3, 11, domain=b), **params),
        case("broadcast", "2x1x7 with 3x1, broadcast to 2x3x7",
             T(2, 1, 7, domain=a), T(3, 1, domain=b), **params),
        case("zero_dim", "7 with a 0-dim tensor", T(7, domain=a), T(domain=b), **params),
    )


def promotion_cases(a: str = "any", b: str = "any", **params) -> tuple[Case, ...]:
    """Mixed-dtype pairs for binary ops: type promotion across categories,
    within integers, with a 0-dim operand, and between the 16-bit floats."""
    pairs = (
        ("i32_f32", "int32 3x5 with float32 3x5", (3, 5), torch.int32, (3, 5), torch.float32),
        ("u8_i8", "uint8 13 with int8 13 (promotes to int16)", (13,), torch.uint8, (13,), torch.int8),
        ("bool_i64", "bool 4 with int64 3x4 (broadcast)", (4,), torch.bool, (3, 4), torch.int64),
        ("f32dim0_i64", "0-dim float32 with int64 2x3 (float wins over a dimensioned int)",
         (), torch.float32, (2, 3), torch.int64),
        ("f16_i64dim0", "float16 2x3 with a 0-dim int64 (stays float16)",
         (2, 3), torch.float16, (), torch.int64),
        ("f16_bf16", "float16 7 with bfloat16 7 (promotes to float32)",
         (7,), torch.float16, (7,), torch.bfloat16),
    )
    return tuple(mixed(name, desc, T(*sa, domain=a, dtype=da), T(*sb, domain=b, dtype=db), **params)
                 for name, desc, sa, da, sb, db in pairs)


def scalar_cases(domain: str = "any", scalar: Any = None) -> tuple[Case, ...]:
    """A tensor with a Python scalar: odd, 0-dim and empty tensors, plus
    mixed cases where the scalar's category promotes the result."""
    scalar = scalar if scalar is not None else scalar_for()
    return (
        case("odd", "3x11 tensor with a scalar", T(3, 11, domain=domain), other=scalar),
        case("zero_dim", "0-dim tensor with a scalar", T(domain=domain), other=scalar),
        case("empty", "empty 0x4 tensor with a scalar", T(0, 4, domain=domain), other=scalar),
        mixed("i32_float_scalar", "int32 3x5 with the float scalar 2.5",
              T(3, 5, domain=domain, dtype=torch.int32), other=2.5),
        mixed("bool_int_scalar", "bool 7 with the int scalar 2",
              T(7, domain=domain, dtype=torch.bool), other=2),
    )


def reduction_cases(**extra) -> tuple[Case, ...]:
    """Reductions over dim lists: one dim, negative dims with keepdim, and a
    full reduction of a 0-dim tensor."""
    return (
        case("dim1", "3x11 over dim 1", T(3, 11), dim=[1], keepdim=False, **extra),
        case("neg_dims_keepdim", "2x3x5 over dims [0, -1], keepdim", T(2, 3, 5),
             dim=[0, -1], keepdim=True, **extra),
        case("empty_rows", "empty 0x4 over dim 1 (result 0 elements)", T(0, 4),
             dim=[1], keepdim=False, **extra),
    )


# ----------------------------------------------------------------------------
# The operators
# ----------------------------------------------------------------------------


def _unary_ops() -> list[Op]:
    """Elementwise unary operators: aten::<name>.out from aten.<name>."""
    table = (
        ("abs", "any"), ("exp", "any"), ("log", "positive"), ("rsqrt", "positive"),
        ("sqrt", "positive"), ("sin", "any"), ("cos", "any"), ("tanh", "any"),
        ("sigmoid", "any"), ("erf", "any"), ("reciprocal", "nonzero"), ("floor", "any"),
        ("ceil", "any"), ("round", "any"), ("relu", "any"), ("neg", "any"),
        ("logical_not", "sparse"), ("acos", "unit"), ("asin", "unit"), ("atanh", "unit"),
        ("acosh", "at_least_one"), ("asinh", "any"), ("atan", "any"), ("cosh", "any"), ("sinh", "any"),
        ("tan", "any"), ("expm1", "any"), ("log10", "positive"), ("log1p", "positive"), ("log2", "positive"),
        ("trunc", "any"), ("sign", "any"), ("isinf", "special"), ("isnan", "special"),
        ("bitwise_not", "any"),
    )
    return [Op(f"aten::{name}.out", f"aten.{name}.default",
               _unary_call(getattr(A, name).default), unary_cases(domain))
            for name, domain in table]


def _unary_call(overload) -> Callable:
    return lambda x: overload(x)


def _activation_ops() -> list[Op]:
    """Unary operators with parameters."""
    return [
        Op("aten::gelu.out", "aten.gelu.default(approximate='none'|'tanh')",
           lambda x, approximate: A.gelu.default(x, approximate=approximate), (
               case("none_odd", "3x11, exact erf GELU", T(3, 11), approximate="none"),
               case("tanh_odd", "3x11, tanh approximation", T(3, 11), approximate="tanh"),
               case("tanh_zero_dim", "0-dim, tanh approximation", T(), approximate="tanh"),
           )),
        Op("aten::hardtanh.out", "aten.hardtanh.default",
           lambda x, lo, hi: A.hardtanh.default(x, lo, hi), (
               case("default", "3x11 into [-1, 1]", T(3, 11), lo=-1, hi=1),
               case("narrow", "3x11 into [-0.5, 2] (integers: [-2, 3]; uint8: [2, 6])", T(3, 11),
                    lo=ByDtype(lambda d: 2 if d == torch.uint8 else -0.5 if d.is_floating_point else -2),
                    hi=ByDtype(lambda d: 6 if d == torch.uint8 else 2 if d.is_floating_point else 3)),
               case("zero_dim", "0-dim into [-1, 1]", T(), lo=-1, hi=1),
           )),
        Op("aten::leaky_relu.out", "aten.leaky_relu.default",
           lambda x, slope: A.leaky_relu.default(x, slope),
           unary_cases(slope=0.2)),
        Op("aten::logit.out", "aten.logit.default", lambda x, eps: A.logit.default(x, eps), (
            case("odd", "3x11 in (0, 1), no eps", T(3, 11, domain="open_unit"), eps=None),
            case("eps", "3x11 clamped to [0.25, 0.75] first (eps 0.25)", T(3, 11, domain="open_unit"), eps=0.25),
            case("zero_dim", "0-dim, no eps", T(domain="open_unit"), eps=None),
            case("empty", "empty 0x4, eps 0.1", T(0, 4, domain="open_unit"), eps=0.1),
        ), preserve=(A.logit.default,)),
        Op("aten::elu.out", "aten.elu.default",
           lambda x, alpha, scale, input_scale: A.elu.default(x, alpha, scale, input_scale), (
               case("default", "3x11, alpha 1", T(3, 11), alpha=1.0, scale=1.0, input_scale=1.0),
               case("scaled", "3x11, alpha 1.5, scale 2, input_scale 0.5", T(3, 11),
                    alpha=1.5, scale=2.0, input_scale=0.5),
               case("zero_dim", "0-dim, alpha 1", T(), alpha=1.0, scale=1.0, input_scale=1.0),
           )),
    ]


def _binary_ops() -> list[Op]:
    """Elementwise binary operators over two tensors."""
    alpha = ByDtype(lambda d: _one(d, True, 2, 0.5))

    def with_alpha(overload):
        return lambda a, b, alpha=None: overload(a, b) if alpha is None else overload(a, b, alpha=alpha)

    alpha_cases = binary_cases()[:1] + (
        case("broadcast_alpha", "2x1x7 with 3x1, broadcast, alpha", T(2, 1, 7), T(3, 1), alpha=alpha),
        binary_cases()[2])
    ops = [
        Op("aten::add.out", "aten.add.Tensor", with_alpha(A.add.Tensor), alpha_cases + promotion_cases()),
        Op("aten::sub.out", "aten.sub.Tensor", with_alpha(A.sub.Tensor), alpha_cases + promotion_cases()),
        Op("aten::mul.out", "aten.mul.Tensor", _binary_call(A.mul.Tensor),
           binary_cases() + promotion_cases()),
        Op("aten::div.out", "aten.div.Tensor", _binary_call(A.div.Tensor),
           binary_cases(b="nonzero") + promotion_cases(b="nonzero")),
        Op("aten::div.out_mode", "aten.div.Tensor_mode(rounding_mode='floor'|'trunc')",
           lambda a, b, mode: A.div.Tensor_mode(a, b, rounding_mode=mode), (
               case("floor", "3x11 by 3x11, floor", T(3, 11), T(3, 11, domain="nonzero"), mode="floor"),
               case("trunc_broadcast", "2x1x7 by 3x1, trunc", T(2, 1, 7), T(3, 1, domain="nonzero"),
                    mode="trunc"),
               case("floor_zero_dim", "7 by a 0-dim, floor", T(7), T(domain="nonzero"), mode="floor"),
           ) + promotion_cases(b="nonzero", mode="floor")),
        Op("aten::pow.Tensor_Tensor_out", "aten.pow.Tensor_Tensor", _binary_call(A.pow.Tensor_Tensor),
           binary_cases("base", "exponent") + promotion_cases("base", "exponent")),
        Op("aten::fmod.Tensor_out", "aten.fmod.Tensor", _binary_call(A.fmod.Tensor),
           binary_cases(b="nonzero") + promotion_cases(b="nonzero")),
        Op("aten::minimum.out", "aten.minimum.default", _binary_call(A.minimum.default),
           binary_cases("grid", "grid") + promotion_cases("grid", "grid")),
        Op("aten::maximum.out", "aten.maximum.default", _binary_call(A.maximum.default),
           binary_cases("grid", "grid") + promotion_cases("grid", "grid")),
        Op("aten::logical_and.out", "aten.logical_and.default", _binary_call(A.logical_and.default),
           binary_cases("sparse", "sparse") + promotion_cases("sparse", "sparse")),
        Op("aten::logical_or.out", "aten.logical_or.default", _binary_call(A.logical_or.default),
           binary_cases("sparse", "sparse") + promotion_cases("sparse", "sparse")),
        Op("aten::logical_xor.out", "aten.logical_xor.default", _binary_call(A.logical_xor.default),
           binary_cases("sparse", "sparse") + promotion_cases("sparse", "sparse")),
        Op("aten::bitwise_and.Tensor_out", "aten.bitwise_and.Tensor", _binary_call(A.bitwise_and.Tensor),
           binary_cases() + promotion_cases()),
        Op("aten::bitwise_or.Tensor_out", "aten.bitwise_or.Tensor", _binary_call(A.bitwise_or.Tensor),
           binary_cases() + promotion_cases()),
        Op("aten::bitwise_xor.Tensor_out", "aten.bitwise_xor.Tensor", _binary_call(A.bitwise_xor.Tensor),
           binary_cases() + promotion_cases()),
        Op("aten::bitwise_left_shift.Tensor_out", "aten.bitwise_left_shift.Tensor",
           _binary_call(A.bitwise_left_shift.Tensor), binary_cases() + promotion_cases()),
        Op("aten::bitwise_right_shift.Tensor_out", "aten.bitwise_right_shift.Tensor",
           _binary_call(A.bitwise_right_shift.Tensor), binary_cases() + promotion_cases()),
        Op("aten::atan2.out", "aten.atan2.default", _binary_call(A.atan2.default),
           binary_cases() + promotion_cases()),
        Op("aten::floor_divide.out", "aten.floor_divide.default", _binary_call(A.floor_divide.default),
           binary_cases(b="nonzero") + promotion_cases(b="nonzero"), preserve=(A.floor_divide.default,)),
        Op("aten::remainder.Tensor_out", "aten.remainder.Tensor", _binary_call(A.remainder.Tensor),
           binary_cases(b="nonzero") + promotion_cases(b="nonzero")),
    ]
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        overload = getattr(A, name).Tensor
        ops.append(Op(f"aten::{name}.Tensor_out", f"aten.{name}.Tensor", _binary_call(overload),
                      binary_cases("grid", "grid") + promotion_cases("grid", "grid")))
    return ops


def _binary_call(overload) -> Callable:
    return lambda a, b: overload(a, b)


def _scalar_ops() -> list[Op]:
    """A tensor with a Python scalar."""
    def call(overload):
        return lambda x, other: overload(x, other)

    ops = [
        Op("aten::add.Scalar_out", "aten.add.Scalar", call(A.add.Scalar), scalar_cases()),
        Op("aten::sub.Scalar_out", "aten.sub.Scalar", call(A.sub.Scalar), scalar_cases()),
        Op("aten::mul.Scalar_out", "aten.mul.Scalar", call(A.mul.Scalar), scalar_cases()),
        Op("aten::div.Scalar_out", "aten.div.Scalar", call(A.div.Scalar), scalar_cases()),
        Op("aten::fmod.Scalar_out", "aten.fmod.Scalar", call(A.fmod.Scalar), scalar_cases()),
        Op("aten::pow.Tensor_Scalar_out", "aten.pow.Tensor_Scalar", call(A.pow.Tensor_Scalar), (
            case("square", "3x11 squared", T(3, 11, domain="base"), other=2),
            case("sqrt", "3x11 to the power 0.5 (positive inputs)", T(3, 11, domain="positive"), other=0.5),
            case("cube_zero_dim", "0-dim cubed", T(domain="base"), other=3),
            mixed("i32_float_scalar", "int32 3x5 to the power 0.5", T(3, 5, domain="positive",
                                                                        dtype=torch.int32), other=0.5),
        )),
    ]
    for name in ("eq", "ne", "lt", "le", "gt", "ge"):
        ops.append(Op(f"aten::{name}.Scalar_out", f"aten.{name}.Scalar", call(getattr(A, name).Scalar),
                      scalar_cases("grid", scalar_for(True, 1, 1.0))))
    return ops


def _scalar_overload_ops() -> list[Op]:
    """Scalar overloads of bitwise_and, div with rounding, and pow with a Scalar base."""
    divisor = ByDtype(lambda d: _one(d, True, -3 if _kind(d) == "signed" else 3, -1.5))
    return [
        Op("aten::bitwise_and.Scalar_out", "aten.bitwise_and.Scalar",
           lambda x, other: A.bitwise_and.Scalar(x, other),
           scalar_cases(scalar=scalar_for(True, 6, 1.5))[:3] + scalar_cases()[4:] + (
               mixed("i16_negative_scalar", "int16 3x5 with the int scalar -6", T(3, 5, dtype=torch.int16),
                     other=-6),
           )),
        *(Op(f"aten::{name}.Scalar_out", f"aten.{name}.Scalar",
             lambda x, other, overload=getattr(A, name).Scalar: overload(x, other),
             scalar_cases(scalar=scalar_for(True, 6, 1.5))[:3] + scalar_cases()[4:] + (
                 mixed("i16_negative_scalar", "int16 3x5 with the int scalar -6", T(3, 5, dtype=torch.int16),
                       other=-6),
             )) for name in ("bitwise_or", "bitwise_xor")),
        *(Op(f"aten::{name}.Tensor_Scalar_out", f"aten.{name}.Tensor_Scalar",
             lambda x, other, overload=getattr(A, name).Tensor_Scalar: overload(x, other), (
                 case("odd", "3x11 by 3 bits", T(3, 11), other=3),
                 case("zero_dim", "0-dim by 1 bit", T(), other=1),
                 case("wide", "3x5 by 9 bits (past an 8-bit width)", T(3, 5), other=9),
                 case("negative", "7 by -1 bits", T(7), other=-1),
                 mixed("i16_int64_scalar", "int16 7 by 20 bits", T(7, dtype=torch.int16), other=20),
             )) for name in ("bitwise_left_shift", "bitwise_right_shift")),
        Op("aten::remainder.Scalar_out", "aten.remainder.Scalar", lambda x, other: A.remainder.Scalar(x, other), (
            case("odd", "3x11 by -3 (uint8: 3; floating: -1.5)", T(3, 11), other=divisor),
            case("zero_dim", "0-dim by -3 (uint8: 3; floating: -1.5)", T(), other=divisor),
            case("empty", "empty 0x4 by -3 (uint8: 3; floating: -1.5)", T(0, 4), other=divisor),
            mixed("i32_float_scalar", "int32 3x5 by the float scalar 2.5", T(3, 5, dtype=torch.int32), other=2.5),
            mixed("i64_positive", "int64 13 by 4", T(13, dtype=torch.int64), other=4),
        )),
        Op("aten::rsub.Scalar_out", "aten.rsub.Scalar", lambda x, other, alpha=1: A.rsub.Scalar(x, other, alpha), (
            case("odd", "3 (floating: 1.5) minus 3x11", T(3, 11), other=scalar_for(True, 3, 1.5)),
            case("alpha_zero_dim", "3 (floating: 1.5) minus 2 (floating: 0.5) times a 0-dim", T(),
                 other=scalar_for(True, 3, 1.5), alpha=scalar_for(True, 2, 0.5)),
            case("empty", "3 minus an empty 0x4", T(0, 4), other=scalar_for(True, 3, 1.5)),
            mixed("i32_float_scalar", "2.5 minus int32 3x5", T(3, 5, dtype=torch.int32), other=2.5),
            mixed("bool_int_scalar", "2 minus bool 7 (int64 result)", T(7, dtype=torch.bool), other=2),
        ), preserve=(A.rsub.Scalar,)),
        Op("aten::div.Scalar_mode_out", "aten.div.Scalar_mode(rounding_mode='floor'|'trunc'|None)",
           lambda x, other, mode: A.div.Scalar_mode(x, other, rounding_mode=mode), (
               case("floor", "3x11 by -3 (uint8: 3; floating: -1.5), floor", T(3, 11), other=divisor, mode="floor"),
               case("trunc_zero_dim", "0-dim by -3 (uint8: 3; floating: -1.5), trunc", T(), other=divisor,
                    mode="trunc"),
               case("floor_empty", "empty 0x4 by -3 (uint8: 3; floating: -1.5), floor", T(0, 4), other=divisor,
                    mode="floor"),
               mixed("i32_float_scalar_floor", "int32 3x5 by the float scalar 2.5, floor",
                     T(3, 5, dtype=torch.int32), other=2.5, mode="floor"),
               mixed("bool_int_scalar_trunc", "bool 7 by the int scalar 2, trunc (int64 result)",
                     T(7, dtype=torch.bool), other=2, mode="trunc"),
               mixed("i64_none", "int64 3x5 by the int scalar 4, no rounding (true division)",
                     T(3, 5, dtype=torch.int64), other=4, mode=None),
           )),
        Op("aten::pow.Scalar_out", "aten.pow.Scalar", lambda exponent, base: A.pow.Scalar(base, exponent), (
            case("odd", "2 (floating: 1.5) to the powers of 3x11", T(3, 11, domain="exponent"),
                 base=scalar_for(True, 2, 1.5)),
            case("zero_dim", "3 (floating: 0.5) to the power of a 0-dim", T(domain="exponent"),
                 base=scalar_for(True, 3, 0.5)),
            case("empty", "2 (floating: 1.5) to the powers of an empty 0x4", T(0, 4, domain="exponent"),
                 base=scalar_for(True, 2, 1.5)),
            mixed("i32_float_base", "2.5 to the powers of int32 3x5 (float32 result)",
                  T(3, 5, domain="exponent", dtype=torch.int32), base=2.5),
            mixed("bool_int_base", "3 to the powers of bool 7 (int64 result)", T(7, dtype=torch.bool), base=3),
        )),
    ]


def _reduction_overload_ops() -> list[Op]:
    """mean over every element, with a dtype; var with a boolean correction."""
    return [
        Op("aten::mean.dtype_out", "aten.mean.default", lambda x, dtype=None: A.mean.default(x, dtype=dtype), (
            case("odd", "3x11, every element", T(3, 11)),
            case("zero_dim", "0-dim", T()),
            case("empty", "empty 0x4 (NaN)", T(0, 4)),
            mixed("f16_to_f32", "float16 3x5 with dtype=float32", T(3, 5, dtype=torch.float16), dtype=torch.float32),
            mixed("i32_to_f64", "int32 3x5 with dtype=float64", T(3, 5, dtype=torch.int32), dtype=torch.float64),
        ), preserve=(A.mean.default,)),
        Op("aten::var.out", "aten.var.dim",
           lambda x, dim, unbiased, keepdim: A.var.dim(x, dim, unbiased, keepdim), (
               case("dim1", "3x11 over dim 1, unbiased", T(3, 11), dim=[1], unbiased=True, keepdim=False),
               case("dims_keepdim", "2x3x5 over dims [0, -1], biased, keepdim", T(2, 3, 5),
                    dim=[0, -1], unbiased=False, keepdim=True),
               case("all", "33 elements, dim None, unbiased", T(33), dim=None, unbiased=True, keepdim=False),
           ), preserve=(A.var.dim,)),
    ]


def _selection_ops() -> list[Op]:
    """where, clamp and clamp.Tensor."""
    # uint8 gets an in-range lower bound: ExecuTorch refuses a negative one.
    lo = ByDtype(lambda d: 1 if d == torch.uint8 else _one(d, False, -2, -0.5))
    hi = scalar_for(True, 3, 0.8)
    return [
        Op("aten::where.self_out", "aten.where.self", lambda c, a, b: A.where.self(c, a, b), (
            case("odd", "bool 3x11 selecting between two 3x11", T(3, 11, dtype=torch.bool), T(3, 11), T(3, 11)),
            case("broadcast", "bool 3x1, 1x7 and a 0-dim, broadcast to 3x7",
                 T(3, 1, dtype=torch.bool), T(1, 7), T()),
            case("zero_dim", "all 0-dim", T(dtype=torch.bool), T(), T()),
            mixed("i32_f32", "int32 and float32 values", T(3, 5, dtype=torch.bool),
                  T(3, 5, dtype=torch.int32), T(3, 5, dtype=torch.float32)),
            mixed("f16_f32dim0", "float16 values with a 0-dim float32",
                  T(7, dtype=torch.bool), T(7, dtype=torch.float16), T(dtype=torch.float32)),
            mixed("u8_i8", "uint8 with int8 values (int16 result)", T(6, dtype=torch.bool),
                  T(6, dtype=torch.uint8), T(6, dtype=torch.int8)),
        )),
        Op("aten::clamp.out", "aten.clamp.default", lambda x, lo, hi: A.clamp.default(x, lo, hi), (
            case("both", "3x11 between two scalars", T(3, 11), lo=lo, hi=hi),
            case("min_only", "0-dim, min only", T(), lo=lo, hi=None),
            case("max_only_empty", "empty 0x4, max only", T(0, 4), lo=None, hi=hi),
            mixed("i32_float_bounds", "int32 3x5 between -0.5 and 2.5", T(3, 5, dtype=torch.int32),
                  lo=-0.5, hi=2.5),
        )),
        Op("aten::clamp.Tensor_out", "aten.clamp.Tensor",
           lambda x, *bounds, which: A.clamp.Tensor(x, *_bounds(bounds, which)), (
               case("both_broadcast", "3x11 between 11 and 3x1 bounds", T(3, 11), T(11), T(3, 1),
                    which="both"),
               case("min_only", "3x11 with a 0-dim min", T(3, 11), T(), which="min"),
               case("max_only", "0-dim with a 0-dim max", T(), T(), which="max"),
               mixed("i32_f32_bounds", "int32 3x5 between float32 bounds", T(3, 5, dtype=torch.int32),
                     T(5, dtype=torch.float32), T(3, 1, dtype=torch.float32), which="both"),
           )),
    ]


def _bounds(bounds: tuple, which: str) -> tuple:
    """clamp.Tensor's (min, max) from the given tensors."""
    if which == "both":
        return bounds
    return (bounds[0], None) if which == "min" else (None, bounds[0])


def _reduction_ops() -> list[Op]:
    """Reductions, scans, softmax."""
    def softmax(overload):
        return lambda x, dim: overload(x, dim, False)

    softmax_cases = (
        case("dim1", "3x11 over dim 1", T(3, 11), dim=1),
        case("neg_dim", "2x3x5 over dim -2", T(2, 3, 5), dim=-2),
        case("zero_dim", "0-dim over dim 0", T(), dim=0),
    )
    return [
        Op("aten::sum.IntList_out", "aten.sum.dim_IntList",
           lambda x, dim, keepdim, dtype=None: A.sum.dim_IntList(x, dim, keepdim, dtype=dtype),
           reduction_cases() + (
               mixed("f32_to_f64", "float32 3x5 over dim 1 with dtype=float64", T(3, 5, dtype=torch.float32),
                     dim=[1], keepdim=False, dtype=torch.float64),
               mixed("i8_to_i32", "int8 3x5 over dim 0 with dtype=int32", T(3, 5, dtype=torch.int8),
                     dim=[0], keepdim=False, dtype=torch.int32),
           )),
        Op("aten::mean.out", "aten.mean.dim",
           lambda x, dim, keepdim, dtype=None: A.mean.dim(x, dim, keepdim, dtype=dtype),
           reduction_cases() + (
               mixed("f16_to_f32", "float16 3x5 over dim 1 with dtype=float32",
                     T(3, 5, dtype=torch.float16), dim=[1], keepdim=False, dtype=torch.float32),
           )),
        Op("aten::amax.out", "aten.amax.default", lambda x, dim, keepdim: A.amax.default(x, dim, keepdim), (
            case("dim1", "3x11 over dim 1", T(3, 11, domain="grid"), dim=[1], keepdim=False),
            case("neg_dims_keepdim", "2x3x5 over dims [-1, 0], keepdim", T(2, 3, 5, domain="grid"),
                 dim=[-1, 0], keepdim=True),
            case("zero_dim", "0-dim over dims []", T(), dim=[], keepdim=False),
        )),
        Op("aten::argmax.out", "aten.argmax.default",
           lambda x, dim, keepdim: A.argmax.default(x, dim, keepdim), (
               case("dim1", "3x11 over dim 1 (distinct values)", T(3, 11, domain="distinct"),
                    dim=1, keepdim=False),
               case("neg_dim_keepdim", "2x3x5 over dim -1, keepdim", T(2, 3, 5, domain="distinct"),
                    dim=-1, keepdim=True),
               case("flat", "33 elements, dim None (whole tensor)", T(33, domain="distinct"),
                    dim=None, keepdim=False),
           )),
        Op("aten::amin.out", "aten.amin.default", lambda x, dim, keepdim: A.amin.default(x, dim, keepdim), (
            case("dim1", "3x11 over dim 1", T(3, 11, domain="grid"), dim=[1], keepdim=False),
            case("neg_dims_keepdim", "2x3x5 over dims [-1, 0], keepdim", T(2, 3, 5, domain="grid"),
                 dim=[-1, 0], keepdim=True),
            case("zero_dim", "0-dim over dims []", T(), dim=[], keepdim=False),
        )),
        Op("aten::argmin.out", "aten.argmin.default",
           lambda x, dim, keepdim: A.argmin.default(x, dim, keepdim), (
               case("dim1", "3x11 over dim 1 (distinct values)", T(3, 11, domain="distinct"),
                    dim=1, keepdim=False),
               case("neg_dim_keepdim", "2x3x5 over dim -1, keepdim", T(2, 3, 5, domain="distinct"),
                    dim=-1, keepdim=True),
               case("flat", "33 elements, dim None (whole tensor)", T(33, domain="distinct"),
                    dim=None, keepdim=False),
           )),
        *(Op(f"aten::{name}.dim_{name}", f"aten.{name}.dim",
             lambda x, dim, keepdim, overload=getattr(A, name).dim: overload(x, dim, keepdim), (
                 case("dim1", "3x11 over dim 1 (distinct values)", T(3, 11, domain="distinct"), dim=1,
                      keepdim=False),
                 case("neg_dim_keepdim", "2x3x5 over dim -2, keepdim", T(2, 3, 5, domain="distinct"), dim=-2,
                      keepdim=True),
                 case("zero_dim", "0-dim over dim 0", T(), dim=0, keepdim=False),
             )) for name in ("max", "min")),
        *(Op(f"aten::{name}.unary_out", f"aten.{name}.default",
             lambda x, overload=getattr(A, name).default: overload(x), (
                 case("odd", "3x11 (repeated values)", T(3, 11, domain="grid")),
                 case("zero_dim", "0-dim", T()),
                 case("single", "1x1", T(1, 1)),
             )) for name in ("max", "min")),
        Op("aten::prod.int_out", "aten.prod.dim_int",
           lambda x, dim, keepdim, dtype=None: A.prod.dim_int(x, dim, keepdim, dtype=dtype), (
               case("dim1", "3x11 along dim 1", T(3, 11, domain="base"), dim=1, keepdim=False),
               case("neg_dim_keepdim", "2x3x5 along dim -2, keepdim", T(2, 3, 5, domain="base"), dim=-2,
                    keepdim=True),
               case("empty_dim", "0x4 along dim 0 (four ones)", T(0, 4), dim=0, keepdim=False),
               mixed("f32_to_f64", "float32 3x5 along dim 1 with dtype=float64", T(3, 5, domain="base",
                                                                                   dtype=torch.float32),
                     dim=1, keepdim=False, dtype=torch.float64),
           )),
        Op("aten::prod.out", "aten.prod.default", lambda x, dtype=None: A.prod.default(x, dtype=dtype), (
            case("odd", "3x5, every element", T(3, 5, domain="base")),
            case("zero_dim", "0-dim", T(domain="base")),
            case("empty", "empty 0x4 (one)", T(0, 4)),
            mixed("i32_to_f32", "int32 7 with dtype=float32", T(7, domain="base", dtype=torch.int32),
                  dtype=torch.float32),
        )),
        Op("aten::var_mean.correction_out", "aten.var_mean.correction",
           lambda x, dim, correction, keepdim: A.var_mean.correction(x, dim, correction=correction,
                                                                      keepdim=keepdim), (
               case("dim1", "3x11 over dim 1, correction 1", T(3, 11), dim=[1], correction=1, keepdim=False),
               case("dims_keepdim", "2x3x5 over dims [0, -1], correction 0, keepdim", T(2, 3, 5),
                    dim=[0, -1], correction=0, keepdim=True),
               case("all", "33 elements, dim None, correction 1", T(33), dim=None, correction=1, keepdim=False),
           )),
        Op("aten::glu.out", "aten.glu.default", lambda x, dim: A.glu.default(x, dim), (
            case("last_dim", "3x10 halved along dim -1", T(3, 10), dim=-1),
            case("first_dim", "4x3x2 halved along dim 0", T(4, 3, 2), dim=0),
            case("two", "2 halved along dim 0", T(2), dim=0),
        ), preserve=(A.glu.default,)),
        Op("aten::var.correction_out", "aten.var.correction",
           lambda x, dim, correction, keepdim: A.var.correction(x, dim, correction=correction, keepdim=keepdim), (
               case("dim1", "3x11 over dim 1, correction 1", T(3, 11), dim=[1], correction=1, keepdim=False),
               case("dims_keepdim", "2x3x5 over dims [0, -1], correction 0, keepdim", T(2, 3, 5),
                    dim=[0, -1], correction=0, keepdim=True),
               case("all", "33 elements, dim None, correction 1", T(33), dim=None, correction=1, keepdim=False),
           )),
        Op("aten::cumsum.out", "aten.cumsum.default",
           lambda x, dim, dtype=None: A.cumsum.default(x, dim, dtype=dtype), (
               case("dim1", "3x11 along dim 1", T(3, 11), dim=1),
               case("neg_dim", "2x3x5 along dim -2", T(2, 3, 5), dim=-2),
               case("empty", "empty 0x4 along dim 1", T(0, 4), dim=1),
               case("zero_dim", "0-dim along dim 0", T(), dim=0, only=(torch.float32,)),
               mixed("i8_to_f32", "int8 13 with dtype=float32", T(13, dtype=torch.int8), dim=0,
                     dtype=torch.float32),
           )),
        Op("aten::_softmax.out", "aten._softmax.default(half_to_float=False)", softmax(A._softmax.default),
           softmax_cases),
        Op("aten::_log_softmax.out", "aten._log_softmax.default(half_to_float=False)",
           softmax(A._log_softmax.default), softmax_cases),
    ]


def _any_ops() -> list[Op]:
    """The three overloads of any."""
    return [
        Op("aten::any.out", "aten.any.dim", lambda x, dim, keepdim: A.any.dim(x, dim, keepdim), (
            case("dim1", "3x11 (mostly zero) over dim 1", T(3, 11, domain="sparse"), dim=1, keepdim=False),
            case("neg_dim_keepdim", "2x3x5 over dim -2, keepdim", T(2, 3, 5, domain="sparse"),
                 dim=-2, keepdim=True),
            case("empty", "empty 0x4 over dim 1", T(0, 4, domain="sparse"), dim=1, keepdim=False),
        )),
        Op("aten::any.all_out", "aten.any.default", lambda x: A.any.default(x), (
            case("odd", "3x11, mostly zero", T(3, 11, domain="sparse")),
            case("all_zero", "7 zeros", T(7, domain="zeros")),
            case("empty", "empty 0x4 (false)", T(0, 4)),
        )),
        Op("aten::any.dims_out", "aten.any.dims", lambda x, dim, keepdim: A.any.dims(x, dim, keepdim), (
            case("dims", "2x3x5 (mostly zero) over dims [0, 2]", T(2, 3, 5, domain="sparse"),
                 dim=[0, 2], keepdim=False),
            case("neg_dim_keepdim", "3x11 over dims [-1], keepdim", T(3, 11, domain="sparse"),
                 dim=[-1], keepdim=True),
            case("empty", "empty 0x4 over dims [0]", T(0, 4, domain="sparse"), dim=[0], keepdim=False),
        )),
    ]


def _shape_ops() -> list[Op]:
    """Shape and copy operators."""
    def to(x, target):
        return x.to(target)

    pad_value = scalar_for(True, 2, 1.5)
    return [
        Op("aten::cat.out", "aten.cat.default", lambda *xs, dim: A.cat.default(list(xs), dim), (
            case("three_dim0", "2x3, 4x3 and 1x3 along dim 0", T(2, 3), T(4, 3), T(1, 3), dim=0),
            case("neg_dim", "2x3 and 2x5 along dim -1", T(2, 3), T(2, 5), dim=-1),
            case("with_empty", "0x3 and 2x3 along dim 0", T(0, 3), T(2, 3), dim=0),
            mixed("i32_f32", "int32 2x3 and float32 1x3 (float32 result)",
                  T(2, 3, dtype=torch.int32), T(1, 3, dtype=torch.float32), dim=0),
            mixed("u8_i8", "uint8 and int8 (int16 result)", T(4, dtype=torch.uint8), T(3, dtype=torch.int8),
                  dim=0),
            mixed("bool_i64", "bool and int64 (int64 result)", T(2, 2, dtype=torch.bool),
                  T(2, 3, dtype=torch.int64), dim=1),
        )),
        Op("aten::view_copy.out", "aten.view_copy.default", lambda x, size: A.view_copy.default(x, size), (
            case("infer", "2x3x4 as [4, -1]", T(2, 3, 4), size=[4, -1]),
            case("zero_dim", "0-dim as [1, 1]", T(), size=[1, 1]),
            case("empty", "empty 0x6 as [2, 0, 3]", T(0, 6), size=[2, 0, 3]),
        )),
        Op("aten::unsqueeze_copy.out", "aten.unsqueeze_copy.default",
           lambda x, dim: A.unsqueeze_copy.default(x, dim), (
               case("front", "3x11 at dim 0", T(3, 11), dim=0),
               case("neg_dim", "2x3 at dim -1", T(2, 3), dim=-1),
               case("zero_dim", "0-dim at dim 0", T(), dim=0),
           )),
        Op("aten::squeeze_copy.dims_out", "aten.squeeze_copy.dims",
           lambda x, dims: A.squeeze_copy.dims(x, dims), (
               case("two", "1x3x1x5, dims [0, 2]", T(1, 3, 1, 5), dims=[0, 2]),
               case("neg_and_kept", "2x1x3, dims [0, -2] (dim 0 is not 1: kept)", T(2, 1, 3), dims=[0, -2]),
               case("to_zero_dim", "1, dims [0] (0-dim result)", T(1), dims=[0]),
           )),
        Op("aten::squeeze_copy.dim_out", "aten.squeeze_copy.dim (kept from decomposition)",
           lambda x, dim: A.squeeze_copy.dim(x, dim), (
               case("neg_dim", "3x1 at dim -1", T(3, 1), dim=-1),
               case("to_zero_dim", "1 at dim 0 (0-dim result)", T(1), dim=0),
               case("middle", "2x1x5 at dim 1", T(2, 1, 5), dim=1),
           ), preserve=(A.squeeze_copy.dim,)),
        Op("aten::slice_copy.Tensor_out", "aten.slice_copy.Tensor",
           lambda x, dim, start, end, step: A.slice_copy.Tensor(x, dim, start, end, step), (
               case("step", "3x11, dim 1, 2:9:3", T(3, 11), dim=1, start=2, end=9, step=3),
               case("negative_start", "5x4, dim 0, -3:100 (end clamped)", T(5, 4), dim=0, start=-3,
                    end=100, step=1),
               case("empty", "4x3, dim -2, 2:2 (0x3 result)", T(4, 3), dim=-2, start=2, end=2, step=1),
           )),
        Op("aten::select_copy.int_out", "aten.select_copy.int",
           lambda x, dim, index: A.select_copy.int(x, dim, index), (
               case("middle", "3x11, dim 1, index 4", T(3, 11), dim=1, index=4),
               case("negative", "2x3x4, dim -1, index -1", T(2, 3, 4), dim=-1, index=-1),
               case("to_zero_dim", "7, dim 0, index 2 (0-dim result)", T(7), dim=0, index=2),
           )),
        Op("aten::alias_copy.out", "aten.alias_copy.default", lambda x: A.alias_copy.default(x),
           unary_cases()),
        Op("aten::as_strided_copy.out", "aten.as_strided_copy.default",
           lambda x, size, stride, offset: A.as_strided_copy.default(x, size, stride, offset), (
               case("offset", "3x11 viewed as 4x3, stride [2, 5], offset 1", T(3, 11),
                    size=[4, 3], stride=[2, 5], offset=1),
               case("overlap", "2x3x4 as 3x3, stride [1, 1] (overlapping windows)", T(2, 3, 4),
                    size=[3, 3], stride=[1, 1], offset=0),
               case("zero_stride", "7 as 2x3, stride [0, 2] (repeated rows), offset 1", T(7),
                    size=[2, 3], stride=[0, 2], offset=1),
           )),
        Op("aten::copy.out", "aten.copy.default", lambda x, src: A.copy.default(x, src), (
            case("same", "3x11 from 3x11", T(3, 11), T(3, 11)),
            case("broadcast", "2x3x4 from 4 (broadcast)", T(2, 3, 4), T(4)),
            case("zero_dim", "0-dim from 0-dim", T(), T()),
            mixed("f32_from_i64", "float32 3x4 from int64 4", T(3, 4, dtype=torch.float32), T(4, dtype=torch.int64)),
            mixed("i32_from_f64", "int32 5 from float64 5 (truncates)", T(5, dtype=torch.int32),
                  T(5, dtype=torch.float64)),
        )),
        Op("aten::copy_", "Tensor.copy_ on an input (written back in place)", lambda x, src: x.copy_(src), (
            case("same", "3x11 from 3x11", T(3, 11), T(3, 11)),
            case("broadcast", "2x3x4 from 4 (broadcast)", T(2, 3, 4), T(4)),
            mixed("f32_from_i64", "float32 3x4 from int64 4", T(3, 4, dtype=torch.float32), T(4, dtype=torch.int64)),
        ), mutated_inputs=1),
        Op("dim_order_ops::_clone_dim_order.out", "aten.clone.default", lambda x: A.clone.default(x),
           unary_cases()),
        Op("aten::flip.out", "aten.flip.default", lambda x, dims: A.flip.default(x, dims), (
            case("dim1", "3x11 along dim 1", T(3, 11), dims=[1]),
            case("two_dims", "2x3x4 along dims [0, -1]", T(2, 3, 4), dims=[0, -1]),
            case("one_dim", "7 along dim 0", T(7), dims=[0]),
        )),
        Op("aten::constant_pad_nd.out", "aten.constant_pad_nd.default",
           lambda x, pad, value: A.constant_pad_nd.default(x, pad, value), (
               case("last_dim", "3x11 padded [1, 2] with 0", T(3, 11), pad=[1, 2], value=0),
               case("two_dims", "2x3x4 padded [0, 1, 2, 0] with a value", T(2, 3, 4), pad=[0, 1, 2, 0],
                    value=pad_value),
               case("empty_input", "empty 0x3 padded [0, 0, 1, 1] (a 2x3 of the value)", T(0, 3),
                    pad=[0, 0, 1, 1], value=pad_value),
               case("negative", "3x5 padded [-1, 1] (crops on the left)", T(3, 5), pad=[-1, 1], value=pad_value,
                    only=(torch.float32,)),
           )),
        Op("aten::slice_scatter.out", "aten.slice_scatter.default",
           lambda x, src, dim, start, end, step: A.slice_scatter.default(x, src, dim, start, end, step), (
               case("step", "4x6 with 4x2 at dim 1, 1:5:2", T(4, 6), T(4, 2), dim=1, start=1, end=5, step=2),
               case("negative_start", "5x3 with 2x3 at dim 0, -2:", T(5, 3), T(2, 3), dim=0, start=-2,
                    end=None, step=1),
               case("empty_src", "3x4 with an empty 0x4 at dim 0, 1:1", T(3, 4), T(0, 4), dim=0, start=1,
                    end=1, step=1),
           )),
        Op("aten::permute_copy.out", "aten.permute_copy.default",
           lambda x, dims: A.permute_copy.default(x, dims), (
               case("rotate", "2x3x4 by [2, 0, 1]", T(2, 3, 4), dims=[2, 0, 1]),
               case("transpose", "3x11 by [1, 0]", T(3, 11), dims=[1, 0]),
               case("negative", "2x1x3x2 by [-1, 0, 2, 1]", T(2, 1, 3, 2), dims=[-1, 0, 2, 1]),
           )),
        Op("aten::expand_copy.out", "aten.expand_copy.default",
           lambda x, size: A.expand_copy.default(x, size), (
               case("column", "3x1 to [-1, 5] (-1 keeps the size)", T(3, 1), size=[-1, 5]),
               case("new_dims", "4 to [2, 3, 4]", T(4), size=[2, 3, 4]),
               case("zero_dim", "0-dim to [7]", T(), size=[7]),
           )),
        Op("aten::split_with_sizes_copy.out", "aten.split_with_sizes_copy.default",
           lambda x, sizes, dim: A.split_with_sizes_copy.default(x, sizes, dim), (
               case("rows", "7x4 into [2, 5] along dim 0", T(7, 4), sizes=[2, 5], dim=0),
               case("with_empty", "3x11 into [4, 0, 7] along dim -1", T(3, 11), sizes=[4, 0, 7], dim=-1),
               case("single", "2x6 into [6] along dim 1", T(2, 6), sizes=[6], dim=1),
           )),
        Op("dim_order_ops::_to_dim_order_copy.out", "Tensor.to(dtype) (aten._to_copy)", to, (
            case("to_float", "3x11 to float32 (float64 from float32)", T(3, 11),
                 target=ByDtype(lambda d: torch.float64 if d == torch.float32 else torch.float32)),
            case("to_int", "0-dim to int64 (int32 from int64)", T(),
                 target=ByDtype(lambda d: torch.int32 if d == torch.int64 else torch.int64)),
            case("to_narrow", "empty 0x4 to bool (uint8 from bool)", T(0, 4),
                 target=ByDtype(lambda d: torch.uint8 if d == torch.bool else torch.bool)),
            mixed("f32_to_f16", "float32 13 to float16", T(13, dtype=torch.float32), target=torch.float16),
            mixed("f32_to_bf16", "float32 13 to bfloat16", T(13, dtype=torch.float32), target=torch.bfloat16),
            mixed("f64_to_i8", "float64 13 to int8 (truncation)", T(13, dtype=torch.float64), target=torch.int8),
        )),
    ]


def _creation_ops() -> list[Op]:
    """Operators that make tensors from sizes and scalars (methods with no
    tensor input, except full_like)."""
    fill = scalar_for(True, 7, 2.5)
    dtype = ByDtype(lambda d: d)
    return [
        Op("aten::full.out", "aten.full.default",
           lambda size, value, dtype: A.full.default(size, value, dtype=dtype), (
               case("odd", "[3, 11]", size=[3, 11], value=fill, dtype=dtype),
               case("zero_dim", "[] (0-dim)", size=[], value=fill, dtype=dtype),
               case("empty", "[0, 4]", size=[0, 4], value=fill, dtype=dtype),
           )),
        Op("aten::full_like.out", "aten.full_like.default",
           lambda x, value, dtype=None: A.full_like.default(x, value, dtype=dtype),
           unary_cases(value=fill) + (
               mixed("i32_to_f32", "like int32 3x5, dtype=float32, 2.5", T(3, 5, dtype=torch.int32),
                     value=2.5, dtype=torch.float32),
           )),
        *(Op(f"aten::{name}.out", f"aten.{name}.default",
             lambda size, dtype, overload=getattr(A, name).default: overload(size, dtype=dtype), (
                 case("odd", "[3, 11]", size=[3, 11], dtype=dtype),
                 case("zero_dim", "[] (0-dim)", size=[], dtype=dtype),
                 case("empty", "[0, 4]", size=[0, 4], dtype=dtype),
             ), preserve=(getattr(A, name).default,)) for name in ("zeros", "ones")),
        # empty's values are unspecified: only shapes with no element compare.
        Op("aten::empty.out", "aten.empty.memory_format",
           lambda size, dtype: A.empty.memory_format(size, dtype=dtype), (
               case("rows", "[0, 4]", size=[0, 4], dtype=dtype),
               case("columns", "[3, 0]", size=[3, 0], dtype=dtype),
               case("vector", "[0]", size=[0], dtype=dtype),
           ), skip_dim_order=True),
        Op("aten::fill.Scalar_out", "aten.fill.Scalar", lambda x, value: A.fill.Scalar(x, value),
           unary_cases(value=fill) + (
               mixed("i32_float_value", "int32 3x5 filled with 2.5 (truncated)", T(3, 5, dtype=torch.int32),
                     value=2.5),
           ), preserve=(A.fill.Scalar,)),
        Op("aten::fill.Tensor_out", "aten.fill.Tensor", lambda x, value: A.fill.Tensor(x, value), (
            case("odd", "3x11 with a 0-dim value", T(3, 11), T()),
            case("zero_dim", "0-dim with a 0-dim value", T(), T()),
            case("empty", "empty 0x4 with a 0-dim value", T(0, 4), T()),
            mixed("f32_i64_value", "float32 3x5 with an int64 0-dim value", T(3, 5, dtype=torch.float32),
                  T(dtype=torch.int64)),
        ), preserve=(A.fill.Tensor,)),
        Op("aten::scalar_tensor.out", "aten.scalar_tensor.default",
           lambda value, dtype: A.scalar_tensor.default(value, dtype=dtype), (
               case("int_value", "7", value=7, dtype=dtype),
               case("float_value", "2.5 (converted to the dtype)", value=2.5, dtype=dtype),
               case("zero", "0", value=0, dtype=dtype),
           )),
        Op("aten::arange.start_out", "aten.arange.start and aten.arange.start_step",
           lambda start, end, step, dtype: A.arange.start_step(start, end, step, dtype=dtype)
           if step != 1 else A.arange.start(start, end, dtype=dtype), (
               case("basic", "arange(1, 8)", start=1, end=8, step=1, dtype=dtype),
               case("step", "arange(2, 35, 3) (11 elements)", start=2, end=35, step=3, dtype=dtype),
               case("empty", "arange(5, 5)", start=5, end=5, step=1, dtype=dtype),
           )),
        Op("aten::arange.out", "aten.arange.default (kept from decomposition)",
           lambda end, dtype: A.arange.default(end, dtype=dtype), (
               case("seven", "arange(7)", end=7, dtype=dtype),
               case("odd", "arange(33)", end=33, dtype=dtype),
               case("empty", "arange(0)", end=0, dtype=dtype),
           ), preserve=(A.arange.default,)),
    ]


def _indexing_ops() -> list[Op]:
    """Gathering by index tensors."""
    return [
        Op("aten::index.Tensor_out", "aten.index.Tensor",
           lambda x, *idx, layout: A.index.Tensor(x, [None if s is None else idx[s] for s in layout]), (
               case("first_dim", "4x5 at [idx(3)]", T(4, 5), Ix((3,), 4), layout=(0,)),
               case("second_dim", "3x4x5 at [:, idx(2x2)]", T(3, 4, 5), Ix((2, 2), 4), layout=(None, 0)),
               case("broadcast", "4x5 at [idx(3x1), idx(2)] (3x2 result)", T(4, 5), Ix((3, 1), 4),
                    Ix((2,), 5), layout=(0, 1)),
           )),
        Op("aten::index_put.out", "aten.index_put.default",
           lambda x, v, *idx, layout, accumulate: A.index_put.default(
               x, [None if s is None else idx[s] for s in layout], v, accumulate), (
               case("rows", "5x4, rows [0, 2, 4] = 3x4", T(5, 4), T(3, 4), Fixed((0, 2, 4), torch.int64),
                    layout=(0,), accumulate=False),
               case("cache", "1x2x6x3 at [:, :, [4]] = 1x2x1x3 (a KV-cache write)", T(1, 2, 6, 3), T(1, 2, 1, 3),
                    Fixed((4,), torch.int64), layout=(None, None, 0), accumulate=False),
               case("accumulate", "4x5 at [idx(6)] += 5 (broadcast, repeated rows add up)", T(4, 5), T(5),
                    Ix((6,), 4), layout=(0,), accumulate=True),
           )),
        Op("aten::index_select.out", "aten.index_select.default",
           lambda x, idx, dim: A.index_select.default(x, dim, idx), (
               case("rows", "5x4 rows [idx(3)]", T(5, 4), Ix((3,), 5), dim=0),
               case("neg_dim", "3x11 along dim -1 with 4 (repeating) indices", T(3, 11), Ix((4,), 11), dim=-1),
               case("zero_dim_index", "7 with a 0-dim index", T(7), Ix((), 7), dim=0),
           )),
        Op("aten::gather.out", "aten.gather.default", lambda x, idx, dim: A.gather.default(x, dim, idx), (
            case("dim1", "3x5 along dim 1 with 3x4 indices", T(3, 5), Ix((3, 4), 5), dim=1),
            case("dim0", "4x3 along dim 0 with 2x3 indices", T(4, 3), Ix((2, 3), 4), dim=0),
            case("neg_dim", "2x3x4 along dim -1 with 2x3x1 indices", T(2, 3, 4), Ix((2, 3, 1), 4), dim=-1),
        )),
        Op("aten::embedding.out", "aten.embedding.default", lambda w, idx: A.embedding.default(w, idx), (
            case("vector", "10x4 table, 3 indices", T(10, 4), Ix((3,), 10)),
            case("matrix", "10x4 table, 2x3 indices", T(10, 4), Ix((2, 3), 10)),
            case("zero_dim_index", "10x4 table, a 0-dim index", T(10, 4), Ix((), 10)),
        )),
        Op("aten::_embedding_bag.out", "aten._embedding_bag.default",
           # Only the bags, as nn.EmbeddingBag returns: the other outputs serve the
           # backward pass, and ATen's CPU kernel shapes them by dtype and mode
           # (e.g. offset2bag is empty for a Float sum, full for a Double one).
           lambda w, idx, offsets, mode: A._embedding_bag.default(w, idx, offsets, False, mode)[0], (
               case("sum", "10x3 table, 6 indices in bags [0, 2, 5], sum", T(10, 3), Ix((6,), 10),
                    Fixed((0, 2, 5), torch.int64), mode=0),
               case("mean", "10x3 table, 6 indices in bags [0, 3], mean", T(10, 3), Ix((6,), 10),
                    Fixed((0, 3), torch.int64), mode=1),
           )),
    ]


def _norm_ops() -> list[Op]:
    """Normalisations."""
    def layer_norm(x, *weight_bias, shape, eps):
        weight, bias = weight_bias if weight_bias else (None, None)
        return A.native_layer_norm.default(x, shape, weight, bias, eps)

    def group_norm(x, weight, bias, groups, eps):
        n, c = x.shape[0], x.shape[1]
        return A.native_group_norm.default(x, weight, bias, n, c, math.prod(x.shape[2:]), groups, eps)

    def batch_norm(x, weight, bias, mean, var, eps):
        return A._native_batch_norm_legit_no_training.default(x, weight, bias, mean, var, 0.1, eps)

    return [
        Op("aten::_native_batch_norm_legit_no_training.out", "aten._native_batch_norm_legit_no_training.default",
           batch_norm, tuple(
               case(name, desc, T(*shape), T(c), T(c), T(c), T(c, domain="variance"), eps=1e-5)
               for name, desc, shape, c in (
                   ("nchw", "1x4x3x3, 4 channels", (1, 4, 3, 3), 4),
                   ("ncl", "2x3x7, 3 channels", (2, 3, 7), 3),
                   ("nc", "5x3, 3 channels", (5, 3), 3),
               ))),
        Op("aten::native_group_norm.out", "aten.native_group_norm.default", group_norm, (
            case("two_groups", "2x4x3x3 in 2 groups", T(2, 4, 3, 3), T(4), T(4), groups=2, eps=1e-5),
            case("one_group", "1x6x7 in 1 group", T(1, 6, 7), T(6), T(6), groups=1, eps=1e-5),
            case("instance", "1x3x2x2 in 3 groups (one per channel)", T(1, 3, 2, 2), T(3), T(3),
                 groups=3, eps=1e-5),
        )),
        Op("aten::native_layer_norm.out", "aten.native_layer_norm.default", layer_norm, (
            case("last_dim", "2x3x8 over [8]", T(2, 3, 8), T(8), T(8), shape=[8], eps=1e-5),
            case("odd", "3x11 over [11]", T(3, 11), T(11), T(11), shape=[11], eps=1e-5),
            case("two_dims_no_affine", "2x3x4 over [3, 4], no weight or bias", T(2, 3, 4), shape=[3, 4],
                 eps=1e-5),
        )),
    ]


def conv(name: str, description: str, x: tuple, w: tuple, bias: int | None, only: tuple | None = None,
         stride=(1,), padding=(0,), dilation=(1,), transposed=False, output_padding=(0,), groups=1) -> Case:
    """A convolution case: input and weight shapes, bias channels (None: no
    bias), and the convolution's parameters."""
    inputs = (T(*x), T(*w)) + ((T(bias),) if bias is not None else ())
    return case(name, description, *inputs, only=only, stride=list(stride), padding=list(padding),
                dilation=list(dilation), transposed=transposed, output_padding=list(output_padding),
                groups=groups)


def _convolution(x, w, *bias, stride, padding, dilation, transposed, output_padding, groups):
    return A.convolution.default(x, w, bias[0] if bias else None, stride, padding, dilation,
                                 transposed, output_padding, groups)


def _spatial_ops() -> list[Op]:
    """Convolution, pooling and resizing."""
    core = None  # every dtype of the operator
    return [
        Op("aten::convolution.out", "aten.convolution.default", _convolution, (
            conv("conv1d_bias", "1-D: 1x2x13 by 3x2x3, bias", (1, 2, 13), (3, 2, 3), 3, core),
            conv("conv2d_stride_pad", "2-D: 1x3x7x7 by 4x3x3x3, bias, stride 2, padding 1",
                 (1, 3, 7, 7), (4, 3, 3, 3), 4, core, stride=(2, 2), padding=(1, 1)),
            conv("conv2d_depthwise", "2-D depthwise: 1x4x6x6 by 4x1x3x3, groups 4, bias, padding 1",
                 (1, 4, 6, 6), (4, 1, 3, 3), 4, core, padding=(1, 1), groups=4),
            conv("conv2d_dilation", "2-D: 2x2x7x7 by 3x2x3x3, no bias, dilation 2, padding [2, 1]",
                 (2, 2, 7, 7), (3, 2, 3, 3), None, WIDE_FLOATS, padding=(2, 1), dilation=(2, 2)),
            conv("conv2d_groups", "2-D: 1x4x5x5 by 6x2x3x2, groups 2, no bias, stride [1, 2]",
                 (1, 4, 5, 5), (6, 2, 3, 2), None, WIDE_FLOATS, stride=(1, 2), padding=(0, 0), groups=2),
            conv("transposed2d", "transposed 2-D: 1x4x4x4 by 4x2x3x3, bias, stride 2, padding 1, "
                 "output_padding 1", (1, 4, 4, 4), (4, 2, 3, 3), 2, WIDE_FLOATS, stride=(2, 2),
                 padding=(1, 1), transposed=True, output_padding=(1, 1)),
            conv("transposed1d_groups", "transposed 1-D: 1x4x5 by 4x1x3, groups 2, no bias, stride 2",
                 (1, 4, 5), (4, 1, 3), None, WIDE_FLOATS, stride=(2,), transposed=True, groups=2),
        )),
        Op("aten::max_pool2d_with_indices.out", "aten.max_pool2d_with_indices.default",
           lambda x, kernel, stride, padding, dilation, ceil: A.max_pool2d_with_indices.default(
               x, kernel, stride, padding, dilation, ceil), (
               case("k2", "1x2x6x6, kernel 2 (stride 2)", T(1, 2, 6, 6, domain="distinct"), kernel=[2, 2],
                    stride=[], padding=[0, 0], dilation=[1, 1], ceil=False),
               case("k3_s2_p1", "1x1x7x7, kernel 3, stride 2, padding 1", T(1, 1, 7, 7, domain="distinct"),
                    kernel=[3, 3], stride=[2, 2], padding=[1, 1], dilation=[1, 1], ceil=False),
               case("dilated_ceil", "2x1x7x5, kernel [2, 3], stride [1, 2], dilation [2, 1], ceil_mode",
                    T(2, 1, 7, 5, domain="distinct"), kernel=[2, 3], stride=[1, 2], padding=[0, 1],
                    dilation=[2, 1], ceil=True),
           )),
        Op("aten::avg_pool2d.out", "aten.avg_pool2d.default",
           lambda x, kernel, stride, padding, ceil, count_pad, divisor: A.avg_pool2d.default(
               x, kernel, stride, padding, ceil, count_pad, divisor), (
               case("k2", "1x2x6x6, kernel 2", T(1, 2, 6, 6), kernel=[2, 2], stride=[], padding=[0, 0],
                    ceil=False, count_pad=True, divisor=None),
               case("k3_s2_p1_exclude", "1x1x7x7, kernel 3, stride 2, padding 1, count_include_pad off",
                    T(1, 1, 7, 7), kernel=[3, 3], stride=[2, 2], padding=[1, 1], ceil=False,
                    count_pad=False, divisor=None),
               case("ceil_divisor", "1x2x5x7, kernel [2, 3], stride [1, 2], ceil_mode, divisor 4",
                    T(1, 2, 5, 7), kernel=[2, 3], stride=[1, 2], padding=[0, 1], ceil=True,
                    count_pad=True, divisor=4),
           )),
        Op("aten::_adaptive_avg_pool2d.out", "aten._adaptive_avg_pool2d.default",
           lambda x, size: A._adaptive_avg_pool2d.default(x, size), (
               case("halve", "1x2x6x6 to 3x3", T(1, 2, 6, 6), size=[3, 3]),
               case("uneven", "1x1x7x5 to 3x2 (overlapping windows)", T(1, 1, 7, 5), size=[3, 2]),
               case("global", "2x3x4x4 to 1x1", T(2, 3, 4, 4), size=[1, 1]),
           )),
        Op("aten::upsample_bilinear2d.vec_out", "aten.upsample_bilinear2d.vec",
           lambda x, size, align, scales: A.upsample_bilinear2d.vec(x, size, align, scales), (
               case("size", "1x2x3x3 to 5x7", T(1, 2, 3, 3), size=[5, 7], align=False, scales=None),
               case("scale_align", "1x1x4x4 scaled 2x, align_corners", T(1, 1, 4, 4), size=None, align=True,
                    scales=[2.0, 2.0]),
               case("down", "1x2x5x3 to 3x2", T(1, 2, 5, 3), size=[3, 2], align=False, scales=None),
           )),
        Op("aten::upsample_nearest2d.vec_out", "aten.upsample_nearest2d.vec",
           lambda x, size, scales: A.upsample_nearest2d.vec(x, size, scales), (
               case("size", "1x2x3x3 to 5x7", T(1, 2, 3, 3), size=[5, 7], scales=None),
               case("scale", "1x1x3x4 scaled [2, 1.5]", T(1, 1, 3, 4), size=None, scales=[2.0, 1.5]),
               case("down", "1x2x7x5 to 3x2", T(1, 2, 7, 5), size=[3, 2], scales=None),
           )),
    ]


def _matmul_ops() -> list[Op]:
    """Matrix products."""
    beta, alpha = scalar_for(True, 2, 0.5), scalar_for(True, 3, 2.0)
    return [
        Op("aten::mm.out", "aten.mm.default", lambda a, b: A.mm.default(a, b), (
            case("basic", "3x5 by 5x4", T(3, 5), T(5, 4)),
            case("odd", "1x13 by 13x7", T(1, 13), T(13, 7)),
            case("empty_inner", "4x0 by 0x3 (zeros)", T(4, 0), T(0, 3)),
        )),
        Op("aten::addmm.out", "aten.addmm.default",
           lambda c, a, b, beta, alpha: A.addmm.default(c, a, b, beta=beta, alpha=alpha), (
               case("row_bias", "4 + 3x5 by 5x4", T(4), T(3, 5), T(5, 4), beta=1, alpha=1),
               case("scaled", "3x4 + 3x5 by 5x4, beta and alpha", T(3, 4), T(3, 5), T(5, 4), beta=beta,
                    alpha=alpha),
               case("zero_dim_bias", "0-dim + 2x13 by 13x3", T(), T(2, 13), T(13, 3), beta=1, alpha=1),
           )),
        Op("aten::bmm.out", "aten.bmm.default", lambda a, b: A.bmm.default(a, b), (
            case("basic", "2x3x5 by 2x5x4", T(2, 3, 5), T(2, 5, 4)),
            case("odd", "1x7x13 by 1x13x2", T(1, 7, 13), T(1, 13, 2)),
            case("empty_inner", "3x2x0 by 3x0x4 (zeros)", T(3, 2, 0), T(3, 0, 4)),
        )),
    ]


# ---- masked, scatter, topk and reflection/replication padding (issue 30) ----


def Idx(rows: tuple) -> In:
    """An int64 index tensor with fixed contents, nested rows giving its
    shape (scatter needs positions that no two elements share)."""
    shape, level = [], rows
    while isinstance(level, tuple):
        shape.append(len(level))
        level = level[0] if level else None
    return In(tuple(shape), "fixed", torch.int64, values=rows)


def _masked_ops() -> list[Op]:
    """masked_fill, masked_scatter and masked_select (a Bool mask broadcast
    against self), and nonzero (whose size, like masked_select's, depends on
    the data: ExecuTorch plans such an out at its largest, self's size, and
    cannot export them from empty inputs, so their edge case is an empty
    result from a non-empty input)."""
    B = torch.bool
    return [
        Op("aten::masked_fill.Scalar_out", "aten.masked_fill.Scalar",
           lambda x, m, value: A.masked_fill.Scalar(x, m, value), (
               case("odd", "3x11 with a 3x11 mask", T(3, 11), T(3, 11, dtype=B), value=scalar_for(True, 7, 2.5)),
               case("broadcast", "2x3x4 with a 3x1 mask", T(2, 3, 4), T(3, 1, dtype=B),
                    value=scalar_for(False, -2, -0.5)),
               case("empty", "empty 0x4 with a 4 mask", T(0, 4), T(4, dtype=B), value=scalar_for(True, 1, 1.0)),
           ), preserve=(A.masked_fill.Scalar,)),
        Op("aten::masked_scatter.out", "aten.masked_scatter.default",
           lambda x, m, src: A.masked_scatter.default(x, m, src), (
               case("odd", "3x11 with a 3x11 mask from 40 values", T(3, 11), T(3, 11, dtype=B), T(40)),
               case("broadcast", "2x3x4 with a 3x1 mask from 2x12 values", T(2, 3, 4), T(3, 1, dtype=B), T(2, 12)),
               case("empty", "empty 0x4 with a 4 mask from 3 values", T(0, 4), T(4, dtype=B), T(3)),
           ), preserve=(A.masked_scatter.default,)),
        Op("aten::masked_select.out", "aten.masked_select.default",
           lambda x, m: A.masked_select.default(x, m), (
               case("odd", "3x11 with a 3x11 mask", T(3, 11), T(3, 11, dtype=B)),
               case("broadcast", "2x3x4 with a 3x1 mask", T(2, 3, 4), T(3, 1, dtype=B)),
               case("none", "3x4 with an all-false mask (an empty result)", T(3, 4), T(3, 4, domain="zeros", dtype=B)),
           )),
        Op("aten::nonzero.out", "aten.nonzero.default", lambda x: A.nonzero.default(x), (
            case("odd", "3x11, about a quarter nonzero", T(3, 11, domain="sparse")),
            case("three_dims", "2x3x4, about a quarter nonzero", T(2, 3, 4, domain="sparse")),
            case("all_zero", "2x3 of zeros (no rows)", T(2, 3, domain="zeros")),
        )),
    ]


def _scatter_ops() -> list[Op]:
    """scatter (src and value), scatter_add and select_scatter."""
    value = scalar_for(True, 7, 2.5)
    return [
        Op("aten::scatter.src_out", "aten.scatter.src",
           lambda x, idx, src, dim: A.scatter.src(x, dim, idx, src), (
               case("dim0", "4x3 at 2x3 positions along dim 0, from a larger 3x4 src", T(4, 3),
                    Idx(((3, 0, 1), (1, 2, 0))), T(3, 4), dim=0),
               case("neg_dim", "2x5 at 2x3 positions along dim -1", T(2, 5), Idx(((4, 0, 2), (1, 3, 0))), T(2, 3),
                    dim=-1),
               case("empty_index", "3x4 with an empty index (out = self)", T(3, 4), Idx(()), T(3, 4), dim=0),
           )),
        Op("aten::scatter.value_out", "aten.scatter.value",
           lambda x, idx, dim, value: A.scatter.value(x, dim, idx, value), (
               case("dim0", "4x3 at 2x3 positions along dim 0", T(4, 3), Idx(((3, 0, 1), (1, 2, 0))), dim=0,
                    value=value),
               case("three_dims", "2x3x4 at 2x2x2 positions along dim 1", T(2, 3, 4),
                    Idx((((0, 2), (2, 1)), ((1, 0), (2, 2)))), dim=1, value=value),
               case("neg_dim", "2x5 at 2x3 positions along dim -1", T(2, 5), Idx(((4, 0, 2), (1, 3, 0))), dim=-1,
                    value=value),
           )),
        Op("aten::scatter_add.out", "aten.scatter_add.default",
           lambda x, idx, src, dim: A.scatter_add.default(x, dim, idx, src), (
               case("dim0", "4x3 plus 5x3 values at repeating rows", T(4, 3), Ix((5, 3), 4), T(5, 3), dim=0),
               case("dim1", "3x5 plus a larger 3x6 src at 2x4 positions", T(3, 5), Ix((2, 4), 5), T(3, 6), dim=1),
               case("zero_dim", "0-dim plus a 0-dim at a 0-dim index", T(), Ix((), 1), T(), dim=0),
           )),
        Op("aten::select_scatter.out", "aten.select_scatter.default",
           lambda x, src, dim, index: A.select_scatter.default(x, src, dim, index), (
               case("row", "3x4, row 1 from 4", T(3, 4), T(4), dim=0, index=1),
               case("neg_index", "2x3x4, [:, -1] from 2x4", T(2, 3, 4), T(2, 4), dim=1, index=-1),
               case("vector", "5, element 2 from a 0-dim", T(5), T(), dim=0, index=2),
           ), preserve=(A.select_scatter.default,)),
    ]


def _topk_pad_ops() -> list[Op]:
    """topk (distinct values, so that the order is unique; NaN and infinities
    in the floats), and reflection and replication padding in 1 to 3 dims."""
    pads = []
    for mode in ("reflection", "replication"):
        overloads = (getattr(A, f"{mode}_pad1d").default, getattr(A, f"{mode}_pad2d").default,
                     getattr(A, f"{mode}_pad3d").default)
        tables = (
            (case("rows", "2x7 padded [2, 3]", T(2, 7), padding=[2, 3]),
             case("batched", "2x3x5 padded [4, 1]", T(2, 3, 5), padding=[4, 1]),
             case("narrow", "1x1x2 padded [1, 0]", T(1, 1, 2), padding=[1, 0])),
            (case("planes", "2x4x5 padded [1, 2, 3, 0]", T(2, 4, 5), padding=[1, 2, 3, 0]),
             case("batched", "1x2x3x4 padded [3, 3, 2, 2]", T(1, 2, 3, 4), padding=[3, 3, 2, 2]),
             case("one_row", "1x1x5 padded [0, 0, 0, 0] (a copy)", T(1, 1, 5), padding=[0, 0, 0, 0])),
            (case("volume", "1x3x3x4 padded [1, 2, 0, 2, 2, 1]", T(1, 3, 3, 4), padding=[1, 2, 0, 2, 2, 1]),
             case("batched", "2x1x2x3x4 padded [3, 1, 1, 2, 1, 0]", T(2, 1, 2, 3, 4), padding=[3, 1, 1, 2, 1, 0])),
        )
        for n, (overload, cases) in enumerate(zip(overloads, tables), start=1):
            extra = (case("crop", "2x6 padded [-1, 2] (crops on the left)", T(2, 6), padding=[-1, 2],
                          only=(torch.float32,)),) if n == 1 else ()
            pads.append(Op(f"aten::{mode}_pad{n}d.out", f"aten.{mode}_pad{n}d.default",
                           lambda x, padding, overload=overload: overload(x, padding), cases + extra,
                           preserve=(overload,)))
    topk = Op("aten::topk.values", "aten.topk.default",
              lambda x, k, dim, largest: A.topk.default(x, k, dim, largest, True), (
                  case("largest", "3x11, the 4 largest along dim 1", T(3, 11, domain="distinct"), k=4, dim=1,
                       largest=True),
                  case("smallest", "4x5, the 2 smallest along dim 0", T(4, 5, domain="distinct"), k=2, dim=0,
                       largest=False),
                  case("all_neg_dim", "2x3x5, all 5 along dim -1", T(2, 3, 5, domain="distinct"), k=5, dim=-1,
                       largest=True),
                  case("nan_largest", "2x6 with NaN and infinities, the 3 largest (NaN first)",
                       T(2, 6, domain="special"), k=3, dim=1, largest=True, only=(torch.float32, torch.float64)),
                  case("nan_smallest", "2x6 with NaN and infinities, all 6 smallest (NaN last)",
                       T(2, 6, domain="special"), k=6, dim=1, largest=False, only=(torch.float32, torch.float64)),
              ))  # torch refuses Bool, as ExecuTorch's kernel does
    return [topk] + pads


# ---- the tail of the portable set (issue 30): random, device-copy and dim-order ops ----


def _random_contract(r: torch.Tensor, low: float, high: float, mean: float, var: float, slack: tuple) -> tuple:
    """Bool checks of a random tensor's contract, true for torch's generator
    and for etsb's: every value in [low, high) (None: unbounded), the mean
    and the variance within `slack` of the distribution's (computed in float32)."""
    x = r.to(torch.float32)
    checks = (A.abs.default(A.mean.dim(x, [0]) - mean) < slack[0],
              A.abs.default(A.var.correction(x, [0], correction=1) - var) < slack[1])
    if low is not None:
        checks += ((A.amin.default(x, [0]) >= low), (A.amax.default(x, [0]) < high))
    return checks


def _dropout_contract(x: torch.Tensor, p: float) -> tuple:
    """Bool checks of training dropout: every kept value is x / (1 - p) (to
    the dtype's rounding), every dropped one 0, about 1 - p of them kept."""
    out, mask = A.native_dropout.default(x, p, True)
    expected = x.to(torch.float32) * mask.to(torch.float32) * (1 / (1 - p))
    error = A.amax.default(A.abs.default(out.to(torch.float32) - expected), [0])
    kept = A.mean.dim(mask.to(torch.float32), [0])
    return error <= 0.01 * A.amax.default(A.abs.default(expected), [0]), A.abs.default(kept - (1 - p)) < 0.06


def _tail_random_ops() -> list[Op]:
    """rand, randn and native_dropout: exact cases where the values are not
    random (empty shapes, eval mode, p of 0 and 1) and contract cases whose
    outputs are Bool checks of the distribution (util/random_util.h), which
    torch's generator and etsb's both pass."""
    dtype = ByDtype(lambda d: d)
    uniform = dict(low=0.0, high=1.0, mean=0.5, var=1 / 12, slack=(0.04, 0.01))
    normal = dict(low=None, high=None, mean=0.0, var=1.0, slack=(0.12, 0.2))
    creation = []
    for name, law in (("rand", uniform), ("randn", normal)):
        overload = getattr(A, name).default
        creation.append(Op(f"aten::{name}.out", f"aten.{name}.default (and, for contract cases, checks of its values)",
                           lambda size, dtype, contract=False, law=law, overload=overload: (
                               _random_contract(overload(size, dtype=dtype), **law) if contract
                               else overload(size, dtype=dtype)), (
            case("empty", "[0, 4] (no values)", size=[0, 4], dtype=dtype),
            case("empty_3d", "[2, 0, 3] (no values)", size=[2, 0, 3], dtype=dtype),
            case("contract", "[2048]: range, mean and variance of the draws (Bool checks)", size=[2048],
                 dtype=dtype, contract=True),
        )))
    dropout = Op("aten::native_dropout.out", "aten.native_dropout.default (and, for contract cases, checks)",
                 lambda x, p, train, contract=False: (_dropout_contract(x, p) if contract
                                                      else A.native_dropout.default(x, p, train)), (
        case("eval", "3x11, p 0.5, train False (out = input, mask all true)", T(3, 11), p=0.5, train=False),
        case("p0", "3x11, p 0, train True (out = input)", T(3, 11), p=0.0, train=True),
        case("p1", "3x11, p 1, train True (zeros, mask all false)", T(3, 11), p=1.0, train=True),
        # In training ATen gives an empty input a mask of the input's dtype, not Bool: that case is not exported.
        case("empty", "0x4, p 0.5, train False", T(0, 4), p=0.5, train=False),
        case("contract", "2048, p 0.25, train True: kept values scaled by 1/(1-p), about 3/4 kept (Bool checks)",
             T(2048, domain="positive"), p=0.25, train=True, contract=True),
    ))
    return creation + [dropout]


def _tail_copy_ops() -> list[Op]:
    """The device-copy ops (a copy on a CPU-only runtime) and _empty_dim_order,
    which empty lowers to with the dim-order ops."""
    import executorch.exir.passes._device_copy_ops_registry  # noqa: F401 - defines torch.ops.et_copy

    dtype = ByDtype(lambda d: d)
    copies = [Op(f"et_copy::_{way}_copy.out", f"et_copy._{way}_copy.default (kept from decomposition)",
                 lambda x, overload=getattr(torch.ops.et_copy, f"_{way}_copy").default: overload(x),
                 unary_cases() + (case("nchw", "2x3x4x5", T(2, 3, 4, 5), only=(torch.float32,)),),
                 preserve=(getattr(torch.ops.et_copy, f"_{way}_copy").default,),
                 executorch_refuses="it needs a device tensor on one side")
              for way in ("h2d", "d2h")]
    empty = Op("dim_order_ops::_empty_dim_order.out", "aten.empty.memory_format (lowered with the dim-order ops)",
               lambda size, dtype, channels_last=False: A.empty.memory_format(
                   size, dtype=dtype, memory_format=torch.channels_last if channels_last else None), (
        case("rows", "[0, 4]", size=[0, 4], dtype=dtype),
        case("vector", "[0]", size=[0], dtype=dtype),
        case("channels_last", "[0, 3, 2, 2] in channels-last order", size=[0, 3, 2, 2], dtype=dtype,
             channels_last=True),
    ))
    return copies + [empty]


def _tail_numeric_ops() -> list[Op]:
    """Distances, training batch norm, grid sampling, antialiased resizing and
    the two backward operators of the portable set."""

    def no_stats(x, *weight_bias, eps):
        weight, bias = weight_bias if weight_bias else (None, None)
        return A._native_batch_norm_legit.no_stats(x, weight, bias, True, 0.1, eps)

    def pool_backward(x, grad, kernel, stride, padding, dilation, ceil):
        _, indices = A.max_pool2d_with_indices.default(x, kernel, stride, padding, dilation, ceil)
        return A.max_pool2d_with_indices_backward.default(grad, x, kernel, stride, padding, dilation, ceil, indices)

    def conv_backward(grad, x, w, **p):
        return A.convolution_backward.default(grad, x, w, [p["out_ch"]], p["stride"], p["padding"], p["dilation"],
                                              p["transposed"], p["output_padding"], p["groups"], [True, True, True])

    no_stats_op = Op("aten::_native_batch_norm_legit.no_stats_out", "aten._native_batch_norm_legit.no_stats "
                     "(training)", no_stats, (
                         case("nchw", "2x3x4x4, 3 channels", T(2, 3, 4, 4), T(3), T(3), eps=1e-5),
                         case("ncl", "2x4x5, 4 channels", T(2, 4, 5), T(4), T(4), eps=1e-5),
                         case("nc_no_affine", "6x3, no weight or bias", T(6, 3), eps=1e-3),
                     ))

    def conv_case(name, desc, grad, x, w, stride=(1,), padding=(0,), dilation=(1,), transposed=False,
                  output_padding=(0,), groups=1):
        out_ch = w[1] * groups if transposed else w[0]
        return case(name, desc, T(*grad), T(*x), T(*w), out_ch=out_ch, stride=list(stride), padding=list(padding),
                    dilation=list(dilation), transposed=transposed, output_padding=list(output_padding),
                    groups=groups)

    return _tail_distance_ops() + [no_stats_op] + _tail_spatial_ops(pool_backward, conv_backward, conv_case)


def _tail_distance_ops() -> list[Op]:
    """cdist and pdist, over the p values ATen special-cases."""
    inf = float("inf")
    return [
        Op("aten::_cdist_forward.out", "aten._cdist_forward.default",
           lambda x1, x2, p, mode: A._cdist_forward.default(x1, x2, p, mode), (
               case("p2", "3x4 to 5x4, p 2", T(3, 4), T(5, 4), p=2.0, mode=None),
               case("p1_batch_broadcast", "2x3x4 to 1x5x4 (batch broadcast), p 1", T(2, 3, 4), T(1, 5, 4), p=1.0,
                    mode=None),
               case("p0", "4x3 to 2x3, p 0 (differing elements)", T(4, 3), T(2, 3), p=0.0, mode=None),
               case("pinf", "3x5 to 4x5, p inf", T(3, 5), T(4, 5), p=inf, mode=None),
               case("p3_mode", "2x3 to 3x3, p 3, compute_mode 2", T(2, 3), T(3, 3), p=3.0, mode=2),
               case("empty", "0x4 to 3x4", T(0, 4), T(3, 4), p=2.0, mode=None),
           )),
        Op("aten::_pdist_forward.out", "aten._pdist_forward.default", lambda x, p: A._pdist_forward.default(x, p), (
            case("p2", "5x3, p 2", T(5, 3), p=2.0),
            case("p1", "4x6, p 1", T(4, 6), p=1.0),
            case("pinf", "4x3, p inf", T(4, 3), p=inf),
            case("p1_5", "3x4, p 1.5", T(3, 4), p=1.5),
            case("one_row", "1x3 (no pairs)", T(1, 3), p=2.0),
        )),
    ]


def _tail_spatial_ops(pool_backward: Callable, conv_backward: Callable, conv_case: Callable) -> list[Op]:
    """Grid sampling, antialiased resizing and the two backward operators."""
    return [
        Op("aten::grid_sampler_2d.out", "aten.grid_sampler_2d.default",
           lambda x, grid, mode, padding, align: A.grid_sampler_2d.default(x, grid, mode, padding, align), (
               case("bilinear_zeros", "1x2x4x5 at a 1x3x3 grid, bilinear, zeros", T(1, 2, 4, 5), T(1, 3, 3, 2),
                    mode=0, padding=0, align=False),
               case("nearest_border_align", "2x1x5x4 at 2x2x3, nearest, border, align_corners", T(2, 1, 5, 4),
                    T(2, 2, 3, 2), mode=1, padding=1, align=True),
               case("bicubic_reflection", "1x2x5x5 at 1x3x4, bicubic, reflection", T(1, 2, 5, 5), T(1, 3, 4, 2),
                    mode=2, padding=2, align=False),
               case("bilinear_reflection_align", "1x1x4x6 at 1x4x2, bilinear, reflection, align_corners",
                    T(1, 1, 4, 6), T(1, 4, 2, 2), mode=0, padding=2, align=True),
               case("bicubic_zeros_align", "1x1x4x4 at 1x2x3, bicubic, zeros, align_corners", T(1, 1, 4, 4),
                    T(1, 2, 3, 2), mode=2, padding=0, align=True),
           )),
        Op("aten::_upsample_bilinear2d_aa.out", "aten._upsample_bilinear2d_aa.default",
           lambda x, size, align, sh, sw: A._upsample_bilinear2d_aa.default(x, size, align, sh, sw), (
               case("down", "1x2x8x7 to 3x4", T(1, 2, 8, 7), size=[3, 4], align=False, sh=None, sw=None),
               case("up", "1x1x3x3 to 5x6", T(1, 1, 3, 3), size=[5, 6], align=False, sh=None, sw=None),
               case("align_mixed", "2x1x6x4 to 3x7, align_corners", T(2, 1, 6, 4), size=[3, 7], align=True,
                    sh=None, sw=None),
               case("scales", "1x2x8x8 to 4x3 with scales 0.5 and 0.4", T(1, 2, 8, 8), size=[4, 3], align=False,
                    sh=0.5, sw=0.4),
           )),
        Op("aten::convolution_backward.out", "aten.convolution_backward.default (all three gradients)",
           conv_backward, (
               conv_case("conv2d", "1x3x5x5 by 2x3x3x3", (1, 2, 3, 3), (1, 3, 5, 5), (2, 3, 3, 3)),
               conv_case("stride_pad", "2x2x6x6 by 4x2x3x3, stride 2, padding 1", (2, 4, 3, 3), (2, 2, 6, 6),
                         (4, 2, 3, 3), stride=(2, 2), padding=(1, 1)),
               conv_case("groups_dilation", "1x4x7x7 by 4x2x3x3, groups 2, dilation 2", (1, 4, 3, 3), (1, 4, 7, 7),
                         (4, 2, 3, 3), dilation=(2, 2), groups=2),
               conv_case("conv1d", "2x3x9 by 4x3x3, stride 2", (2, 4, 4), (2, 3, 9), (4, 3, 3), stride=(2,)),
               conv_case("transposed", "transposed 1x4x3x3 by 4x2x3x3, stride 2, padding 1, output_padding 1",
                         (1, 2, 6, 6), (1, 4, 3, 3), (4, 2, 3, 3), stride=(2, 2), padding=(1, 1), transposed=True,
                         output_padding=(1, 1)),
           ), executorch_refuses="its kernel takes only 2-D, non-transposed convolutions"),
        Op("aten::max_pool2d_with_indices_backward.grad_input",
           "aten.max_pool2d_with_indices_backward.default (indices from max_pool2d_with_indices)", pool_backward, (
               case("k2", "1x2x6x6, kernel 2", T(1, 2, 6, 6, domain="distinct"), T(1, 2, 3, 3), kernel=[2, 2],
                    stride=[], padding=[0, 0], dilation=[1, 1], ceil=False),
               case("overlap", "1x1x7x7, kernel 3, stride 2, padding 1 (windows overlap: gradients add up)",
                    T(1, 1, 7, 7, domain="distinct"), T(1, 1, 4, 4), kernel=[3, 3], stride=[2, 2], padding=[1, 1],
                    dilation=[1, 1], ceil=False),
               case("dilated_ceil", "2x1x7x5, kernel [2, 3], stride [1, 2], padding [0, 1], dilation [2, 1], ceil",
                    T(2, 1, 7, 5, domain="distinct"), T(2, 1, 5, 3), kernel=[2, 3], stride=[1, 2], padding=[0, 1],
                    dilation=[2, 1], ceil=True),
               case("three_dim", "2x5x5 (no batch dim), kernel 2", T(2, 5, 5, domain="distinct"), T(2, 2, 2),
                    kernel=[2, 2], stride=[], padding=[0, 0], dilation=[1, 1], ceil=False),
           )),
    ]


def _view_copy_ops() -> list[Op]:
    """The copy and view-copy family: plain copies and conversions, and
    strided views of one input (transpose, diagonal, narrow, split, unbind,
    unfold)."""
    def to_copy(x, target):
        return A._to_copy.default(x, dtype=target)

    def other_dtype(d):
        return torch.float64 if d == torch.float32 else torch.float32

    return [
        Op("aten::clone.out", "aten.clone.default (lowered without the dim-order ops)",
           lambda x: A.clone.default(x), unary_cases(), skip_dim_order=True),
        Op("aten::detach_copy.out", "aten.detach_copy.default", lambda x: A.detach_copy.default(x), unary_cases()),
        # lift_fresh_copy is not here: to_edge makes it a clone even when preserved, so no
        # program calls it (tests/test_op_corpus.py, NOT_EXPORTABLE).
        Op("aten::_to_copy.out", "aten._to_copy.default(dtype) (lowered without the dim-order ops)", to_copy, (
            case("to_float", "3x11 to float32 (float64 from float32)", T(3, 11), target=ByDtype(other_dtype)),
            case("to_int", "0-dim to int64 (int32 from int64)", T(),
                 target=ByDtype(lambda d: torch.int32 if d == torch.int64 else torch.int64)),
            case("to_bool", "empty 0x4 to bool (uint8 from bool)", T(0, 4),
                 target=ByDtype(lambda d: torch.uint8 if d == torch.bool else torch.bool)),
            mixed("f32_to_bf16", "float32 13 to bfloat16", T(13, dtype=torch.float32), target=torch.bfloat16),
            mixed("f64_to_i8", "float64 13 to int8 (truncation)", T(13, dtype=torch.float64), target=torch.int8),
        ), skip_dim_order=True),
        Op("aten::t_copy.out", "aten.t_copy.default (kept from decomposition)", lambda x: A.t_copy.default(x), (
            case("matrix", "3x11", T(3, 11)),
            case("vector", "7 (unchanged)", T(7)),
            case("empty", "empty 0x4", T(0, 4)),
        ), preserve=(A.t_copy.default,)),
        Op("aten::transpose_copy.int_out", "aten.transpose_copy.int (kept from decomposition)",
           lambda x, dim0, dim1: A.transpose_copy.int(x, dim0, dim1), (
               case("outer", "2x3x4, dims 0 and 2", T(2, 3, 4), dim0=0, dim1=2),
               case("negative", "3x11, dims -1 and -2", T(3, 11), dim0=-1, dim1=-2),
               case("same_dim", "2x1x3, dims 1 and 1 (a plain copy)", T(2, 1, 3), dim0=1, dim1=1),
           ), preserve=(A.transpose_copy.int,)),
        Op("aten::diagonal_copy.out", "aten.diagonal_copy.default",
           lambda x, offset, dim1, dim2: A.diagonal_copy.default(x, offset, dim1, dim2), (
               case("main", "4x5, the main diagonal", T(4, 5), offset=0, dim1=0, dim2=1),
               case("above_batched", "2x3x4, offset 1 of dims -1 and 1", T(2, 3, 4), offset=1, dim1=-1, dim2=1),
               case("past_the_end", "3x3, offset -5 (empty)", T(3, 3), offset=-5, dim1=0, dim2=1),
           )),
        Op("aten::narrow_copy.out", "aten.narrow_copy.default",
           lambda x, dim, start, length: A.narrow_copy.default(x, dim, start, length), (
               case("middle", "3x11, dim 1, 2 for 5", T(3, 11), dim=1, start=2, length=5),
               case("negative_start", "5x4, dim 0, -3 for 2", T(5, 4), dim=0, start=-3, length=2),
               # An empty narrow (length 0) crashes ExecuTorch's runtime at export: kernel_checks covers ours.
           )),
        Op("aten::split_copy.Tensor_out", "aten.split_copy.Tensor",
           lambda x, size, dim: A.split_copy.Tensor(x, size, dim), (
               case("uneven", "7x4 in 3s along dim 0 (3, 3, 1)", T(7, 4), size=3, dim=0),
               case("whole", "3x11 in 20s along dim -1 (one piece)", T(3, 11), size=20, dim=-1),
               case("even", "2x6 in 2s along dim 1", T(2, 6), size=2, dim=1),
           )),
        Op("aten::unbind_copy.int_out", "aten.unbind_copy.int", lambda x, dim: A.unbind_copy.int(x, dim), (
            case("rows", "3x4 along dim 0", T(3, 4), dim=0),
            case("last", "2x3x1 along dim -1 (one slice)", T(2, 3, 1), dim=-1),
            case("columns", "2x3 along dim 1", T(2, 3), dim=1),
        )),
        Op("aten::unfold_copy.out", "aten.unfold_copy.default",
           lambda x, dim, size, step: A.unfold_copy.default(x, dim, size, step), (
               case("overlap", "3x11, dim 1, windows of 3 every 2", T(3, 11), dim=1, size=3, step=2),
               case("whole", "7, dim 0, one window of 7", T(7), dim=0, size=7, step=1),
               case("gaps", "2x5x3, dim -2, windows of 2 every 3", T(2, 5, 3), dim=-2, size=2, step=3),
           )),
    ]


def _placement_ops() -> list[Op]:
    """Copies that place their input's elements anew: stack, repeat,
    repeat_interleave, roll, tril, pixel_(un)shuffle, and index_put_."""
    counts = In((4,), "fixed", values=(2, 0, 3, 1))
    return [
        Op("aten::view_as_real_copy.out", "aten.view_as_real_copy.default (complex inputs only; no ComplexHalf: "
           "numpy, so the npz and the runner, has no complex32)", lambda x: A.view_as_real_copy.default(x),
           unary_cases(), dtypes=ALL + COMPLEX),
        Op("aten::_conj_physical.out", "aten._conj_physical.default (complex inputs only; no ComplexHalf: "
           "numpy, so the npz and the runner, has no complex32)", lambda x: A._conj_physical.default(x),
           unary_cases(), dtypes=ALL + COMPLEX),
        Op("aten::stack.out", "aten.stack.default (kept from decomposition)",
           lambda *xs, dim: A.stack.default(list(xs), dim), (
               case("three_dim0", "three 2x3 along dim 0", T(2, 3), T(2, 3), T(2, 3), dim=0),
               case("neg_dim", "two 3 along dim -1", T(3), T(3), dim=-1),
               case("empty", "two 0x2 along dim 1", T(0, 2), T(0, 2), dim=1),
               mixed("i32_f32", "int32 and float32 2x2 (float32 result)", T(2, 2, dtype=torch.int32),
                     T(2, 2, dtype=torch.float32), dim=0),
           ), preserve=(A.stack.default,)),
        Op("aten::repeat.out", "aten.repeat.default", lambda x, repeats: A.repeat.default(x, repeats), (
            case("tiles", "2x3 by [2, 1]", T(2, 3), repeats=[2, 1]),
            case("new_dims", "3 by [2, 2, 1]", T(3), repeats=[2, 2, 1]),
            case("zero_dim", "0-dim by [3]", T(), repeats=[3]),
            case("empty", "2x1x3 by [1, 0, 2] (empty)", T(2, 1, 3), repeats=[1, 0, 2]),
        )),
        Op("aten::repeat_interleave.Tensor_out", "aten.repeat_interleave.Tensor(output_size=)",
           lambda r, output_size: A.repeat_interleave.Tensor(r, output_size=output_size), (
               case("counts", "[2, 0, 3, 1] (6 elements)", counts, output_size=6),
               case("single", "[5]", In((1,), "fixed", values=(5,)), output_size=5),
               case("zeros", "[0, 0] (empty)", In((2,), "fixed", values=(0, 0)), output_size=0),
           )),
        Op("aten::roll.out", "aten.roll.default (kept from decomposition)",
           lambda x, shifts, dims: A.roll.default(x, shifts, dims), (
               case("one_dim", "3x11 by 2 along dim 1", T(3, 11), shifts=[2], dims=[1]),
               case("two_dims", "2x3x4 by [1, -2] along [0, 2]", T(2, 3, 4), shifts=[1, -2], dims=[0, 2]),
               # No dims (a flat roll) is ATen's but not ExecuTorch's: its runtime refuses it, so such
               # cases cannot be checked at export; tests/kernels/kernel_checks.cpp covers ours.
               case("same_dim", "7 by [-3, 12] along [0, 0]", T(7), shifts=[-3, 12], dims=[0, 0]),
           ), preserve=(A.roll.default,)),
        Op("aten::tril.out", "aten.tril.default (kept from decomposition)",
           lambda x, diagonal: A.tril.default(x, diagonal), (
               case("main", "4x5, diagonal 0", T(4, 5), diagonal=0),
               case("below_batched", "2x3x4, diagonal -1", T(2, 3, 4), diagonal=-1),
               case("above", "3x3, diagonal 2", T(3, 3), diagonal=2),
               case("empty", "empty 0x4", T(0, 4), diagonal=0),
           ), preserve=(A.tril.default,)),
        Op("aten::pixel_shuffle.out", "aten.pixel_shuffle.default (kept from decomposition)",
           lambda x, r: A.pixel_shuffle.default(x, r), (
               case("by_two", "1x8x2x3 by 2", T(1, 8, 2, 3), r=2),
               case("by_three", "2x9x1x2 by 3", T(2, 9, 1, 2), r=3),
               case("three_dims", "4x1x1 by 2", T(4, 1, 1), r=2),
           ), preserve=(A.pixel_shuffle.default,)),
        Op("aten::pixel_unshuffle.out", "aten.pixel_unshuffle.default (kept from decomposition)",
           lambda x, r: A.pixel_unshuffle.default(x, r), (
               case("by_two", "1x2x4x6 by 2", T(1, 2, 4, 6), r=2),
               case("by_three", "2x1x3x3 by 3", T(2, 1, 3, 3), r=3),
               case("three_dims", "1x2x2 by 2", T(1, 2, 2), r=2),
           ), preserve=(A.pixel_unshuffle.default,)),
        Op("aten::index_put_", "Tensor.index_put_ on an input (reinplaced, written back)",
           lambda x, v, *idx, layout, accumulate: x.index_put_(
               [None if s is None else idx[s] for s in layout], v, accumulate), (
               case("rows", "5x4, rows [0, 2, 4] = 3x4", T(5, 4), T(3, 4), Fixed((0, 2, 4), torch.int64),
                    layout=(0,), accumulate=False),
               case("accumulate", "4x5 at [idx(6)] += 5 (broadcast, repeated rows add up)", T(4, 5), T(5),
                    Ix((6,), 4), layout=(0,), accumulate=True),
           ), mutated_inputs=1, reinplace=True),
    ]


def build_ops() -> list[Op]:
    """The whole table, sorted by operator name."""
    ops = (_shape_ops() + _creation_ops() + _indexing_ops() + _binary_ops() + _scalar_ops()
           + _scalar_overload_ops() + _selection_ops() + _any_ops() + _unary_ops() + _activation_ops()
           + _reduction_ops() + _reduction_overload_ops() + _norm_ops() + _spatial_ops() + _matmul_ops()
           + _masked_ops() + _scatter_ops() + _topk_pad_ops()
           + _tail_random_ops() + _tail_copy_ops() + _tail_numeric_ops()
           + _view_copy_ops() + _placement_ops())
    names = [op.name for op in ops]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"operators listed twice: {sorted(duplicates)}"
    return sorted(ops, key=lambda op: op.name)


# ----------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------


def _randint(low: int, high: int, shape: tuple, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).double()


def _domain_values(domain: str, kind: str, shape: tuple, gen: torch.Generator) -> torch.Tensor:
    """float64 values of a domain, for a dtype kind (bool, unsigned, signed,
    float); cast to the dtype afterwards."""
    floating, signed = kind == "float", kind != "unsigned"
    if kind == "bool":
        if domain in ("positive", "nonzero", "variance"):
            return torch.ones(shape, dtype=torch.float64)
        if domain == "zeros":
            return torch.zeros(shape, dtype=torch.float64)
        return _randint(0, 2, shape, gen)
    if domain == "any":
        return torch.randn(shape, generator=gen, dtype=torch.float64) * 2 if floating else \
            _randint(-9 if signed else 0, 10, shape, gen)
    if domain in ("positive", "variance"):
        if floating:
            low = 0.5 if domain == "variance" else 0.1
            return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 + low
        return _randint(1, 10, shape, gen)
    if domain == "nonzero":
        sign = torch.where(_randint(0, 2, shape, gen) > 0, 1.0, -1.0) if signed else 1.0
        magnitude = torch.rand(shape, generator=gen, dtype=torch.float64) * 2 + 0.25 if floating else \
            _randint(1, 10, shape, gen)
        return sign * magnitude
    if domain == "grid":
        return _randint(-3 if signed else 0, 4 if signed else 7, shape, gen)
    if domain == "base":
        if floating:
            return torch.rand(shape, generator=gen, dtype=torch.float64) * 2 + 0.2
        return _randint(-3 if signed else 0, 4, shape, gen)
    if domain == "exponent":
        return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 - 2 if floating else \
            _randint(0, 4, shape, gen)
    if domain == "sparse":
        keep = torch.rand(shape, generator=gen, dtype=torch.float64) < 0.25
        return _domain_values("nonzero", kind, shape, gen) * keep
    if domain == "zeros":
        return torch.zeros(shape, dtype=torch.float64)
    if domain in ("unit", "open_unit"):
        if floating:
            low, span = (0.1, 0.8) if domain == "open_unit" else (-0.9, 1.8)
            return torch.rand(shape, generator=gen, dtype=torch.float64) * span + low
        return _randint(-1 if signed else 0, 2, shape, gen)
    if domain == "at_least_one":
        return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 + 1 if floating else \
            _randint(1, 10, shape, gen)
    if domain == "special":
        values = _domain_values("any", kind, shape, gen)
        if floating and values.numel() >= 4:
            flat = values.reshape(-1)
            flat[0], flat[1], flat[2] = math.inf, -math.inf, math.nan
        return values
    if domain == "distinct":
        count = math.prod(shape)
        values = torch.randperm(count, generator=gen).double()
        return (values - (count // 2 if signed else 0)).reshape(shape)
    raise ValueError(f"unknown value domain '{domain}'")


def make_input(spec: In, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """One input tensor for a case."""
    if spec.domain == "index":
        return torch.randint(0, spec.high, spec.shape, generator=gen, dtype=torch.int64)
    if spec.domain == "fixed":
        return torch.tensor(spec.values, dtype=dtype)
    if dtype.is_complex:  # real and imaginary parts each drawn from the domain
        real = _domain_values(spec.domain, "float", spec.shape, gen)
        return torch.complex(real, _domain_values(spec.domain, "float", spec.shape, gen)).to(dtype)
    return _domain_values(spec.domain, _kind(dtype), spec.shape, gen).to(dtype)


# ----------------------------------------------------------------------------
# Methods: the cases made concrete
# ----------------------------------------------------------------------------


@dataclass
class Method:
    """One method of an operator's program: a case in one dtype (or a mixed
    case), with its inputs and eager's outputs."""

    name: str
    case: Case
    dtype: torch.dtype | None
    params: dict
    inputs: tuple[torch.Tensor, ...]
    outputs: tuple[torch.Tensor, ...] = ()


class OpModule(torch.nn.Module):
    """A module whose forward calls the operator with fixed parameters."""

    def __init__(self, fn: Callable, params: dict) -> None:
        super().__init__()
        self.fn, self.params = fn, params

    def forward(self, *inputs: torch.Tensor):
        return self.fn(*inputs, **self.params)


def as_tuple(result) -> tuple[torch.Tensor, ...]:
    """An operator's result as a flat tuple of tensors."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def case_seed(op: Op, method: str) -> int:
    """A stable seed per operator and method (``hash`` is salted per process)."""
    return zlib.crc32(f"{op.name}/{method}".encode())


def make_method(op: Op, case_: Case, dtype: torch.dtype | None) -> Method:
    """The inputs and parameters of one case in one dtype."""
    name = f"mix_{case_.name}" if case_.mixed else f"{BY_TORCH[dtype].short}_{case_.name}"
    gen = torch.Generator().manual_seed(case_seed(op, name))
    params = {k: v.pick(dtype) if isinstance(v, ByDtype) else v for k, v in case_.params.items()}
    inputs = tuple(make_input(spec, spec.dtype or dtype, gen) for spec in case_.inputs)
    return Method(name, case_, dtype, params, inputs)


def plan_methods(op: Op) -> list[Method]:
    """Every method of an operator: each case in each of its dtypes."""
    methods = []
    for case_ in op.cases:
        if case_.mixed:
            methods.append(make_method(op, case_, None))
            continue
        for dtype in op.dtypes:
            if case_.dtypes is None or dtype in case_.dtypes:
                methods.append(make_method(op, case_, dtype))
    return methods


def one_line(error: BaseException, limit: int = 200) -> str:
    """An exception as one short line."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    text = f"{type(error).__name__}: {lines[0] if lines else ''}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def run_eager(op: Op, method: Method) -> tuple[torch.Tensor, ...]:
    """torch eager's outputs for a method (raises what torch raises)."""
    inputs = tuple(t.clone() for t in method.inputs)
    with torch.no_grad():
        result = OpModule(op.fn, method.params)(*inputs)
    # A program returns the inputs it writes in place first (their write-back), then the results.
    return tuple(t.detach().clone() for t in (*inputs[:op.mutated_inputs], *as_tuple(result)))


def eager_outputs(op: Op, methods: list[Method]) -> tuple[list[Method], dict[str, str]]:
    """Run eager on every method; return those it accepts, and what it
    refused: a ScalarType name when every case of that dtype was refused,
    else the method's name."""
    accepted, refused = [], {}
    for method in methods:
        try:
            method.outputs = run_eager(op, method)
            accepted.append(method)
        except Exception as error:  # noqa: BLE001 - any refusal by torch
            refused[method.name] = one_line(error)
    unsupported: dict[str, str] = {}
    for dtype in op.dtypes:
        mine = [m for m in methods if m.dtype == dtype]
        if mine and all(m.name in refused for m in mine):
            unsupported[scalar_type_name(dtype)] = refused[mine[0].name]
            for m in mine:
                del refused[m.name]
    unsupported.update(refused)
    return accepted, unsupported


# ----------------------------------------------------------------------------
# Lowering and checking with ExecuTorch
# ----------------------------------------------------------------------------


class PreservedOps(list):
    """``EdgeCompileConfig.preserve_ops`` that survives ExecuTorch 1.5.1's
    verifiers.  Each one does ``ops = preserve_ops or []`` then
    ``ops.extend(config.preserve_ops)``, and ``to_edge`` passes it the
    config's own list: every verifier doubles the list in place, so a program
    of some 30 methods grows it past memory (measured: 20 GB and climbing).
    Extending the list with itself is a no-op here."""

    def extend(self, other) -> None:
        if other is not self:
            super().extend(other)


# The method that only the checking copy of a program has (see `lower`).
POISON_METHOD = "poison_arena"
# Its output: NaN float32s, more bytes than any case's planned memory.
POISON_ELEMENTS = 1 << 14


class PoisonArena(torch.nn.Module):
    """A method that fills the start of the shared memory arena with NaN."""

    def forward(self) -> torch.Tensor:
        return torch.full((POISON_ELEMENTS,), float("nan"))


@dataclass
class Lowered:
    """An operator's program, and a copy for checking it at run time that
    has one more method, `POISON_METHOD`."""

    program: Any
    checked: bytes


def lower(op: Op, methods: list[Method]) -> Lowered:
    """torch.export every method, then one multi-method ExecuTorch program.

    The methods of a program share their memory arenas at run time, and a
    fresh arena is zeros, so a kernel that leaves output elements unwritten
    can pass by luck.  The checking copy also holds `PoisonArena`, run before
    every method: memory is planned method by method, so the other methods
    are the same in both copies."""
    from executorch.exir import (
        EdgeCompileConfig,
        EdgeProgramManager,
        ExecutorchBackendConfig,
        to_edge,
    )

    exported = {m.name: torch.export.export(OpModule(op.fn, m.params), m.inputs) for m in methods}
    exported[POISON_METHOD] = torch.export.export(PoisonArena(), ())
    config = EdgeCompileConfig(_check_ir_validity=False, preserve_ops=PreservedOps(op.preserve),
                               _skip_dim_order=op.skip_dim_order)
    backend = ExecutorchBackendConfig(remove_view_copy=False, run_reinplace_pass=op.reinplace)
    edge = to_edge(exported, compile_config=config)
    # to_executorch transforms the edge programs in place: the copy goes first.
    checked = copy.deepcopy(edge).to_executorch(backend).buffer
    cases = EdgeProgramManager({m.name: edge.exported_program(m.name) for m in methods}, compile_config=config)
    return Lowered(cases.to_executorch(backend), checked)


def lower_isolating(op: Op, methods: list[Method]) -> tuple[Lowered | None, list[Method], dict[str, str]]:
    """Lower all methods; when that fails, lower each alone to find the ones
    ExecuTorch cannot export, and lower the rest."""
    try:
        return lower(op, methods), methods, {}
    except Exception as error:  # noqa: BLE001 - isolated below
        together = one_line(error)
    failed = {}
    for method in methods:
        try:
            lower(op, [method])
        except Exception as error:  # noqa: BLE001 - an ExecuTorch export limitation
            failed[method.name] = "export: " + one_line(error)
    if not failed:
        raise SystemExit(f"{op.name}: the methods lower one by one but not together: {together}")
    kept = [m for m in methods if m.name not in failed]
    return (lower(op, kept) if kept else None), kept, failed


def compare(expected: torch.Tensor, got: torch.Tensor) -> tuple[str | None, float]:
    """Why ``got`` does not match ``expected`` within the tolerance (None if
    it does), and the largest absolute difference between finite values."""
    if expected.numel() == 0:
        return None, 0.0
    rtol, atol = tolerance(expected.dtype)
    if expected.is_complex():  # real and imaginary parts compared as floats, side by side
        expected, got = torch.view_as_real(expected), torch.view_as_real(got)
    e, g = expected.double(), got.double()
    if expected.is_floating_point():
        close = torch.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = expected == got  # exact, also beyond float64's 53 bits
    finite = torch.isfinite(e) & torch.isfinite(g)
    diff = float((e - g).abs()[finite].max()) if finite.any() else 0.0
    if bool(close.all()):
        return None, diff
    return (f"runtime differs from eager in {int((~close).sum())} of {e.numel()} elements, "
            f"max |diff| {diff:.3g} (rtol {rtol}, atol {atol})"), diff


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for an output dtype: exact for integers and Bool."""
    return TOLERANCES.get(dtype, (0.0, 0.0))


@dataclass
class RuntimeCheck:
    """What ExecuTorch's runtime made of an operator's methods."""

    diffs: dict[str, float] = field(default_factory=dict)       # method -> max |diff| vs eager
    mismatches: dict[str, str] = field(default_factory=dict)    # ran, but to other values
    failures: dict[str, str] = field(default_factory=dict)      # could not load or run, or wrong outputs
    unrun: dict[str, str] = field(default_factory=dict)         # the runtime lacks the operator: kept, unchecked


# ExecuTorch's error codes (runtime/core/error.h) seen when a method fails.
RUNTIME_ERRORS = {"0x12": "InvalidArgument", "0x14": "OperatorMissing", "0x10": "NotSupported",
                  "0x11": "NotImplemented", "0x22": "MemoryAllocationFailed"}


@contextlib.contextmanager
def native_stderr(lines: list[str]):
    """Collect what native code writes to file descriptor 2 (ExecuTorch's
    log) into ``lines`` instead of the terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(sink.read().decode(errors="replace").splitlines())


def runtime_failure(error: BaseException, log: list[str]) -> str:
    """Why ExecuTorch failed a method: its error code by name and the first
    check that failed (or the missing operator), from its log."""
    text = one_line(error)
    code = re.search(r"0x:?([0-9a-f]+)", text)
    name = RUNTIME_ERRORS.get(f"0x{code.group(1)}", "") if code else ""
    detail = next((line.split("] ", 1)[-1] for line in log
                   if "Check failed" in line or "Missing operator" in line), "")
    return "runtime: " + ", ".join(part for part in (text, name, detail) if part)


def _outputs_on_executorch(program, method: Method) -> tuple[torch.Tensor, ...]:
    return tuple(t.clone() for t in as_tuple(program.load_method(method.name).execute(list(method.inputs))))


def run_on_executorch(buffer: bytes, methods: list[Method]) -> RuntimeCheck:
    """Run every method of the checking program (`lower`) with ExecuTorch's
    pybindings runtime, each after `POISON_METHOD`, and compare with eager.
    A method that cannot load or run, or whose outputs differ from eager's in
    number, dtype or shape, is a failure; one that runs to values outside the
    tolerance is a mismatch (kept: eager is the reference)."""
    from executorch.runtime import Runtime

    check = RuntimeCheck()
    with native_stderr([]):
        program = Runtime.get().load_program(buffer)
        poison = program.load_method(POISON_METHOD)
    for method in methods:
        poison.execute([])
        _check_method(program, method, check)
    return check


def _check_method(program, method: Method, check: RuntimeCheck) -> None:
    """Run one method and record the outcome in ``check``."""
    log: list[str] = []
    try:
        with native_stderr(log):
            got = _outputs_on_executorch(program, method)
    except Exception as error:  # noqa: BLE001 - an ExecuTorch runtime limitation
        check.failures[method.name] = runtime_failure(error, log)
        return
    layout = [(t.dtype, tuple(t.shape)) for t in got]
    expected = [(t.dtype, tuple(t.shape)) for t in method.outputs]
    if layout != expected:
        check.failures[method.name] = f"runtime outputs {layout}, eager {expected}"
        return
    check.diffs[method.name] = 0.0
    for i, (want, have) in enumerate(zip(method.outputs, got)):
        reason, diff = compare(want, have)
        check.diffs[method.name] = max(check.diffs[method.name], diff)
        if reason and method.name not in check.mismatches:
            check.mismatches[method.name] = f"output {i}: {reason}"


def build_program(op: Op, methods: list[Method]):
    """Lower and check; drop (and say why) what ExecuTorch cannot export or
    run.  Returns the program (None if nothing is left), the methods kept,
    the runtime check of those, and the skipped ones."""
    lowered, kept, skipped = lower_isolating(op, methods)
    if lowered is None:
        return None, [], RuntimeCheck(), skipped
    check = run_on_executorch(lowered.checked, kept)
    # ExecuTorch's own runtime may lack a kernel for the operator: such cases
    # stay (eager is the reference), recorded as not run by it.
    unrun = {name: why for name, why in check.failures.items()
             if f"Missing operator: [0] {op.name}" in why or op.executorch_refuses}
    dropped = {name: why for name, why in check.failures.items() if name not in unrun}
    if dropped:
        skipped.update(dropped)
        kept = [m for m in kept if m.name not in dropped]
        if not kept:
            return None, [], RuntimeCheck(), skipped
        lowered = lower(op, kept)
    if dropped or unrun:
        check = run_on_executorch(lowered.checked, [m for m in kept if m.name not in unrun])
        if check.failures:
            raise SystemExit(f"{op.name}: methods failed only after re-lowering: {check.failures}")
    check.unrun = unrun
    return lowered.program, kept, check, skipped


class TargetMissing(Exception):
    """Methods of an operator's program that do not call the operator."""


def method_plans(op: Op, program, methods: list[Method]) -> dict[str, dict]:
    """Operators and kernel keys of each method, read from the emitted plan;
    raises TargetMissing when a method does not call the target operator."""
    plans = {plan.name: plan for plan in program.executorch_program.execution_plan}
    described = {m.name: describe_plan(plans[m.name]) for m in methods}
    missing = {name: d["operators"] for name, d in described.items() if op.name not in d["operators"]}
    if missing:
        lines = "\n".join(f"  {name}: calls {ops or 'no kernel'}" for name, ops in sorted(missing.items()))
        raise TargetMissing(f"{op.name}: {len(missing)} method(s) do not call the operator, so they "
                            f"test nothing:\n{lines}")
    return described


# ----------------------------------------------------------------------------
# Files and the manifest
# ----------------------------------------------------------------------------


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A tensor as numpy, bfloat16 as its uint16 bit patterns."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def npy_bytes(array: np.ndarray) -> bytes:
    """The ``.npy`` encoding of an array."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A deflated ``.npz`` with fixed timestamps (reproducible bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, npy_bytes(array))
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def tensor_entry(tensor: torch.Tensor, with_tolerance: bool) -> dict:
    """Manifest description of one input or output tensor."""
    entry = {
        "dtype": "bfloat16" if tensor.dtype == torch.bfloat16 else str(to_numpy(tensor).dtype),
        "scalar_type": scalar_type_name(tensor.dtype),
        "shape": list(tensor.shape),
    }
    if with_tolerance:
        entry["rtol"], entry["atol"] = tolerance(tensor.dtype)
    return entry


def jsonable(value: Any) -> Any:
    """A case parameter as JSON (dtypes by ScalarType name)."""
    if isinstance(value, torch.dtype):
        return scalar_type_name(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def method_entry(method: Method, described: dict, check: RuntimeCheck) -> dict:
    """Manifest description of one method."""
    outputs = [tensor_entry(t, True) for t in method.outputs]
    loosest = max(((o["rtol"], o["atol"]) for o in outputs), default=(0.0, 0.0))
    return {
        "dtype": scalar_type_name(method.dtype or method.outputs[0].dtype),
        "case": method.case.name,
        "description": method.case.description,
        "params": {k: jsonable(v) for k, v in sorted(method.params.items())},
        "inputs": [tensor_entry(t, False) for t in method.inputs],
        "outputs": outputs,
        "tolerance": "exact" if loosest == (0.0, 0.0) else {"rtol": loosest[0], "atol": loosest[1]},
        "operators": described["operators"],
        "kernel_keys": described["kernel_keys"],
        "max_abs_diff_runtime": (float(f"{check.diffs[method.name]:.3g}") if method.name in check.diffs
                                 else None),
        "executorch_matches": None if method.name in check.unrun else method.name not in check.mismatches,
    }


def export_op(op: Op, out_dir: Path) -> dict:
    """Export, check and write one operator; return its manifest entry."""
    methods, unsupported = eager_outputs(op, plan_methods(op))
    program, kept, check, skipped = build_program(op, methods)
    entry = {"dir": op.dir, "calls": op.calls, "unsupported_by_torch": unsupported,
             "skipped": dict(sorted(skipped.items())), "executorch_mismatch": check.mismatches,
             "not_run_by_executorch": dict(sorted(check.unrun.items())),
             "methods": {}, "pte": None, "npz": None}
    if program is None:
        return entry
    described = method_plans(op, program, kept)
    arrays = {}
    for method in kept:
        for kind, tensors in (("input", method.inputs), ("output", method.outputs)):
            for i, tensor in enumerate(tensors):
                arrays[f"{method.name}.{kind}_{i}"] = to_numpy(tensor)
        entry["methods"][method.name] = method_entry(method, described[method.name], check)
    buffer, npz = program.buffer, npz_bytes(arrays)
    write_bytes_atomic(out_dir / op.dir / f"{op.dir}.pte", buffer)
    write_bytes_atomic(out_dir / op.dir / "cases.npz", npz)
    entry.update({
        "pte": f"{op.dir}/{op.dir}.pte", "pte_size": len(buffer), "pte_sha256": sha256(buffer),
        "npz": f"{op.dir}/cases.npz", "npz_size": len(npz), "npz_sha256": sha256(npz),
    })
    return entry


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    from executorch.version import __version__ as executorch_version

    return {"torch": torch.__version__.split("+")[0], "executorch": executorch_version.split("+")[0]}


def _quiet_known_warnings() -> None:
    """Silence ExecuTorch's use of a deprecated pytree API, which would bury
    the per-operator summary."""
    warnings.filterwarnings("ignore", message=r".*isinstance\(treespec, LeafSpec\)", category=FutureWarning)


def select_ops(ops: list[Op], wanted: list[str], parser: argparse.ArgumentParser) -> list[Op]:
    """The operators named (by ExecuTorch name or directory), or all."""
    if not wanted:
        return ops
    known = {op.name: op for op in ops} | {op.dir: op for op in ops}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        parser.error(f"unknown operator(s): {', '.join(unknown)} (see --list)")
    return list({known[name].name: known[name] for name in wanted}.values())


def directory_size(path: Path) -> int:
    """Bytes of all files under ``path``."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def summary_line(name: str, entry: dict, seconds: float) -> str:
    """One progress line per operator."""
    refused = ",".join(k for k in entry["unsupported_by_torch"] if k in DTYPE_NAMES) or "-"
    return (f"{name:48s} {len(entry['methods']):3d} methods  {len(entry['skipped']):2d} skipped  "
            f"{len(entry['executorch_mismatch']):2d} mismatched  "
            f"torch refuses: {refused}  {seconds:5.1f} s")


def manifest_text(manifest: dict) -> str:
    """The manifest as indented JSON with each method on one line (small,
    and a changed case is a one-line diff)."""
    methods: list[dict] = []
    shallow = {**manifest, "operators": {}}
    for name, entry in manifest["operators"].items():
        tokens = {}
        for method, description in entry["methods"].items():
            tokens[method] = f"@@method {len(methods)}@@"
            methods.append(description)
        shallow["operators"][name] = {**entry, "methods": tokens}
    text = json.dumps(shallow, indent=1, sort_keys=True)
    return re.sub(r'"@@method (\d+)@@"', lambda m: json.dumps(methods[int(m.group(1))], sort_keys=True),
                  text) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Export the operators named on the command line (default: all)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("ops", nargs="*", help="operators to export, e.g. aten::cat.out or aten_cat_out "
                        "(default: all)")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="output directory")
    parser.add_argument("--list", action="store_true", help="list the operators and their cases, then exit")
    args = parser.parse_args(argv)

    ops = build_ops()
    if args.list:
        for op in ops:
            print(f"{op.name:48s} {op.dir:48s} {' '.join(c.name for c in op.cases)}")
        return 0
    selected = select_ops(ops, args.ops, parser)
    torch.set_num_threads(1)
    _quiet_known_warnings()

    manifest_path = args.out / "manifest.json"
    manifest = {"operators": {}}
    if args.ops and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
    manifest.update({"version": MANIFEST_VERSION, "generator": _versions(), "tolerance_rule": TOLERANCE_RULE,
                     "tolerances": {scalar_type_name(d): {"rtol": r, "atol": a}
                                    for d, (r, a) in TOLERANCES.items()}})
    problems = []
    for op in selected:
        start = time.monotonic()
        try:
            entry = export_op(op, args.out)
        except TargetMissing as error:
            problems.append(str(error))
            print(f"{op.name:48s} FAILED: a method does not call it", file=sys.stderr, flush=True)
            continue
        manifest["operators"][op.name] = entry
        print(summary_line(op.name, entry, time.monotonic() - start), file=sys.stderr, flush=True)
    manifest["operators"] = dict(sorted(manifest["operators"].items()))
    write_bytes_atomic(manifest_path, manifest_text(manifest).encode())

    entries = manifest["operators"].values()
    total = directory_size(args.out)
    print(f"{len(manifest['operators'])} operators, {sum(len(e['methods']) for e in entries)} methods, "
          f"{sum(len(e['skipped']) for e in entries)} skipped; {args.out} holds {total / 2**20:.2f} MB",
          file=sys.stderr)
    if total > SIZE_BUDGET:
        problems.append(f"{args.out} holds {total} bytes, over the {SIZE_BUDGET}-byte budget")
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
