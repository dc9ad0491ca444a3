"""The no-op build, fast: when the last plan still holds, run ninja on it
without importing the rest of etsb (argparse and the data model cost more
than the whole no-op build may take)."""

from __future__ import annotations

import os
import sys

from selective_build.build import state


def noop_build(argv: list[str]) -> int | None:
    """``etsb build [-j N] LABEL...`` when its plan is current: ninja's status.
    None when the plan must be made again (or the arguments are unusual), so
    that the full driver takes over."""
    jobs, labels = None, []
    arguments = iter(argv)
    for argument in arguments:
        if argument in ("-j", "--jobs"):
            jobs = next(arguments, None)
            if jobs is None or not jobs.isdigit():
                return None
        elif argument.startswith("-j") and argument[2:].isdigit():
            jobs = argument[2:]
        elif argument.startswith("--jobs=") and argument[7:].isdigit():
            jobs = argument[7:]
        elif argument.startswith("-"):
            return None
        else:
            labels.append(argument)
    root = state.find_root(os.getcwd())
    if root is None:
        return None
    plan = state.current_plan(root, state.plan_key(root, state.cwd_package(root), labels or ["//..."], {}))
    if plan is None:
        return None
    ninja = next((os.path.join(d, "ninja") for d in os.environ.get("PATH", "").split(os.pathsep)
                  if os.access(os.path.join(d, "ninja"), os.X_OK)), None)
    if ninja is None:
        return None
    command = [ninja, "-f", os.path.join("etsb-out", "build.ninja"), *(["-j", jobs] if jobs else []),
               *plan["targets"]]
    sys.stdout.flush()
    status = os.waitstatus_to_exitcode(os.waitpid(_spawn_in(root, ninja, command), 0)[1])
    return report(status, plan)


def report(status: int, plan: dict) -> int:
    """After ninja: say that the build failed, or where each binary is; the exit status."""
    if status != 0:
        print("etsb: build failed", file=sys.stderr)
        return 1
    for label in plan["binaries"]:
        print(f"{label}: {plan['outputs'][label][0]}")
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
