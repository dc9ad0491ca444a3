"""Views and copies: shape operators and the view-copy family, conversions,
copies that place their input's elements anew, and the device copies."""

from __future__ import annotations

import torch

from .shared import unary_cases
from .vocabulary import ALL, COMPLEX, A, ByDtype, In, Op, T, case, mixed, scalar_for


def ops() -> list[Op]:
    """The view and copy operators of the corpus."""
    return (_reshape_ops() + _slicing_ops() + _cat_pad_flip_ops() + _copy_ops() + _plain_copy_ops()
            + _strided_view_ops() + _complex_ops() + _placement_ops() + _device_copy_ops())



def _reshape_ops() -> list[Op]:
    """Copies in a new shape: view, unsqueeze, squeeze, alias, permute, expand."""
    return [
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
        Op("aten::alias_copy.out", "aten.alias_copy.default", lambda x: A.alias_copy.default(x),
           unary_cases()),
        Op("aten::permute_copy.out", "aten.permute_copy.default",
           lambda x, dims: A.permute_copy.default(x, dims), (
               case("rotate", "2x3x4 by [2, 0, 1]", T(2, 3, 4), dims=[2, 0, 1]),
               case("transpose", "3x11 by [1, 0]", T(3, 11), dims=[1, 0]),
               case("negative", "2x1x3x2 by [-1, 0, 2, 1]", T(2, 1, 3, 2), dims=[-1, 0, 2, 1]),
               case("matrix_odd", "13x22 by [1, 0] (4x4 blocks and the rows and columns left over)", T(13, 22),
                    dims=[1, 0]),
               case("strips", "70x9 by [1, 0] (a strip of 8 rows by 64 columns, and what is left)", T(70, 9),
                    dims=[1, 0]),
               case("last_two", "2x5x7 by [0, 2, 1] (a transpose per index of dim 0)", T(2, 5, 7), dims=[0, 2, 1]),
               case("outer_swapped", "2x9x5x10 by [1, 0, 3, 2] (transposes at offsets of two outer dims)",
                    T(2, 9, 5, 10), dims=[1, 0, 3, 2]),
               case("single", "1x1 by [1, 0]", T(1, 1), dims=[1, 0]),
           )),
        Op("aten::expand_copy.out", "aten.expand_copy.default",
           lambda x, size: A.expand_copy.default(x, size), (
               case("column", "3x1 to [-1, 5] (-1 keeps the size)", T(3, 1), size=[-1, 5]),
               case("new_dims", "4 to [2, 3, 4]", T(4), size=[2, 3, 4]),
               case("zero_dim", "0-dim to [7]", T(), size=[7]),
           )),
    ]


def _slicing_ops() -> list[Op]:
    """Slices and strided windows of one input, and their scatter."""
    return [
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
        Op("aten::as_strided_copy.out", "aten.as_strided_copy.default",
           lambda x, size, stride, offset: A.as_strided_copy.default(x, size, stride, offset), (
               case("offset", "3x11 viewed as 4x3, stride [2, 5], offset 1", T(3, 11),
                    size=[4, 3], stride=[2, 5], offset=1),
               case("overlap", "2x3x4 as 3x3, stride [1, 1] (overlapping windows)", T(2, 3, 4),
                    size=[3, 3], stride=[1, 1], offset=0),
               case("zero_stride", "7 as 2x3, stride [0, 2] (repeated rows), offset 1", T(7),
                    size=[2, 3], stride=[0, 2], offset=1),
           )),
        Op("aten::slice_scatter.out", "aten.slice_scatter.default",
           lambda x, src, dim, start, end, step: A.slice_scatter.default(x, src, dim, start, end, step), (
               case("step", "4x6 with 4x2 at dim 1, 1:5:2", T(4, 6), T(4, 2), dim=1, start=1, end=5, step=2),
               case("negative_start", "5x3 with 2x3 at dim 0, -2:", T(5, 3), T(2, 3), dim=0, start=-2,
                    end=None, step=1),
               case("empty_src", "3x4 with an empty 0x4 at dim 0, 1:1", T(3, 4), T(0, 4), dim=0, start=1,
                    end=1, step=1),
           )),
        Op("aten::split_with_sizes_copy.out", "aten.split_with_sizes_copy.default",
           lambda x, sizes, dim: A.split_with_sizes_copy.default(x, sizes, dim), (
               case("rows", "7x4 into [2, 5] along dim 0", T(7, 4), sizes=[2, 5], dim=0),
               case("with_empty", "3x11 into [4, 0, 7] along dim -1", T(3, 11), sizes=[4, 0, 7], dim=-1),
               case("single", "2x6 into [6] along dim 1", T(2, 6), sizes=[6], dim=1),
           )),
    ]


def _cat_pad_flip_ops() -> list[Op]:
    """cat, constant padding and flip."""
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
    ]


def _copy_ops() -> list[Op]:
    """copy (out of place and in place), and the dim-order clone and conversion."""
    def to(x, target):
        return x.to(target)
    return [
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


def _plain_copy_ops() -> list[Op]:
    """Plain copies and conversions, lowered without the dim-order ops."""
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
    ]


def _strided_view_ops() -> list[Op]:
    """Strided views of one input: transpose, diagonal, narrow, split, unbind, unfold."""
    return [
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


def _complex_ops() -> list[Op]:
    """The operators that take only complex inputs."""
    return [
        Op("aten::view_as_real_copy.out", "aten.view_as_real_copy.default (complex inputs only; no ComplexHalf: "
           "numpy, so the npz and the runner, has no complex32)", lambda x: A.view_as_real_copy.default(x),
           unary_cases(), dtypes=ALL + COMPLEX),
        Op("aten::_conj_physical.out", "aten._conj_physical.default (complex inputs only; no ComplexHalf: "
           "numpy, so the npz and the runner, has no complex32)", lambda x: A._conj_physical.default(x),
           unary_cases(), dtypes=ALL + COMPLEX),
    ]


def _placement_ops() -> list[Op]:
    """Copies that place their input's elements anew: stack, repeat,
    repeat_interleave, roll, tril and pixel_(un)shuffle."""
    counts = In((4,), "fixed", values=(2, 0, 3, 1))
    return [
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
               # cases cannot be checked at export; tests/kernels/kernel_checks_views.cpp covers ours.
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
    ]


def _device_copy_ops() -> list[Op]:
    """The device-copy ops: a copy on a CPU-only runtime."""
    import executorch.exir.passes._device_copy_ops_registry  # noqa: F401 - defines torch.ops.et_copy

    return [Op(f"et_copy::_{way}_copy.out", f"et_copy._{way}_copy.default (kept from decomposition)",
               lambda x, overload=getattr(torch.ops.et_copy, f"_{way}_copy").default: overload(x),
               unary_cases() + (case("nchw", "2x3x4x5", T(2, 3, 4, 5), only=(torch.float32,)),),
               preserve=(getattr(torch.ops.et_copy, f"_{way}_copy").default,),
               executorch_refuses="it needs a device tensor on one side")
            for way in ("h2d", "d2h")]
