"""Reductions, scans, softmax, any, and topk."""

from __future__ import annotations

import torch

from .shared import reduction_cases
from .vocabulary import A, Case, Op, T, case, mixed


def ops() -> list[Op]:
    """The reducing operators of the corpus."""
    return (_sum_prod_ops() + _extremum_ops() + _variance_ops() + _scan_softmax_ops() + _reduction_overload_ops()
            + _any_ops() + _topk_ops())



def _long_rows_case() -> Case:
    """Float rows long enough for the vectorised row sum (reduce_util.h's
    sum_row: 128 elements on), with a tail past whole vectors."""
    return case("long_rows", "1x3x12x13 over dims [-1, -2], keepdim (rows of 156)", T(1, 3, 12, 13),
                dim=[-1, -2], keepdim=True, only=(torch.float32,))


def _sum_prod_ops() -> list[Op]:
    """sum, mean and prod over dims."""
    return [
        Op("aten::sum.IntList_out", "aten.sum.dim_IntList",
           lambda x, dim, keepdim, dtype=None: A.sum.dim_IntList(x, dim, keepdim, dtype=dtype),
           reduction_cases() + (
               mixed("f32_to_f64", "float32 3x5 over dim 1 with dtype=float64", T(3, 5, dtype=torch.float32),
                     dim=[1], keepdim=False, dtype=torch.float64),
               mixed("i8_to_i32", "int8 3x5 over dim 0 with dtype=int32", T(3, 5, dtype=torch.int8),
                     dim=[0], keepdim=False, dtype=torch.int32),
               _long_rows_case(),
           )),
        Op("aten::mean.out", "aten.mean.dim",
           lambda x, dim, keepdim, dtype=None: A.mean.dim(x, dim, keepdim, dtype=dtype),
           reduction_cases() + (
               mixed("f16_to_f32", "float16 3x5 over dim 1 with dtype=float32",
                     T(3, 5, dtype=torch.float16), dim=[1], keepdim=False, dtype=torch.float32),
               _long_rows_case(),
           )),
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
    ]


def _value_and_index_ops(kind: str) -> list[Op]:
    """aten::a<kind> over dims and aten::arg<kind> over one dim (kind: max or min)."""
    value, index = getattr(A, f"a{kind}").default, getattr(A, f"arg{kind}").default
    return [
        Op(f"aten::a{kind}.out", f"aten.a{kind}.default", lambda x, dim, keepdim: value(x, dim, keepdim), (
            case("dim1", "3x11 over dim 1", T(3, 11, domain="grid"), dim=[1], keepdim=False),
            case("neg_dims_keepdim", "2x3x5 over dims [-1, 0], keepdim", T(2, 3, 5, domain="grid"),
                 dim=[-1, 0], keepdim=True),
            case("zero_dim", "0-dim over dims []", T(), dim=[], keepdim=False),
        )),
        Op(f"aten::arg{kind}.out", f"aten.arg{kind}.default",
           lambda x, dim, keepdim: index(x, dim, keepdim), (
               case("dim1", "3x11 over dim 1 (distinct values)", T(3, 11, domain="distinct"),
                    dim=1, keepdim=False),
               case("neg_dim_keepdim", "2x3x5 over dim -1, keepdim", T(2, 3, 5, domain="distinct"),
                    dim=-1, keepdim=True),
               case("flat", "33 elements, dim None (whole tensor)", T(33, domain="distinct"),
                    dim=None, keepdim=False),
           )),
    ]


def _extremum_ops() -> list[Op]:
    """Largest and smallest values and their indices."""
    return [
        *_value_and_index_ops("max"),
        *_value_and_index_ops("min"),
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
    ]


def _variance_ops() -> list[Op]:
    """var and var_mean with a correction."""
    return [
        Op("aten::var_mean.correction_out", "aten.var_mean.correction",
           lambda x, dim, correction, keepdim: A.var_mean.correction(x, dim, correction=correction,
                                                                      keepdim=keepdim), (
               case("dim1", "3x11 over dim 1, correction 1", T(3, 11), dim=[1], correction=1, keepdim=False),
               case("dims_keepdim", "2x3x5 over dims [0, -1], correction 0, keepdim", T(2, 3, 5),
                    dim=[0, -1], correction=0, keepdim=True),
               case("all", "33 elements, dim None, correction 1", T(33), dim=None, correction=1, keepdim=False),
           )),
        Op("aten::var.correction_out", "aten.var.correction",
           lambda x, dim, correction, keepdim: A.var.correction(x, dim, correction=correction, keepdim=keepdim), (
               case("dim1", "3x11 over dim 1, correction 1", T(3, 11), dim=[1], correction=1, keepdim=False),
               case("dims_keepdim", "2x3x5 over dims [0, -1], correction 0, keepdim", T(2, 3, 5),
                    dim=[0, -1], correction=0, keepdim=True),
               case("all", "33 elements, dim None, correction 1", T(33), dim=None, correction=1, keepdim=False),
           )),
    ]


def _scan_softmax_ops() -> list[Op]:
    """glu, cumsum and softmax."""
    def softmax(overload):
        return lambda x, dim: overload(x, dim, False)

    softmax_cases = (
        case("dim1", "3x11 over dim 1", T(3, 11), dim=1),
        case("neg_dim", "2x3x5 over dim -2", T(2, 3, 5), dim=-2),
        case("zero_dim", "0-dim over dim 0", T(), dim=0),
    )
    return [
        Op("aten::glu.out", "aten.glu.default", lambda x, dim: A.glu.default(x, dim), (
            case("last_dim", "3x10 halved along dim -1", T(3, 10), dim=-1),
            case("first_dim", "4x3x2 halved along dim 0", T(4, 3, 2), dim=0),
            case("two", "2 halved along dim 0", T(2), dim=0),
        ), preserve=(A.glu.default,)),
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


def _topk_ops() -> list[Op]:
    """topk (distinct values, so that the order is unique; NaN and infinities
    in the floats).  torch refuses Bool, as ExecuTorch's kernel does."""
    return [Op("aten::topk.values", "aten.topk.default",
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
               ))]
