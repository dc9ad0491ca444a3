"""Exporting a model and checking it: eager outputs (float32 and float64), the
ExecuTorch program, its run on ExecuTorch's runtime against eager."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import nn

from real_models.inputs import Inputs

METHOD = "forward"
# Healthy outputs: the largest magnitude must lie in this range.
OUTPUT_MAX_RANGE = (1e-3, 1e3)
# Eager vs the ExecuTorch runtime: relative to the largest output magnitude.
RUNTIME_RTOL = 1e-4
# The same for delegated (XNNPACK) programs, which compute differently from
# eager (see "Delegated mode" in export_real.py's docstring).
DELEGATED_RUNTIME_RTOL = 1e-3


def as_tuple(result) -> tuple[torch.Tensor, ...]:
    """The model's outputs as a flat tuple of tensors."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def run_eager(model: nn.Module, inputs: Inputs) -> tuple[torch.Tensor, ...]:
    """Outputs of the model in eager mode, detached."""
    with torch.no_grad():
        return tuple(t.detach().clone() for t in as_tuple(model(*inputs)))


def float64_gap(model: nn.Module, inputs: Inputs, outputs: Sequence[torch.Tensor]) -> float:
    """Largest |float32 eager - float64 eager| over all outputs."""
    model64 = copy.deepcopy(model).double()
    inputs64 = tuple(t.double() if t.is_floating_point() else t for t in inputs)
    outputs64 = run_eager(model64, inputs64)
    return max(max_abs_diff(a, b) for a, b in zip(outputs, outputs64, strict=True))


def max_abs_diff(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest |a - b| (integers compared exactly, as int64)."""
    if a.numel() == 0:
        return 0.0
    if not a.is_floating_point():
        return float((a.long() - b.long()).abs().max())
    return float((a.double() - b.double()).abs().max())


def export_program(model: nn.Module, inputs: Inputs, delegate: str | None = None):
    """torch.export, then edge lowering (with the ``delegate`` backend's
    partitioner, or none), then ExecuTorch."""
    from executorch.exir import to_edge_transform_and_lower

    exported = torch.export.export(model, inputs)
    if delegate is None:
        return to_edge_transform_and_lower(exported).to_executorch()
    if delegate != "xnnpack":
        raise ValueError(f"unknown delegate {delegate!r}")
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import (
        XnnpackPartitioner,
    )

    return to_edge_transform_and_lower(exported, partitioner=[XnnpackPartitioner()]).to_executorch()


def run_executorch(buffer: bytes, inputs: Inputs) -> tuple[torch.Tensor, ...]:
    """Run the program's forward method with ExecuTorch's pybindings runtime."""
    from executorch.runtime import Runtime

    method = Runtime.get().load_program(buffer).load_method(METHOD)
    return as_tuple(method.execute(list(inputs)))


def program_operators(program) -> list[str]:
    """Sorted ``namespace::name.overload`` names from the emitted execution plan."""
    plan = program.executorch_program.execution_plan[0]
    return sorted({f"{op.name}.{op.overload}" if op.overload else op.name
                   for op in plan.operators})


def program_delegates(program) -> tuple[list[str], int]:
    """The sorted distinct backend ids of the plan's delegates, and the number
    of ``DelegateCall`` instructions in its chains."""
    from executorch.exir.schema import DelegateCall

    plan = program.executorch_program.execution_plan[0]
    backends = sorted({delegate.id for delegate in plan.delegates})
    calls = sum(isinstance(instruction.instr_args, DelegateCall)
                for chain in plan.chains for instruction in chain.instructions)
    return backends, calls


def check_outputs_healthy(name: str, outputs: Sequence[torch.Tensor]) -> None:
    """Fail when an output is non-finite, constant, or of a degenerate magnitude."""
    low, high = OUTPUT_MAX_RANGE
    for i, out in enumerate(outputs):
        if not out.is_floating_point():
            continue
        if not torch.isfinite(out).all():
            raise SystemExit(f"{name}: output {i} is not finite")
        peak = float(out.abs().max())
        if not low <= peak <= high:
            raise SystemExit(f"{name}: output {i} has max |y| {peak:.3g}, outside [{low}, {high}]")
        if out.numel() > 1 and float(out.max() - out.min()) <= 1e-6 * peak:
            raise SystemExit(f"{name}: output {i} is constant")


def compare_runtime(name: str, expected: Sequence[torch.Tensor],
                    got: Sequence[torch.Tensor], rtol: float = RUNTIME_RTOL) -> float:
    """Largest |eager - runtime| over all outputs; fail on a mismatch (a
    difference above ``rtol`` times the output's max |y|, or 1)."""
    if len(got) != len(expected):
        raise SystemExit(f"{name}: runtime gave {len(got)} outputs, eager {len(expected)}")
    worst = 0.0
    for i, (e, g) in enumerate(zip(expected, got, strict=True)):
        if g.dtype != e.dtype or tuple(g.shape) != tuple(e.shape):
            raise SystemExit(f"{name} output {i}: runtime {g.dtype}{tuple(g.shape)}, "
                             f"eager {e.dtype}{tuple(e.shape)}")
        diff = max_abs_diff(e, g)
        scale = float(e.abs().max()) if e.is_floating_point() else 0.0
        if diff > rtol * max(scale, 1.0):
            raise SystemExit(f"{name} output {i}: runtime and eager differ by {diff:.3g}")
        worst = max(worst, diff)
    return worst
