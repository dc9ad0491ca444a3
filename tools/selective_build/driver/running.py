"""Running a build in a workspace: one build at a time, ninja stopped with us.

A build holds the workspace's lock (``etsb-out/.etsb/lock``) from planning to
the end of ninja's run, so two ``etsb build`` in one workspace run one after
the other (the second says that it waits), never interleaving their plans,
ninja files and actions. SIGINT, SIGTERM and SIGHUP sent to etsb are passed
on to ninja, which stops its actions; etsb then exits as the signal asked.
Only built-in modules and ``signal`` here: the no-op path runs this.
"""

from __future__ import annotations

import os
import sys

from selective_build.driver.layout import LOCK_FILE, NINJA_FILE
from selective_build.driver.plan import Plan

FORWARDED_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


class WorkspaceLock:
    """``with WorkspaceLock(root):`` holds the workspace's build lock for the block."""

    def __init__(self, root: str) -> None:
        self.path = os.path.join(root, LOCK_FILE)
        self.fd = -1

    def __enter__(self) -> "WorkspaceLock":
        import fcntl

        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("etsb: another build is running in this workspace; waiting for it to finish", file=sys.stderr,
                  flush=True)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exception) -> None:
        os.close(self.fd)  # closing the descriptor releases the lock


def find_ninja() -> str | None:
    """ninja on PATH, or None."""
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, "ninja")
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def run_ninja(root: str, ninja: str, targets, jobs: int | None = None, quiet: bool = False) -> int:
    """Run ninja on ``targets`` in ``root``; its exit status (128 + the signal
    when etsb was told to stop). Quiet runs keep ninja's progress to
    themselves and print its output only when it fails (ninja prints a failing
    command's output on stdout)."""
    import signal

    command = [ninja, "-f", NINJA_FILE, *(["-j", str(jobs)] if jobs else []), *targets]
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe() if quiet else (-1, -1)
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(root)
            if quiet:
                os.dup2(write_end, 1)
                os.dup2(write_end, 2)
            os.execv(ninja, command)
        finally:
            os._exit(127)
    received: list[int] = []

    def forward(signum, frame) -> None:
        received.append(signum)
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    previous = {name: signal.signal(getattr(signal, name), forward) for name in FORWARDED_SIGNALS}
    try:
        output = b""
        if quiet:
            os.close(write_end)
            with os.fdopen(read_end, "rb") as pipe:
                output = pipe.read()
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)
    if received:
        return 128 + received[0]
    if quiet and status != 0:
        sys.stderr.write(output.decode(errors="replace"))
    return status


def report(status: int, plan: Plan) -> int:
    """After ninja: say that the build failed or stopped, or where each binary is; the exit status."""
    if status > 128:
        print("etsb: build stopped", file=sys.stderr)
        return status
    if status != 0:
        print("etsb: build failed", file=sys.stderr)
        return 1
    for target in plan.binaries:
        print(f"{target.label}: {target.outputs[0]}")
    return 0
