"""Normalisations: batch norm (inference and training), group and layer norm."""

from __future__ import annotations

import math

from .vocabulary import A, Op, T, case


def ops() -> list[Op]:
    """The normalisation operators of the corpus."""
    return _norm_ops() + _training_ops()


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
                   ("planes_2x2", "1x21x2x2, 21 channels (4-lane planes; folds of 8 channels and the rest)",
                    (1, 21, 2, 2), 21),
                   ("chunks", "2x70x1x3, 70 channels (a chunk of 64 and the rest, two images)", (2, 70, 1, 3), 70),
                   ("planes_4x4", "1x13x4x4, 13 channels (8-lane planes of 16)", (1, 13, 4, 4), 13),
                   ("planes_8x8", "2x11x8x8, 11 channels, two images (8-lane planes of 64)", (2, 11, 8, 8), 11),
                   ("planes_5", "1x9x5, 9 channels (planes of 5)", (1, 9, 5), 9),
                   ("planes_17", "2x10x17, 10 channels (planes of 17)", (2, 10, 17), 10),
               )) + (
                   case("special_eps", "1x12x4x4 with inf, -inf and NaN, eps 0.1", T(1, 12, 4, 4, domain="special"),
                        T(12), T(12), T(12), T(12, domain="variance"), eps=0.1),
               )),
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


def _no_stats(x, *weight_bias, eps):
    """Training batch norm without running statistics."""
    weight, bias = weight_bias if weight_bias else (None, None)
    return A._native_batch_norm_legit.no_stats(x, weight, bias, True, 0.1, eps)


def _training_ops() -> list[Op]:
    """Training batch norm (no running statistics)."""
    return [Op("aten::_native_batch_norm_legit.no_stats_out", "aten._native_batch_norm_legit.no_stats (training)",
               _no_stats, (
                   case("nchw", "2x3x4x4, 3 channels", T(2, 3, 4, 4), T(3), T(3), eps=1e-5),
                   case("ncl", "2x4x5, 4 channels", T(2, 4, 5), T(4), T(4), eps=1e-5),
                   case("nc_no_affine", "6x3, no weight or bias", T(6, 3), eps=1e-3),
               ))]
