"""The tolerance an output must keep to, and the comparison of ExecuTorch's
outputs with eager's."""

from __future__ import annotations

import torch


# (rtol, atol) per floating output dtype; integer and Bool outputs are exact.
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-9, 1e-9),
    torch.float32: (1e-5, 1e-5),
    torch.complex128: (1e-9, 1e-9),  # for the real and imaginary parts alike
    torch.complex64: (1e-5, 1e-5),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (4e-2, 4e-2),
}
TOLERANCE_RULE = ("|got - expected| <= atol + rtol * |expected| elementwise, NaN matching NaN; "
                  "integer and Bool outputs exactly equal")


def compare(expected: torch.Tensor, got: torch.Tensor) -> tuple[str | None, float]:
    """Why ``got`` does not match ``expected`` within the tolerance (None if
    it does), and the largest absolute difference between finite values."""
    if expected.numel() == 0:
        return None, 0.0
    rtol, atol = tolerance(expected.dtype)
    if expected.is_complex():  # real and imaginary parts compared as floats, side by side
        expected, got = torch.view_as_real(expected), torch.view_as_real(got)
    e, g = expected.double(), got.double()
    if expected.is_floating_point():
        close = torch.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = expected == got  # exact, also beyond float64's 53 bits
    finite = torch.isfinite(e) & torch.isfinite(g)
    diff = float((e - g).abs()[finite].max()) if finite.any() else 0.0
    if bool(close.all()):
        return None, diff
    return (f"runtime differs from eager in {int((~close).sum())} of {e.numel()} elements, "
            f"max |diff| {diff:.3g} (rtol {rtol}, atol {atol})"), diff


def tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) for an output dtype: exact for integers and Bool."""
    return TOLERANCES.get(dtype, (0.0, 0.0))
