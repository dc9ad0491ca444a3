"""BUILD files evaluated by etsb's starlark-go program (``tools/starlark/``),
run as a subprocess; its JSON becomes frozen values here."""

from __future__ import annotations

import gc
import json
import os
import subprocess
from collections.abc import Mapping, Sequence

from selective_build.driver.labels import Label, package_label, split_external
from selective_build.driver.layout import EXTERNAL, EXTERNAL_DIR
from selective_build.driver.primitives import canonical_attrs, joined_list
from selective_build.driver.state import evaluator_path
from selective_build.model.errors import Location, Problem, UserError
from selective_build.model.records import record


@record
class Frame:
    """One Starlark call frame: the function and where it was called."""

    function: str
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}: in {self.function}"


@record
class Target:
    """A primitive rule call recorded while a BUILD file ran."""

    package: str
    rule: str
    name: str
    attrs: Mapping[str, object]
    stack: tuple[Frame, ...]

    @property
    def label(self) -> Label:
        """The target's label."""
        return Label(self.package, self.name)

    @property
    def location(self) -> Location:
        """Where the BUILD file made this target (its outermost frame)."""
        if not self.stack:
            return Location(f"{self.package}/BUILD" if self.package else "BUILD")
        frame = self.stack[0]
        return Location(frame.file, frame.line, frame.column)

    def backtrace(self) -> str:
        """The call stack that made the target, outermost first, one frame a line."""
        return "\n".join(f"  {frame}" for frame in self.stack)

    @property
    def tags(self) -> tuple[str, ...]:
        """The target's tags (``labels``, Buck2's spelling, included)."""
        return tuple(joined_list(canonical_attrs(self.rule, self.attrs).get("tags")))


@record
class Package:
    """An evaluated package: its targets in call order, and every file and
    directory listing its evaluation read (to know when to evaluate again)."""

    name: str
    build_file: str
    files: tuple[str, ...]
    glob_dirs: tuple[str, ...]
    targets: tuple[Target, ...]


def _file(path: str, external_dir: str = EXTERNAL_DIR) -> str:
    """A path the evaluator read, as the driver finds it from the workspace root
    (an external repository's files through its link under ``external_dir``)."""
    return external_dir + path[len(EXTERNAL):] if split_external(path) else path


def _package(entry: dict, external_dir: str = EXTERNAL_DIR) -> Package:
    name = entry["package"]
    targets = tuple(
        Target(name, t["rule"], t["name"], t["attrs"],
               tuple(Frame(f["function"], f["file"], f["line"], f["col"]) for f in t.get("stack") or ()))
        for t in entry.get("targets") or ())
    return Package(name, entry["build_file"], tuple(_file(f, external_dir) for f in entry.get("files") or ()),
                   tuple(_file(d, external_dir) for d in entry.get("glob_dirs") or ()), targets)


def _problem(entry: dict) -> Problem:
    error = entry["error"]
    message = error.get("message", "evaluation failed")
    backtrace = (error.get("backtrace") or "").rstrip()
    if backtrace.startswith("Traceback"):  # a syntax error has none: only its position again
        message += "\n" + backtrace
    return Problem(message, Location(error.get("file") or entry.get("build_file", ""),
                                     error.get("line") or 0, error.get("col") or 0))


# The memory the evaluator may use (its --max-memory-mb).
EVALUATOR_MEMORY_MB = 4096


def _evaluator_failure(run: subprocess.CompletedProcess, packages: Sequence[str]) -> UserError:
    """Why the evaluator stopped without its JSON, in one line."""
    stderr = run.stderr.decode(errors="replace")
    where = ", ".join(package_label(p) for p in packages[:3]) + (" ..." if len(packages) > 3 else "")
    if "out of memory" in stderr:
        return UserError(f"evaluating {where} needed more than {EVALUATOR_MEMORY_MB} MB of memory: a BUILD or "
                         ".bzl file builds values too large")
    first = next((line for line in stderr.splitlines() if line.strip()), "no message")
    return UserError(f"the BUILD file evaluator failed (exit {run.returncode}) on {where}: {first}")


def evaluate(root: str, packages: Sequence[str], flags: Sequence[str] = (),
             external_dir: str = EXTERNAL_DIR) -> dict[str, Package]:
    """Evaluate the BUILD files of ``packages`` (paths relative to ``root``;
    ``flags`` name the external repositories, see the evaluator's README, whose
    trees are linked under ``external_dir``, the flags' --external-dir).
    Any package that fails raises one UserError listing every failure."""
    if not packages:
        return {}
    binary = evaluator_path()
    if not os.path.exists(binary):
        from selective_build.driver import state

        if os.environ.get("ETSB_STARLARK"):
            raise UserError(f"the BUILD file evaluator {binary} (ETSB_STARLARK) does not exist")
        if not state.INSTALLED:
            raise UserError(f"the BUILD file evaluator {binary} is missing: run scripts/setup.sh")
        from selective_build.driver.evaluator_build import build_evaluator

        build_evaluator(os.path.join(state.REPO, "tools", "starlark"), binary)
    try:
        run = subprocess.run([binary, "--root", root, "--max-memory-mb", str(EVALUATOR_MEMORY_MB), *flags, "--",
                              *packages],
                             capture_output=True)
    except OSError as error:
        raise UserError(f"cannot run the BUILD file evaluator {binary}: {error.strerror}") from None
    if run.returncode not in (0, 1):
        raise _evaluator_failure(run, packages)
    if run.stderr:
        os.write(2, run.stderr)  # print() of BUILD files, as the evaluator formats it
    # Many small objects and no cycles: the collector would only slow the parse down.
    collecting = gc.isenabled()
    gc.disable()
    try:
        try:
            document = json.loads(run.stdout)
        except ValueError:
            raise UserError(f"the BUILD file evaluator failed (exit {run.returncode}): "
                            f"{run.stderr.decode(errors='replace').strip()}") from None
        problems = [_problem(entry) for entry in document["packages"] if entry.get("error")]
        if problems:
            raise UserError.of(problems)
        return {entry["package"]: _package(entry, external_dir) for entry in document["packages"]}
    finally:
        if collecting:
            gc.enable()
