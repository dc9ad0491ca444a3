"""Indexing: gathering by index tensors, masks, and scatters."""

from __future__ import annotations

import torch

from .vocabulary import A, Fixed, Idx, Ix, Op, T, case, scalar_for


def ops() -> list[Op]:
    """The indexing operators of the corpus."""
    return _indexing_ops() + _masked_ops() + _scatter_ops()


def _indexing_ops() -> list[Op]:
    """Gathering by index tensors, and index_put (out of place and in place)."""
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
        Op("aten::index_put_", "Tensor.index_put_ on an input (reinplaced, written back)",
           lambda x, v, *idx, layout, accumulate: x.index_put_(
               [None if s is None else idx[s] for s in layout], v, accumulate), (
               case("rows", "5x4, rows [0, 2, 4] = 3x4", T(5, 4), T(3, 4), Fixed((0, 2, 4), torch.int64),
                    layout=(0,), accumulate=False),
               case("accumulate", "4x5 at [idx(6)] += 5 (broadcast, repeated rows add up)", T(4, 5), T(5),
                    Ix((6,), 4), layout=(0,), accumulate=True),
           ), mutated_inputs=1, reinplace=True),
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
