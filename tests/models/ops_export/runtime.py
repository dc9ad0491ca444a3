"""Running a checking program with ExecuTorch's own runtime: each method after
one that poisons the shared memory arena, compared with eager."""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field

import torch

from ops_export.compare import compare
from ops_export.methods import Method, as_tuple, one_line


# The method that only the checking copy of a program has (see `lowering.lower`).
POISON_METHOD = "poison_arena"
# Its output: NaN float32s, more bytes than any case's planned memory.
POISON_ELEMENTS = 1 << 14


class PoisonArena(torch.nn.Module):
    """A method that fills the start of the shared memory arena with NaN."""

    def forward(self) -> torch.Tensor:
        return torch.full((POISON_ELEMENTS,), float("nan"))


@dataclass
class RuntimeCheck:
    """What ExecuTorch's runtime made of an operator's methods."""

    diffs: dict[str, float] = field(default_factory=dict)       # method -> max |diff| vs eager
    mismatches: dict[str, str] = field(default_factory=dict)    # ran, but to other values
    failures: dict[str, str] = field(default_factory=dict)      # could not load or run, or wrong outputs
    unrun: dict[str, str] = field(default_factory=dict)         # the runtime lacks the operator: kept, unchecked


# ExecuTorch's error codes (runtime/core/error.h) seen when a method fails.
RUNTIME_ERRORS = {"0x12": "InvalidArgument", "0x14": "OperatorMissing", "0x10": "NotSupported",
                  "0x11": "NotImplemented", "0x22": "MemoryAllocationFailed"}


@contextlib.contextmanager
def native_stderr(lines: list[str]):
    """Collect what native code writes to file descriptor 2 (ExecuTorch's
    log) into ``lines`` instead of the terminal."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            yield lines
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            lines.extend(sink.read().decode(errors="replace").splitlines())


def runtime_failure(error: BaseException, log: list[str]) -> str:
    """Why ExecuTorch failed a method: its error code by name and the first
    check that failed (or the missing operator), from its log."""
    text = one_line(error)
    code = re.search(r"0x:?([0-9a-f]+)", text)
    name = RUNTIME_ERRORS.get(f"0x{code.group(1)}", "") if code else ""
    detail = next((line.split("] ", 1)[-1] for line in log
                   if "Check failed" in line or "Missing operator" in line), "")
    return "runtime: " + ", ".join(part for part in (text, name, detail) if part)


def _outputs_on_executorch(program, method: Method) -> tuple[torch.Tensor, ...]:
    return tuple(t.clone() for t in as_tuple(program.load_method(method.name).execute(list(method.inputs))))


def run_on_executorch(buffer: bytes, methods: list[Method]) -> RuntimeCheck:
    """Run every method of the checking program (`lower`) with ExecuTorch's
    pybindings runtime, each after `POISON_METHOD`, and compare with eager.
    A method that cannot load or run, or whose outputs differ from eager's in
    number, dtype or shape, is a failure; one that runs to values outside the
    tolerance is a mismatch (kept: eager is the reference)."""
    from executorch.runtime import Runtime

    check = RuntimeCheck()
    with native_stderr([]):
        program = Runtime.get().load_program(buffer)
        poison = program.load_method(POISON_METHOD)
    for method in methods:
        poison.execute([])
        _check_method(program, method, check)
    return check


def _check_method(program, method: Method, check: RuntimeCheck) -> None:
    """Run one method and record the outcome in ``check``."""
    log: list[str] = []
    try:
        with native_stderr(log):
            got = _outputs_on_executorch(program, method)
    except Exception as error:  # noqa: BLE001 - an ExecuTorch runtime limitation
        check.failures[method.name] = runtime_failure(error, log)
        return
    layout = [(t.dtype, tuple(t.shape)) for t in got]
    expected = [(t.dtype, tuple(t.shape)) for t in method.outputs]
    if layout != expected:
        check.failures[method.name] = f"runtime outputs {layout}, eager {expected}"
        return
    check.diffs[method.name] = 0.0
    for i, (want, have) in enumerate(zip(method.outputs, got)):
        reason, diff = compare(want, have)
        check.diffs[method.name] = max(check.diffs[method.name], diff)
        if reason and method.name not in check.mismatches:
            check.mismatches[method.name] = f"output {i}: {reason}"
