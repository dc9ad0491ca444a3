"""Running a build in a workspace: one build at a time, ninja stopped with us.

A build holds the workspace's lock (``etsb-out/.etsb/lock``) from planning to
the end of ninja's run, so two ``etsb build`` in one workspace run one after
the other (the second says that it waits), never interleaving their plans,
ninja files and actions (whatever their configurations: they share the
source digests and the external repositories' links). Each build points
``etsb-out/bin`` at its configuration's outputs. SIGINT, SIGTERM and SIGHUP
sent to etsb are passed on to ninja, which stops its actions; etsb then
exits as the signal asked.
Only built-in modules and ``signal`` here: the no-op path runs this.
"""

from __future__ import annotations

import os
import sys

from selective_build.driver.layout import BIN, DEVELOPMENT_RUNNER, LOCK_FILE, OUT, RETIRED, bin_dir, ninja_file
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


def point_bin_link(root: str, folder: str) -> None:
    """Point ``etsb-out/bin`` at the bin folder of the configuration folder
    ``folder`` (relative to ``root``), as Bazel's ``bazel-bin``: a new link,
    then a rename, so that a reader sees the old or the new one. Outputs of
    the layout before configuration folders (``etsb-out/bin`` a folder) go
    first."""
    link = os.path.join(root, BIN)
    target = os.path.relpath(bin_dir(folder), OUT)
    if os.path.islink(link):
        if os.readlink(link) == target:
            return
    elif os.path.isdir(link):
        _retire_old_layout(root)
    temporary = f"{link}.{os.getpid()}.tmp"
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink(target, temporary)
    os.replace(temporary, link)


def _retire_old_layout(root: str) -> None:
    """Remove what the layout before configuration folders kept directly in etsb-out."""
    import shutil

    for name in RETIRED:
        path = os.path.join(root, OUT, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.remove(path)


def run_ninja(root: str, ninja: str, folder: str, targets, jobs: int | None = None, quiet: bool = False,
              progress=None, transcript: list | None = None) -> int:
    """Run ninja on ``targets`` of the ninja file of the configuration folder
    ``folder``, in ``root``; its exit status (128 + the signal when etsb was
    told to stop). Its output is relayed line by line (to ``progress``, stdout
    by default), a failed
    action's command line replaced by where the BUILD file made its target
    (see :func:`relay`). Quiet runs keep ninja's progress to themselves and
    print its output only when it fails (ninja prints a failing command's
    output on stdout). What ninja said, reworded, goes to ``transcript`` if given."""
    import signal

    command = [ninja, "-f", ninja_file(folder), *(["-j", str(jobs)] if jobs else []), *targets]
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(root)
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
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            relayed = relay(os.path.join(root, ninja_file(folder)), pipe, None if quiet else progress or sys.stdout)
        status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)
    if transcript is not None:
        transcript.append(relayed)
    if received:
        return 128 + received[0]
    if quiet and status != 0:
        sys.stderr.write(relayed)
    return status


def relay(ninja_path: str, pipe, out) -> str:
    """Copy ninja's output from ``pipe`` to ``out`` (None: keep it) as it
    comes, and return it, reworded: a failed action's ``FAILED: <outputs>``
    and command line become ``<BUILD file:line>: error: <action> failed
    (<first output>):`` (what follows is the action's own output: etsb's
    errors, the compiler's; the action's place read from the ninja file at
    ``ninja_path``), and ninja's closing "build stopped" line goes (etsb
    says it)."""
    kept = []
    skip_command = False
    for raw in iter(pipe.readline, b""):
        line = raw.decode(errors="replace")
        if skip_command:
            skip_command = False
            continue
        failed = _failure_at(line)
        if failed:
            line = _failure_header(ninja_path, line[failed:].split())
            skip_command = True
        elif line.startswith("ninja: build stopped"):
            continue
        kept.append(line)
        if out is not None:
            out.write(line)
            out.flush()
    return "".join(kept)


def _failure_at(line: str) -> int:
    """Where the outputs start in ninja's failure line (``FAILED: <outputs>``,
    newer ninjas put ``[code=N] `` first); 0 for any other line."""
    if line.startswith("FAILED: "):
        return len("FAILED: ")
    if line.startswith("[code="):
        end = line.find("] FAILED: ")
        if end > len("[code=") and line[len("[code="):end].isdigit():
            return end + len("] FAILED: ")
    return 0


def _outputs_of(build_line: str) -> list[str]:
    """The (escaped) outputs of a ninja ``build`` line: up to its first unescaped colon."""
    import re

    return re.split(r"(?<!\$):", build_line[len("build "):], maxsplit=1)[0].split()


def _failure_header(ninja_path: str, outputs: list[str]) -> str:
    """``<where>: error: <description> failed:`` for the ninja edge writing
    ``outputs``, from the ninja file's ``desc`` and ``where`` of that edge."""
    from selective_build.driver.ninja import escape_path

    wanted = escape_path(outputs[0]) if outputs else ""
    description, where = "an action", ""
    try:
        with open(ninja_path, encoding="utf-8") as handle:
            lines = iter(handle)
            for line in lines:
                if line.startswith("build ") and wanted in _outputs_of(line):
                    for variable in lines:
                        if not variable.startswith("  "):
                            break
                        name, _, value = variable.strip().partition(" = ")
                        if name == "desc":
                            description = value
                        elif name == "where":
                            where = value
                    break
    except OSError:
        pass
    output = f" ({outputs[0]})" if outputs else ""
    return f"{where + ': ' if where else ''}error: {description} failed{output}:\n"


def report(status: int, plan: Plan, sizes: dict | None = None) -> int:
    """After ninja: what the plan notes, then that the build failed or stopped,
    or where each binary is (a deploy binary, the one built to ship, with its
    size: ``sizes``, label -> what :func:`shipped_sizes` says, when known); the exit status."""
    for note in plan.notes:
        print(note, file=sys.stderr)
    if status > 128:
        print("etsb: build stopped", file=sys.stderr)
        return status
    if status != 0:
        print("etsb: build failed", file=sys.stderr)
        return 1
    if sizes is None:
        sizes = shipped_sizes(plan)
    for target in plan.binaries:
        size = sizes.get(target.label)
        print(f"{target.label}: {target.outputs[0]}{f' ({size})' if size else ''}")
    return 0


def shipped_sizes(plan: Plan) -> dict[str, str]:
    """The size of each deploy binary of the plan (built to ship; see
    :func:`~selective_build.driver.pick.shipped_size`), by label."""
    deployed = [target for target in plan.binaries if target.runner != DEVELOPMENT_RUNNER]
    if not deployed:
        return {}
    from selective_build.driver.pick import shipped_size
    from selective_build.driver.state import root_or_none

    root = root_or_none(os.getcwd()) or ""
    return {target.label: shipped_size(os.path.join(root, target.outputs[0])) for target in deployed}
