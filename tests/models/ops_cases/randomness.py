"""rand, randn and native_dropout: exact cases where the values are not random,
and contract cases whose outputs are Bool checks of the distribution."""

from __future__ import annotations

import torch

from .vocabulary import A, ByDtype, Op, T, case


def ops() -> list[Op]:
    """The random operators of the corpus."""
    return _random_ops()


def _random_contract(r: torch.Tensor, low: float, high: float, mean: float, var: float, slack: tuple) -> tuple:
    """Bool checks of a random tensor's contract, true for torch's generator
    and for etsb's: every value in [low, high) (None: unbounded), the mean
    and the variance within `slack` of the distribution's (computed in float32)."""
    x = r.to(torch.float32)
    checks = (A.abs.default(A.mean.dim(x, [0]) - mean) < slack[0],
              A.abs.default(A.var.correction(x, [0], correction=1) - var) < slack[1])
    if low is not None:
        checks += ((A.amin.default(x, [0]) >= low), (A.amax.default(x, [0]) < high))
    return checks


def _dropout_contract(x: torch.Tensor, p: float) -> tuple:
    """Bool checks of training dropout: every kept value is x / (1 - p) (to
    the dtype's rounding), every dropped one 0, about 1 - p of them kept."""
    out, mask = A.native_dropout.default(x, p, True)
    expected = x.to(torch.float32) * mask.to(torch.float32) * (1 / (1 - p))
    error = A.amax.default(A.abs.default(out.to(torch.float32) - expected), [0])
    kept = A.mean.dim(mask.to(torch.float32), [0])
    return error <= 0.01 * A.amax.default(A.abs.default(expected), [0]), A.abs.default(kept - (1 - p)) < 0.06


def _random_ops() -> list[Op]:
    """rand, randn and native_dropout: exact cases where the values are not
    random (empty shapes, eval mode, p of 0 and 1) and contract cases whose
    outputs are Bool checks of the distribution (util/random_util.h), which
    torch's generator and etsb's both pass."""
    dtype = ByDtype(lambda d: d)
    uniform = dict(low=0.0, high=1.0, mean=0.5, var=1 / 12, slack=(0.04, 0.01))
    normal = dict(low=None, high=None, mean=0.0, var=1.0, slack=(0.12, 0.2))
    creation = []
    for name, law in (("rand", uniform), ("randn", normal)):
        overload = getattr(A, name).default
        creation.append(Op(f"aten::{name}.out", f"aten.{name}.default (and, for contract cases, checks of its values)",
                           lambda size, dtype, contract=False, law=law, overload=overload: (
                               _random_contract(overload(size, dtype=dtype), **law) if contract
                               else overload(size, dtype=dtype)), (
            case("empty", "[0, 4] (no values)", size=[0, 4], dtype=dtype),
            case("empty_3d", "[2, 0, 3] (no values)", size=[2, 0, 3], dtype=dtype),
            case("contract", "[2048]: range, mean and variance of the draws (Bool checks)", size=[2048],
                 dtype=dtype, contract=True),
        )))
    dropout = Op("aten::native_dropout.out", "aten.native_dropout.default (and, for contract cases, checks)",
                 lambda x, p, train, contract=False: (_dropout_contract(x, p) if contract
                                                      else A.native_dropout.default(x, p, train)), (
        case("eval", "3x11, p 0.5, train False (out = input, mask all true)", T(3, 11), p=0.5, train=False),
        case("p0", "3x11, p 0, train True (out = input)", T(3, 11), p=0.0, train=True),
        case("p1", "3x11, p 1, train True (zeros, mask all false)", T(3, 11), p=1.0, train=True),
        # In training ATen gives an empty input a mask of the input's dtype, not Bool: that case is not exported.
        case("empty", "0x4, p 0.5, train False", T(0, 4), p=0.5, train=False),
        case("contract", "2048, p 0.25, train True: kept values scaled by 1/(1-p), about 3/4 kept (Bool checks)",
             T(2048, domain="positive"), p=0.25, train=True, contract=True),
    ))
    return creation + [dropout]
