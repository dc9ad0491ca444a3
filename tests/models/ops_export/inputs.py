"""Input tensors of the cases: random values in each value domain, from a
generator the caller seeds per method."""

from __future__ import annotations

import math

import torch

from ops_cases.vocabulary import In, dtype_kind


def _randint(low: int, high: int, shape: tuple, gen: torch.Generator) -> torch.Tensor:
    return torch.randint(low, high, shape, generator=gen, dtype=torch.int64).double()


def _domain_values(domain: str, kind: str, shape: tuple, gen: torch.Generator) -> torch.Tensor:
    """float64 values of a domain, for a dtype kind (bool, unsigned, signed,
    float); cast to the dtype afterwards."""
    floating, signed = kind == "float", kind != "unsigned"
    if kind == "bool":
        if domain in ("positive", "nonzero", "variance"):
            return torch.ones(shape, dtype=torch.float64)
        if domain == "zeros":
            return torch.zeros(shape, dtype=torch.float64)
        return _randint(0, 2, shape, gen)
    if domain == "any":
        return torch.randn(shape, generator=gen, dtype=torch.float64) * 2 if floating else \
            _randint(-9 if signed else 0, 10, shape, gen)
    if domain in ("positive", "variance"):
        if floating:
            low = 0.5 if domain == "variance" else 0.1
            return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 + low
        return _randint(1, 10, shape, gen)
    if domain == "nonzero":
        sign = torch.where(_randint(0, 2, shape, gen) > 0, 1.0, -1.0) if signed else 1.0
        magnitude = torch.rand(shape, generator=gen, dtype=torch.float64) * 2 + 0.25 if floating else \
            _randint(1, 10, shape, gen)
        return sign * magnitude
    if domain == "grid":
        return _randint(-3 if signed else 0, 4 if signed else 7, shape, gen)
    if domain == "base":
        if floating:
            return torch.rand(shape, generator=gen, dtype=torch.float64) * 2 + 0.2
        return _randint(-3 if signed else 0, 4, shape, gen)
    if domain == "exponent":
        return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 - 2 if floating else \
            _randint(0, 4, shape, gen)
    if domain == "sparse":
        keep = torch.rand(shape, generator=gen, dtype=torch.float64) < 0.25
        return _domain_values("nonzero", kind, shape, gen) * keep
    if domain == "zeros":
        return torch.zeros(shape, dtype=torch.float64)
    if domain in ("unit", "open_unit"):
        if floating:
            low, span = (0.1, 0.8) if domain == "open_unit" else (-0.9, 1.8)
            return torch.rand(shape, generator=gen, dtype=torch.float64) * span + low
        return _randint(-1 if signed else 0, 2, shape, gen)
    if domain == "at_least_one":
        return torch.rand(shape, generator=gen, dtype=torch.float64) * 4 + 1 if floating else \
            _randint(1, 10, shape, gen)
    if domain == "special":
        values = _domain_values("any", kind, shape, gen)
        if floating and values.numel() >= 4:
            flat = values.reshape(-1)
            flat[0], flat[1], flat[2] = math.inf, -math.inf, math.nan
        return values
    if domain == "ties":
        # few values (ties to break by order); in floating dtypes NaN and -inf scattered and each
        # plane's first two rows -inf (windows of nothing but -inf along a padded edge)
        values = _randint(-2 if signed else 0, 3, shape, gen)
        if floating and len(shape) >= 2:
            draw = torch.rand(shape, generator=gen, dtype=torch.float64)
            values[draw < 0.06] = math.nan
            values[(draw >= 0.06) & (draw < 0.18)] = -math.inf
            values[..., :2, :] = -math.inf
        return values
    if domain == "distinct":
        count = math.prod(shape)
        values = torch.randperm(count, generator=gen).double()
        return (values - (count // 2 if signed else 0)).reshape(shape)
    raise ValueError(f"unknown value domain '{domain}'")


def make_input(spec: In, dtype: torch.dtype, gen: torch.Generator) -> torch.Tensor:
    """One input tensor for a case."""
    if spec.domain == "index":
        return torch.randint(0, spec.high, spec.shape, generator=gen, dtype=torch.int64)
    if spec.domain == "fixed":
        return torch.tensor(spec.values, dtype=dtype)
    if dtype.is_complex:  # real and imaginary parts each drawn from the domain
        real = _domain_values(spec.domain, "float", spec.shape, gen)
        return torch.complex(real, _domain_values(spec.domain, "float", spec.shape, gen)).to(dtype)
    return _domain_values(spec.domain, dtype_kind(dtype), spec.shape, gen).to(dtype)
