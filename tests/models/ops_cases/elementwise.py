"""Elementwise operators: unary (plain and with parameters), binary over two
tensors, a tensor with a Python scalar, and selection (where, clamp)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from .shared import binary_cases, promotion_cases, scalar_cases, stretched_cases, unary_cases
from .vocabulary import A, ByDtype, In, Op, T, case, dtype_kind, mixed, per_category, scalar_for


def ops() -> list[Op]:
    """The elementwise operators of the corpus."""
    return (_unary_ops() + _activation_ops() + _binary_ops() + _scalar_ops() + _bitwise_scalar_ops()
            + _rounding_scalar_ops() + _selection_ops())



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
               _unary_call(getattr(A, name).default), unary_cases(domain) + _EXTRA_UNARY_CASES.get(name, ()))
            for name, domain in table]


# relu's Float loop (fast_math.h's clamp_f32, vectorised per instruction set) and sigmoid's
# (sigmoid_f32.h, an AVX-512 build by hand): vector bodies and tails with NaN and infinities (the first
# elements), ties at zero; sigmoid's reduction and underflow at the ends of the floats
_SIGMOID_EXTREMES = (-3e38, -200.0, -110.0, -104.0, -103.0, -100.0, -88.7, -87.5, -87.0, -20.0, -1e-30, 0.0,
                     1e-30, 0.5, 20.0, 87.0, 88.7, 100.0, 3e38)
_EXTRA_UNARY_CASES = {
    "sigmoid": (case("special_wide", "5x37 (185 elements: vector bodies and tails), NaN and infinities",
                     T(5, 37, domain="special"), only=(torch.float32,)),
                case("extremes", "19 values from -3e38 to 3e38 (e^-|x| below the normal floats, 0, huge)",
                     In((len(_SIGMOID_EXTREMES),), "fixed", values=_SIGMOID_EXTREMES), only=(torch.float32,))),
    "relu": (case("special_wide", "5x37 (185 elements: vector bodies and tails), NaN and infinities",
                  T(5, 37, domain="special")),
             case("grid", "4x19 of small integers (ties at zero)", T(4, 19, domain="grid"))),
}


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
               case("special", "1x5x4x4 with inf, -inf and NaN into [0, 6]", T(1, 5, 4, 4, domain="special"),
                    lo=0, hi=6),
               case("planes_17", "2x3x17 into [-0.5, 0.5] (integers: [-1, 1]; uint8: [0, 1])", T(2, 3, 17),
                    lo=ByDtype(lambda d: 0 if d == torch.uint8 else -0.5 if d.is_floating_point else -1),
                    hi=ByDtype(lambda d: 1 if not d.is_floating_point else 0.5)),
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
    alpha = ByDtype(lambda d: per_category(d, True, 2, 0.5))

    def with_alpha(overload):
        return lambda a, b, alpha=None: overload(a, b) if alpha is None else overload(a, b, alpha=alpha)

    alpha_cases = binary_cases()[:1] + (
        case("broadcast_alpha", "2x1x7 with 3x1, broadcast, alpha", T(2, 1, 7), T(3, 1), alpha=alpha),
        binary_cases()[2])
    ops = [
        Op("aten::add.out", "aten.add.Tensor", with_alpha(A.add.Tensor), alpha_cases + promotion_cases() + (
            # Float's alpha-1 loop (add_f32): whole vectors and a tail, inf, -inf and NaN on both sides
            case("special_long", "2x3x37 with 2x3x37 (222 elements), inf, -inf and NaN",
                 T(2, 3, 37, domain="special"), T(2, 3, 37, domain="special")),) + stretched_cases()),
        Op("aten::sub.out", "aten.sub.Tensor", with_alpha(A.sub.Tensor), alpha_cases + promotion_cases()),
        Op("aten::mul.out", "aten.mul.Tensor", _binary_call(A.mul.Tensor),
           binary_cases() + promotion_cases() + stretched_cases()),
        Op("aten::div.out", "aten.div.Tensor", _binary_call(A.div.Tensor),
           binary_cases(b="nonzero") + promotion_cases(b="nonzero") + stretched_cases(b="nonzero")),
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


def _bitwise_scalar_ops() -> list[Op]:
    """Scalar overloads of bitwise_and, bitwise_or, bitwise_xor and the shifts."""
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
    ]


def _rounding_scalar_ops() -> list[Op]:
    """Scalar overloads of remainder and rsub, div with rounding, and pow with a Scalar base."""
    divisor = ByDtype(lambda d: per_category(d, True, -3 if dtype_kind(d) == "signed" else 3, -1.5))
    return [
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


def _selection_ops() -> list[Op]:
    """where, clamp and clamp.Tensor."""
    # uint8 gets an in-range lower bound: ExecuTorch refuses a negative one.
    lo = ByDtype(lambda d: 1 if d == torch.uint8 else per_category(d, False, -2, -0.5))
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
