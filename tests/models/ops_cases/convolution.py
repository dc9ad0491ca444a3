"""Convolution, pooling, resizing, grid sampling, padding, and the backward
operators of convolution and max pooling."""

from __future__ import annotations

import torch

from .vocabulary import WIDE_FLOATS, A, Case, Op, T, case

F32 = (torch.float32,)  # cases for Float's own paths


def ops() -> list[Op]:
    """The spatial operators of the corpus."""
    return _convolution_ops() + _pool_resize_ops() + _sampling_backward_ops() + _padding_ops()


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


def _convolution_ops() -> list[Op]:
    """Convolution in 1 and 2 dims: plain, depthwise, grouped, dilated and transposed."""
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
            # Float's fast paths (util/conv_f32.h, depthwise_f32.h, gemm_f32.h, dot_f32.h), each shape chosen to take one.
            conv("depthwise_stride2", "depthwise, stride 2: 1x4x9x9 by 4x1x3x3, bias, padding 1 (odd width)",
                 (1, 4, 9, 9), (4, 1, 3, 3), 4, F32, stride=(2, 2), padding=(1, 1), groups=4),
            conv("depthwise_stride2_strips", "depthwise 3x3 stride 2 read in place, no padding: 1x2x6x37 by "
                 "2x1x3x3, no bias (2x18 output: a full and a partial strip)", (1, 2, 6, 37), (2, 1, 3, 3), None,
                 F32, stride=(2, 2), groups=2),
            conv("depthwise_stride2_pad2", "depthwise 3x3 stride 2 read in place, 2 outputs per channel, padding 2: "
                 "1x2x10x10 by 4x1x3x3, bias", (1, 2, 10, 10), (4, 1, 3, 3), 4, F32, stride=(2, 2), padding=(2, 2),
                 groups=2),
            conv("depthwise_tiny_groups", "depthwise on 2x2 planes, 3 channels a vector (AVX-512), a partial last: "
                 "1x10x2x2 by 10x1x3x3, bias, padding 1", (1, 10, 2, 2), (10, 1, 3, 3), 10, F32, padding=(1, 1),
                 groups=10),
            conv("depthwise_tiny_wide", "depthwise to 1x1 planes, 2 channels' 4x4 inputs a vector pair (AVX-512): "
                 "1x7x4x4 by 7x1x3x3, no bias, stride 2", (1, 7, 4, 4), (7, 1, 3, 3), None, F32, stride=(2, 2),
                 groups=7),
            conv("depthwise_tiny_5x5", "depthwise 5x5 on 4x4 planes, 25 taps (AVX-512: one channel a vector): "
                 "1x3x4x4 by 3x1x5x5, bias, padding 2", (1, 3, 4, 4), (3, 1, 5, 5), 3, F32, padding=(2, 2), groups=3),
            conv("depthwise_5x5_stride2_in_place", "depthwise 5x5 stride 2 padding 2 in place from 2x23x58 planes, "
                 "output rows of 29 (AVX-512: a full strip and a partial one): 1x2x23x58 by 2x1x5x5, bias",
                 (1, 2, 23, 58), (2, 1, 5, 5), 2, F32, stride=(2, 2), padding=(2, 2), groups=2),
            conv("depthwise_5x5_in_place_multiplier2", "depthwise 5x5 stride 1 padding 2 in place on 12x12 planes, 2 "
                 "outputs per channel: 1x2x12x12 by 4x1x5x5, no bias", (1, 2, 12, 12), (4, 1, 5, 5), None, F32,
                 padding=(2, 2), groups=2),
            conv("depthwise_5x5_in_place_strips", "depthwise 5x5 stride 1 padding 2 in place, rows of 37 (two full "
                 "strips and a partial on AVX-512, four and a partial on AVX2): 1x2x7x37 by 2x1x5x5, bias",
                 (1, 2, 7, 37), (2, 1, 5, 5), 2, F32, padding=(2, 2), groups=2),
            conv("depthwise_5x5_in_place_pad4", "depthwise 5x5 stride 1 in place, padding [4, 1], dilation [1, 2] "
                 "(the most rows of padding, every input row feeding five output rows at the edges), 2 outputs per "
                 "channel: 1x2x6x21 by 4x1x5x5, no bias", (1, 2, 6, 21), (4, 1, 5, 5), None, F32, padding=(4, 1),
                 dilation=(1, 2), groups=2),
            conv("depthwise_5x5_in_place_short", "depthwise 5x5 stride 1 in place on planes of 3 rows (fewer than the "
                 "kernel's), padding 2, 2 outputs per channel: 1x2x3x17 by 4x1x5x5, bias", (1, 2, 3, 17),
                 (4, 1, 5, 5), 4, F32, padding=(2, 2), groups=2),
            conv("depthwise_5x5_in_place_pad0", "depthwise 5x5 stride 1 in place, no padding, one output row of 26, 2 "
                 "outputs per channel: 1x2x5x30 by 4x1x5x5, bias", (1, 2, 5, 30), (4, 1, 5, 5), 4, F32, groups=2),
            conv("depthwise_5x5_stride2_strips", "depthwise 5x5 stride 2 padding 2 in place, output rows of 21 (a "
                 "full and a partial strip; the columns after each strip's loads inside the row, then not): "
                 "1x2x9x41 by 2x1x5x5, bias", (1, 2, 9, 41), (2, 1, 5, 5), 2, F32, stride=(2, 2), padding=(2, 2),
                 groups=2),
            conv("depthwise_5x5_stride2_pad", "depthwise 5x5 stride 2 in place, padding [0, 3], 2 outputs per channel: "
                 "1x2x10x27 by 4x1x5x5, no bias", (1, 2, 10, 27), (4, 1, 5, 5), None, F32, stride=(2, 2),
                 padding=(0, 3), groups=2),
            conv("depthwise_5x5_stride2_pad5", "depthwise 5x5 stride 2 in place, padding 5 (the first and last output "
                 "rows all padding: the bias alone), 2 outputs per channel: 1x2x3x12 by 4x1x5x5, bias", (1, 2, 3, 12),
                 (4, 1, 5, 5), 4, F32, stride=(2, 2), padding=(5, 5), groups=2),
            conv("depthwise_5x5_rows", "depthwise 5x5 stride 1 padding 4 dilation 2 (not in place: tap by tap from a "
                 "padded copy), 2 outputs per channel: 1x2x9x20 by 4x1x5x5, bias", (1, 2, 9, 20), (4, 1, 5, 5), 4, F32,
                 padding=(4, 4), dilation=(2, 2), groups=2),
            conv("depthwise_7x7_rows", "depthwise 7x7 stride 1 padding 3 on 6x35 planes, rows of 35 (two runs of 16, "
                 "three alone): 1x3x6x35 by 3x1x7x7, bias", (1, 3, 6, 35), (3, 1, 7, 7), 3, F32, padding=(3, 3),
                 groups=3),
            conv("depthwise_5x5_lanes", "depthwise 5x5 stride 1 padding 2 to 7x7 planes, channels-last: 1x10x7x7 by "
                 "10x1x5x5, bias", (1, 10, 7, 7), (10, 1, 5, 5), 10, F32, padding=(2, 2), groups=10),
            conv("depthwise_5x5_lanes_stride2", "depthwise 5x5 stride 2 padding 2 from 13x13 to 7x7 planes, "
                 "channels-last: 1x6x13x13 by 6x1x5x5, no bias", (1, 6, 13, 13), (6, 1, 5, 5), None, F32, stride=(2, 2),
                 padding=(2, 2), groups=6),
            conv("depthwise_5x5_lanes_groups", "depthwise 5x5 stride 1 padding 2 to 7x7 planes, channels-last in "
                 "groups of 32 channels and one of 12 on 16 lanes (two outputs a block, then one): 2x44x7x7 by "
                 "44x1x5x5, bias", (2, 44, 7, 7), (44, 1, 5, 5), 44, F32, padding=(2, 2), groups=44),
            conv("depthwise_5x5_in_place_10x10", "depthwise 5x5 stride 1 padding 2 on 10x10 planes (in place beyond "
                 "7x7 outputs, whatever the channels): 1x8x10x10 by 8x1x5x5, bias", (1, 8, 10, 10), (8, 1, 5, 5), 8,
                 F32, padding=(2, 2), groups=8),
            conv("depthwise_7x7_lanes_stride2", "depthwise 7x7 stride 2 padding 3 from 16x15 to 8x8 planes of 20 "
                 "channels (channels-last from 16 with stride 2, on 24 lanes): 1x20x16x15 by 20x1x7x7, no bias",
                 (1, 20, 16, 15), (20, 1, 7, 7), None, F32, stride=(2, 2), padding=(3, 3), groups=20),
            conv("depthwise_dilation2", "depthwise, dilation 2: 1x2x9x9 by 2x1x3x3, no bias, padding 2",
                 (1, 2, 9, 9), (2, 1, 3, 3), None, F32, padding=(2, 2), dilation=(2, 2), groups=2),
            conv("depthwise_multiplier2", "depthwise, 2 outputs per channel: 1x3x8x8 by 6x1x3x3, bias, "
                 "padding 1", (1, 3, 8, 8), (6, 1, 3, 3), 6, F32, padding=(1, 1), groups=3),
            conv("depthwise_wide_rows", "depthwise, rows of 34 in pairs: 1x2x5x34 by 2x1x3x3, bias, padding 1",
                 (1, 2, 5, 34), (2, 1, 3, 3), 2, F32, padding=(1, 1), groups=2),
            conv("depthwise_small_plane", "depthwise, 4x4 output channels-last: 1x12x7x7 by 12x1x3x3, bias, "
                 "stride 2, padding 1 (AVX-512: the tiny-plane permutes, 49 inputs over 4 vectors)", (1, 12, 7, 7),
                 (12, 1, 3, 3), 12, F32, stride=(2, 2), padding=(1, 1), groups=12),
            conv("depthwise_small_plane_9x9", "depthwise, 4x4 output channels-last whatever the CPU (81 inputs): "
                 "1x12x9x9 by 12x1x3x3, bias, stride 2", (1, 12, 9, 9), (12, 1, 3, 3), 12, F32, stride=(2, 2),
                 groups=12),
            conv("depthwise_in_place_pad2", "depthwise 3x3 stride 1 in place, padding [2, 0], dilation [1, 2]: "
                 "1x2x7x21 by 2x1x3x3, no bias (17 wide: a full and a partial strip)", (1, 2, 7, 21), (2, 1, 3, 3),
                 None, F32, padding=(2, 0), dilation=(1, 2), groups=2),
            conv("depthwise_in_place_pad0", "depthwise 3x3 stride 1 in place, no padding: 1x3x4x20 by 3x1x3x3, bias",
                 (1, 3, 4, 20), (3, 1, 3, 3), 3, F32, groups=3),
            conv("depthwise_same_4x4", "depthwise 3x3 stride 1 padding 1 on 4x4 planes, a vector each, shifted "
                 "(AVX-512): 1x5x4x4 by 5x1x3x3, bias", (1, 5, 4, 4), (5, 1, 3, 3), 5, F32, padding=(1, 1), groups=5),
            conv("depthwise_same_3x3", "depthwise 3x3 stride 1 padding 1 on 3x3 planes (9 lanes of a vector, "
                 "AVX-512): 1x3x3x3 by 3x1x3x3, bias", (1, 3, 3, 3), (3, 1, 3, 3), 3, F32, padding=(1, 1), groups=3),
            conv("depthwise_same_5x5", "depthwise 3x3 stride 1 padding 1 on 5x5 planes, 2 outputs per channel, "
                 "two vectors a plane (AVX-512): 2x3x5x5 by 6x1x3x3, no bias", (2, 3, 5, 5), (6, 1, 3, 3), None, F32,
                 padding=(1, 1), groups=3),
            conv("depthwise_same_7x7", "depthwise 3x3 stride 1 padding 1 on 7x7 planes, four vectors, the last of "
                 "one lane (AVX-512): 1x3x7x7 by 3x1x3x3, bias", (1, 3, 7, 7), (3, 1, 3, 3), 3, F32, padding=(1, 1),
                 groups=3),
            conv("depthwise_same_3x15", "depthwise 3x3 stride 1 padding 1 on 3x15 planes, rows of 15 across "
                 "vectors (AVX-512): 1x2x3x15 by 2x1x3x3, bias", (1, 2, 3, 15), (2, 1, 3, 3), 2, F32,
                 padding=(1, 1), groups=2),
            conv("depthwise_pairs_16x16", "depthwise 3x3 stride 2 padding 1 from 16x16 planes, two 8-wide output "
                 "rows a vector (AVX-512): 1x3x16x16 by 3x1x3x3, bias", (1, 3, 16, 16), (3, 1, 3, 3), 3, F32,
                 stride=(2, 2), padding=(1, 1), groups=3),
            conv("depthwise_pairs_14x14", "depthwise 3x3 stride 2 padding 1 from 14x14 planes, output rows of 7, "
                 "the last vector's second row past the plane (AVX-512): 1x2x14x14 by 2x1x3x3, no bias",
                 (1, 2, 14, 14), (2, 1, 3, 3), None, F32, stride=(2, 2), padding=(1, 1), groups=2),
            conv("depthwise_pairs_multiplier2", "depthwise 3x3 stride 2 padding 1 from 10x13 planes, 2 outputs "
                 "per channel (AVX-512: 5x7 outputs, rows in pairs): 1x2x10x13 by 4x1x3x3, bias", (1, 2, 10, 13),
                 (4, 1, 3, 3), 4, F32, stride=(2, 2), padding=(1, 1), groups=2),
            conv("depthwise_pairs_wide", "depthwise 3x3 stride 2 padding 1 from rows of 21 (AVX-512: a vector an "
                 "output row of 11, the last input row past the plane): 1x3x17x21 by 3x1x3x3, bias", (1, 3, 17, 21),
                 (3, 1, 3, 3), 3, F32, stride=(2, 2), padding=(1, 1), groups=3),
            conv("depthwise_pairs_32", "depthwise 3x3 stride 2 padding 1 from 12x32 planes, 2 outputs per channel "
                 "(AVX-512: rows of 16, two full vectors an input row): 1x2x12x32 by 4x1x3x3, no bias",
                 (1, 2, 12, 32), (4, 1, 3, 3), None, F32, stride=(2, 2), padding=(1, 1), groups=2),
            conv("conv2d_stem_direct", "few-channel 3x3 stride 2 direct (the stem), 8 outputs at a time, rows of "
                 "18 (a full and a partial strip): 2x2x9x37 by 16x2x3x3, no bias", (2, 2, 9, 37), (16, 2, 3, 3),
                 None, F32, stride=(2, 2)),
            conv("conv2d_tiny_deep", "2x2 output of deep patches (dot): 1x8x4x4 by 5x8x3x3, bias, stride 2, "
                 "padding 1", (1, 8, 4, 4), (5, 8, 3, 3), 5, F32, stride=(2, 2), padding=(1, 1)),
            conv("conv2d_tail_dot", "7x7 output, its 49th column by dot past gemm's 3 vectors: 2x8x7x7 by "
                 "20x8x3x3, bias, padding 1", (2, 8, 7, 7), (20, 8, 3, 3), 20, F32, padding=(1, 1)),
            conv("conv2d_tail4_dot", "3x3 stride 2 to 10x10, its last 4 columns by dot: 1x12x19x19 by 6x12x3x3, "
                 "bias, padding 1", (1, 12, 19, 19), (6, 12, 3, 3), 6, F32, stride=(2, 2), padding=(1, 1)),
            conv("pointwise_tail_dot", "pointwise, 2x17 output, its last 2 columns by dot: 1x40x2x17 by 9x40x1x1, "
                 "no bias", (1, 40, 2, 17), (9, 40, 1, 1), None, F32),
            conv("squeeze_excite_dot", "pointwise on 1x1 planes (dot's one column: row by row), 45 deep (vector "
                 "blocks of 32 and 8, 5 left): 2x45x1x1 by 37x45x1x1, bias", (2, 45, 1, 1), (37, 45, 1, 1), 37, F32),
            conv("conv2d_7x7_stem", "7x7 stride 2 from a padded copy, 5x5 output: 1x3x9x9 by 4x3x7x7, "
                 "bias, padding 3", (1, 3, 9, 9), (4, 3, 7, 7), 4, F32, stride=(2, 2), padding=(3, 3)),
        )),
    ]


def _pool_resize_ops() -> list[Op]:
    """Pooling and resizing."""
    return [
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
               # vectorised rows (stride 1 or 2 along a row of 8 outputs or more) against ties, NaN and -inf
               case("rows_s2_p1", "2x3x12x20, kernel 3, stride 2, padding 1 (overlapping groups of 8)",
                    T(2, 3, 12, 20, domain="ties"), kernel=[3, 3], stride=[2, 2], padding=[1, 1], dilation=[1, 1],
                    ceil=False),
               case("rows_s1_dilated_ceil", "1x2x9x19, kernel [2, 3], stride 1, padding 1, dilation [1, 2], ceil_mode",
                    T(1, 2, 9, 19, domain="ties"), kernel=[2, 3], stride=[1, 1], padding=[1, 1], dilation=[1, 2],
                    ceil=True),
               case("rows_s2_ceil", "2x11x16, kernel 3, stride 2, ceil_mode (the last window past the edge)",
                    T(2, 11, 16, domain="ties"), kernel=[3, 3], stride=[2, 2], padding=[0, 0], dilation=[1, 1],
                    ceil=True),
               case("rows_wide", "1x2x5x40, kernel [1, 2], stride [1, 2] (20 outputs a row: 16 and an overlapping 8)",
                    T(1, 2, 5, 40, domain="ties"), kernel=[1, 2], stride=[1, 2], padding=[0, 0], dilation=[1, 1],
                    ceil=False),
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


def _pool_backward(x, grad, kernel, stride, padding, dilation, ceil):
    """max_pool2d_with_indices_backward, with the indices of the forward pass."""
    _, indices = A.max_pool2d_with_indices.default(x, kernel, stride, padding, dilation, ceil)
    return A.max_pool2d_with_indices_backward.default(grad, x, kernel, stride, padding, dilation, ceil, indices)


def _conv_backward(grad, x, w, **p):
    """convolution_backward, all three gradients."""
    return A.convolution_backward.default(grad, x, w, [p["out_ch"]], p["stride"], p["padding"], p["dilation"],
                                          p["transposed"], p["output_padding"], p["groups"], [True, True, True])


def grad_case(name, desc, grad, x, w, stride=(1,), padding=(0,), dilation=(1,), transposed=False,
              output_padding=(0,), groups=1) -> Case:
    """A convolution_backward case: the shapes of the output gradient, the
    input and the weight, and the convolution's parameters."""
    out_ch = w[1] * groups if transposed else w[0]
    return case(name, desc, T(*grad), T(*x), T(*w), out_ch=out_ch, stride=list(stride), padding=list(padding),
                dilation=list(dilation), transposed=transposed, output_padding=list(output_padding),
                groups=groups)


def _sampling_backward_ops() -> list[Op]:
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
           _conv_backward, (
               grad_case("conv2d", "1x3x5x5 by 2x3x3x3", (1, 2, 3, 3), (1, 3, 5, 5), (2, 3, 3, 3)),
               grad_case("stride_pad", "2x2x6x6 by 4x2x3x3, stride 2, padding 1", (2, 4, 3, 3), (2, 2, 6, 6),
                         (4, 2, 3, 3), stride=(2, 2), padding=(1, 1)),
               grad_case("groups_dilation", "1x4x7x7 by 4x2x3x3, groups 2, dilation 2", (1, 4, 3, 3), (1, 4, 7, 7),
                         (4, 2, 3, 3), dilation=(2, 2), groups=2),
               grad_case("conv1d", "2x3x9 by 4x3x3, stride 2", (2, 4, 4), (2, 3, 9), (4, 3, 3), stride=(2,)),
               grad_case("transposed", "transposed 1x4x3x3 by 4x2x3x3, stride 2, padding 1, output_padding 1",
                         (1, 2, 6, 6), (1, 4, 3, 3), (4, 2, 3, 3), stride=(2, 2), padding=(1, 1), transposed=True,
                         output_padding=(1, 1)),
           ), executorch_refuses="its kernel takes only 2-D, non-transposed convolutions"),
        Op("aten::max_pool2d_with_indices_backward.grad_input",
           "aten.max_pool2d_with_indices_backward.default (indices from max_pool2d_with_indices)", _pool_backward, (
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


def _padding_ops() -> list[Op]:
    """Reflection and replication padding in 1 to 3 dims."""
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
    return pads
