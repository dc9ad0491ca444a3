"""Methods: the cases made concrete (a case in one dtype, with its inputs and
parameters), and torch eager's outputs for them."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import torch

from ops_cases.vocabulary import BY_TORCH, ByDtype, Case, Op, scalar_type_name
from ops_export.inputs import make_input


@dataclass
class Method:
    """One method of an operator's program: a case in one dtype (or a mixed
    case), with its inputs and eager's outputs."""

    name: str
    case: Case
    dtype: torch.dtype | None
    params: dict
    inputs: tuple[torch.Tensor, ...]
    outputs: tuple[torch.Tensor, ...] = ()


class OpModule(torch.nn.Module):
    """A module whose forward calls the operator with fixed parameters."""

    def __init__(self, fn: Callable, params: dict) -> None:
        super().__init__()
        self.fn, self.params = fn, params

    def forward(self, *inputs: torch.Tensor):
        return self.fn(*inputs, **self.params)


def as_tuple(result) -> tuple[torch.Tensor, ...]:
    """An operator's result as a flat tuple of tensors."""
    return tuple(result) if isinstance(result, (tuple, list)) else (result,)


def case_seed(op: Op, method: str) -> int:
    """A stable seed per operator and method (``hash`` is salted per process)."""
    return zlib.crc32(f"{op.name}/{method}".encode())


def make_method(op: Op, case_: Case, dtype: torch.dtype | None) -> Method:
    """The inputs and parameters of one case in one dtype."""
    name = f"mix_{case_.name}" if case_.mixed else f"{BY_TORCH[dtype].short}_{case_.name}"
    gen = torch.Generator().manual_seed(case_seed(op, name))
    params = {k: v.pick(dtype) if isinstance(v, ByDtype) else v for k, v in case_.params.items()}
    inputs = tuple(make_input(spec, spec.dtype or dtype, gen) for spec in case_.inputs)
    return Method(name, case_, dtype, params, inputs)


def plan_methods(op: Op) -> list[Method]:
    """Every method of an operator: each case in each of its dtypes."""
    methods = []
    for case_ in op.cases:
        if case_.mixed:
            methods.append(make_method(op, case_, None))
            continue
        for dtype in op.dtypes:
            if case_.dtypes is None or dtype in case_.dtypes:
                methods.append(make_method(op, case_, dtype))
    return methods


def one_line(error: BaseException, limit: int = 200) -> str:
    """An exception as one short line."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    text = f"{type(error).__name__}: {lines[0] if lines else ''}"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def run_eager(op: Op, method: Method) -> tuple[torch.Tensor, ...]:
    """torch eager's outputs for a method (raises what torch raises)."""
    inputs = tuple(t.clone() for t in method.inputs)
    with torch.no_grad():
        result = OpModule(op.fn, method.params)(*inputs)
    # A program returns the inputs it writes in place first (their write-back), then the results.
    return tuple(t.detach().clone() for t in (*inputs[:op.mutated_inputs], *as_tuple(result)))


def eager_outputs(op: Op, methods: list[Method]) -> tuple[list[Method], dict[str, str]]:
    """Run eager on every method; return those it accepts, and what it
    refused: a ScalarType name when every case of that dtype was refused,
    else the method's name."""
    accepted, refused = [], {}
    for method in methods:
        try:
            method.outputs = run_eager(op, method)
            accepted.append(method)
        except Exception as error:  # noqa: BLE001 - any refusal by torch
            refused[method.name] = one_line(error)
    unsupported: dict[str, str] = {}
    for dtype in op.dtypes:
        mine = [m for m in methods if m.dtype == dtype]
        if mine and all(m.name in refused for m in mine):
            unsupported[scalar_type_name(dtype)] = refused[mine[0].name]
            for m in mine:
                del refused[m.name]
    unsupported.update(refused)
    return accepted, unsupported
