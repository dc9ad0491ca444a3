"""The single-operator corpus's case table, one module per operator family.

`build_ops` gathers every family's ``ops()``; tests/models/export_ops.py
exports them.  To add an operator or a case, edit the module of its family:

=================  ==========================================================
`elementwise`      unary, activations, binary, tensor with scalar, where/clamp
`reductions`       reductions, scans, softmax, any, topk
`views`            shape ops, view copies, conversions, stack/repeat/roll...
`creation`         full, zeros, empty, arange...
`indexing`         index, gather, embedding, masks, scatters
`normalization`    batch, group and layer norm
`convolution`      convolution, pooling, resizing, grid sampling, padding,
                   and their backward operators
`linear_algebra`   mm, addmm, bmm, cdist, pdist
`randomness`       rand, randn, native_dropout
=================  ==========================================================

`vocabulary` holds what cases are written with (`Op`, `case`, `mixed`, `T`...)
and `shared` the case sets many operators share.
"""

from __future__ import annotations

from . import convolution, creation, elementwise, indexing, linear_algebra, normalization, randomness, reductions, views
from .vocabulary import Op

FAMILIES = (views, creation, indexing, elementwise, reductions, normalization, convolution, linear_algebra, randomness)


def build_ops() -> list[Op]:
    """The whole table, sorted by operator name."""
    ops = [op for family in FAMILIES for op in family.ops()]
    names = [op.name for op in ops]
    duplicates = {n for n in names if names.count(n) > 1}
    assert not duplicates, f"operators listed twice: {sorted(duplicates)}"
    return sorted(ops, key=lambda op: op.name)
