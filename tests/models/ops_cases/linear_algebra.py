"""Matrix products and distances."""

from __future__ import annotations

import torch

from .vocabulary import A, Op, T, case, scalar_for


def ops() -> list[Op]:
    """The matrix and distance operators of the corpus."""
    return _matmul_ops() + _distance_ops()


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
            # Float's gemm: columns past the last register tile in vectors and a partial one.
            case("narrow_17", "2x17x16 by 2x16x17 (attention scores)", T(2, 17, 16), T(2, 16, 17),
                 only=(torch.float32,)),
            case("narrow_40", "2x3x8 by 2x8x40", T(2, 3, 8), T(2, 8, 40), only=(torch.float32,)),
        )),
    ]


def _distance_ops() -> list[Op]:
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
