"""Operators that make tensors from sizes and scalars."""

from __future__ import annotations

import torch

from .shared import unary_cases
from .vocabulary import A, ByDtype, Op, T, case, mixed, scalar_for


def ops() -> list[Op]:
    """The creation operators of the corpus."""
    return _fill_ops() + _range_ops() + _empty_dim_order_ops()


def _fill_ops() -> list[Op]:
    """Tensors of one value, or empty ones, from sizes or from another tensor (methods with
    no tensor input, except full_like and fill)."""
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
    ]


def _range_ops() -> list[Op]:
    """scalar_tensor and arange (methods with no tensor input)."""
    dtype = ByDtype(lambda d: d)
    return [
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


def _empty_dim_order_ops() -> list[Op]:
    """_empty_dim_order, which empty lowers to with the dim-order ops."""
    dtype = ByDtype(lambda d: d)
    return [Op("dim_order_ops::_empty_dim_order.out", "aten.empty.memory_format (lowered with the dim-order ops)",
               lambda size, dtype, channels_last=False: A.empty.memory_format(
                   size, dtype=dtype, memory_format=torch.channels_last if channels_last else None), (
                   case("rows", "[0, 4]", size=[0, 4], dtype=dtype),
                   case("vector", "[0]", size=[0], dtype=dtype),
                   case("channels_last", "[0, 3, 2, 2] in channels-last order", size=[0, 3, 2, 2], dtype=dtype,
                        channels_last=True),
               ))]
