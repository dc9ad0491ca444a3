"""Lowering an operator's methods to one ExecuTorch program (and a checking
copy), dropping what ExecuTorch cannot export or run."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import torch

from ops_cases.vocabulary import Op
from ops_export.methods import Method, OpModule, one_line
from ops_export.runtime import POISON_METHOD, PoisonArena, RuntimeCheck, run_on_executorch


class PreservedOps(list):
    """``EdgeCompileConfig.preserve_ops`` that survives ExecuTorch 1.5.1's
    verifiers.  Each one does ``ops = preserve_ops or []`` then
    ``ops.extend(config.preserve_ops)``, and ``to_edge`` passes it the
    config's own list: every verifier doubles the list in place, so a program
    of some 30 methods grows it past memory (measured: 20 GB and climbing).
    Extending the list with itself is a no-op here."""

    def extend(self, other) -> None:
        if other is not self:
            super().extend(other)


@dataclass
class Lowered:
    """An operator's program, and a copy for checking it at run time that
    has one more method, `POISON_METHOD`."""

    program: Any
    checked: bytes


def lower(op: Op, methods: list[Method]) -> Lowered:
    """torch.export every method, then one multi-method ExecuTorch program.

    The methods of a program share their memory arenas at run time, and a
    fresh arena is zeros, so a kernel that leaves output elements unwritten
    can pass by luck.  The checking copy also holds `PoisonArena`, run before
    every method: memory is planned method by method, so the other methods
    are the same in both copies."""
    from executorch.exir import (
        EdgeCompileConfig,
        EdgeProgramManager,
        ExecutorchBackendConfig,
        to_edge,
    )

    exported = {m.name: torch.export.export(OpModule(op.fn, m.params), m.inputs) for m in methods}
    exported[POISON_METHOD] = torch.export.export(PoisonArena(), ())
    config = EdgeCompileConfig(_check_ir_validity=False, preserve_ops=PreservedOps(op.preserve),
                               _skip_dim_order=op.skip_dim_order)
    backend = ExecutorchBackendConfig(remove_view_copy=False, run_reinplace_pass=op.reinplace)
    edge = to_edge(exported, compile_config=config)
    # to_executorch transforms the edge programs in place: the copy goes first.
    checked = copy.deepcopy(edge).to_executorch(backend).buffer
    cases = EdgeProgramManager({m.name: edge.exported_program(m.name) for m in methods}, compile_config=config)
    return Lowered(cases.to_executorch(backend), checked)


def lower_isolating(op: Op, methods: list[Method]) -> tuple[Lowered | None, list[Method], dict[str, str]]:
    """Lower all methods; when that fails, lower each alone to find the ones
    ExecuTorch cannot export, and lower the rest."""
    try:
        return lower(op, methods), methods, {}
    except Exception as error:  # noqa: BLE001 - isolated below
        together = one_line(error)
    failed = {}
    for method in methods:
        try:
            lower(op, [method])
        except Exception as error:  # noqa: BLE001 - an ExecuTorch export limitation
            failed[method.name] = "export: " + one_line(error)
    if not failed:
        raise SystemExit(f"{op.name}: the methods lower one by one but not together: {together}")
    kept = [m for m in methods if m.name not in failed]
    return (lower(op, kept) if kept else None), kept, failed


def build_program(op: Op, methods: list[Method]):
    """Lower and check; drop (and say why) what ExecuTorch cannot export or
    run.  Returns the program (None if nothing is left), the methods kept,
    the runtime check of those, and the skipped ones."""
    lowered, kept, skipped = lower_isolating(op, methods)
    if lowered is None:
        return None, [], RuntimeCheck(), skipped
    check = run_on_executorch(lowered.checked, kept)
    # ExecuTorch's own runtime may lack a kernel for the operator: such cases
    # stay (eager is the reference), recorded as not run by it.
    unrun = {name: why for name, why in check.failures.items()
             if f"Missing operator: [0] {op.name}" in why or op.executorch_refuses}
    dropped = {name: why for name, why in check.failures.items() if name not in unrun}
    if dropped:
        skipped.update(dropped)
        kept = [m for m in kept if m.name not in dropped]
        if not kept:
            return None, [], RuntimeCheck(), skipped
        lowered = lower(op, kept)
    if dropped or unrun:
        check = run_on_executorch(lowered.checked, [m for m in kept if m.name not in unrun])
        if check.failures:
            raise SystemExit(f"{op.name}: methods failed only after re-lowering: {check.failures}")
    check.unrun = unrun
    return lowered.program, kept, check, skipped
