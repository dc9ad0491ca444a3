"""Case sets shared by many operators: elementwise unary and binary shapes,
type promotion pairs, a tensor with a scalar, reductions over dim lists."""

from __future__ import annotations

from typing import Any

import torch

from .vocabulary import Case, T, case, mixed, scalar_for


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


def stretched_cases(b: str = "any", **params) -> tuple[Case, ...]:
    """Binary shapes whose operands take turns being stretched (add, mul and
    div's Float maps: x op s, s op x per run, one element first or second)."""
    return (
        case("zero_dim_first", "a 0-dim tensor with 3x37", T(), T(3, 37, domain=b), **params),
        case("broadcast_first", "3x1 with 2x1x37, broadcast to 2x3x37 (the first operand stretched)",
             T(3, 1), T(2, 1, 37, domain=b), **params),
        case("channels", "1x5x1x1 with 1x5x4x9 (a squeeze-and-excite product's shapes)",
             T(1, 5, 1, 1), T(1, 5, 4, 9, domain=b), **params),
        case("channels_second", "2x3x2x5 with 2x3x1x1 (the second operand stretched along the trailing dims)",
             T(2, 3, 2, 5), T(2, 3, 1, 1, domain=b), **params),
        case("middle_stretched", "1x3x2x5 with 1x3x1x5 (stretched along a middle dim only)",
             T(1, 3, 2, 5), T(1, 3, 1, 5, domain=b), **params),
        case("special_zero_dim", "2x3x37 with a 0-dim tensor, inf, -inf and NaN",
             T(2, 3, 37, domain="special"), T(domain="special"), **params),
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
