"""The no-op build, fast: when the last plan still holds, run ninja on it
without evaluating BUILD files, analysing targets or importing the rest of
etsb (that costs more than a whole no-op build may take)."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from selective_build.driver import state
from selective_build.driver.layout import NINJA_FILE
from selective_build.driver.plan import Plan


def noop_build(patterns: Sequence[str], jobs: int | None, defines: dict[str, str]) -> int | None:
    """``etsb build`` when the last plan for these arguments still holds:
    ninja's outcome (see :func:`report`). None when the plan must be made
    again (or ninja is not on PATH), so that the full driver takes over."""
    root = state.find_root(os.getcwd())
    if root is None:
        return None
    plan = state.current_plan(root, state.plan_key(root, state.cwd_package(root), patterns, defines))
    if plan is None:
        return None
    ninja = next((os.path.join(d, "ninja") for d in os.environ.get("PATH", "").split(os.pathsep)
                  if os.access(os.path.join(d, "ninja"), os.X_OK)), None)
    if ninja is None:
        return None
    command = [ninja, "-f", NINJA_FILE, *(["-j", str(jobs)] if jobs else []), *plan.ninja_targets]
    sys.stdout.flush()
    status = os.waitstatus_to_exitcode(os.waitpid(_spawn_in(root, ninja, command), 0)[1])
    return report(status, plan)


def report(status: int, plan: Plan) -> int:
    """After ninja: say that the build failed, or where each binary is; the exit status."""
    if status != 0:
        print("etsb: build failed", file=sys.stderr)
        return 1
    for target in plan.binaries:
        print(f"{target.label}: {target.outputs[0]}")
    return 0


def _spawn_in(directory: str, program: str, command: list[str]) -> int:
    """Start ``command`` in ``directory`` (fork and exec: cheaper than importing subprocess)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(directory)
            os.execv(program, command)
        finally:
            os._exit(127)
    return pid
