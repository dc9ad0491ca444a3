"""What the tests of the Starlark evaluator (tools/starlark) share: the
evaluator binary, checked to be current, writing a workspace's files, and
running the evaluator on it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import REPO

SOURCE_DIR = REPO / "tools" / "starlark"


def current_evaluator() -> Path:
    """The evaluator that scripts/setup.sh builds (scripts/test.sh runs it first),
    checked to be newer than every Go source, so that no stale binary is tested."""
    from selective_build.driver.state import evaluator_path

    binary = Path(evaluator_path())
    assert binary.is_file(), f"no {binary}: run scripts/setup.sh"
    stale = [source.name for source in SOURCE_DIR.glob("*.go")
             if not source.name.endswith("_test.go") and source.stat().st_mtime > binary.stat().st_mtime]
    assert not stale, f"{binary} is older than {stale}: run scripts/setup.sh"
    return binary


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path relative to ``root``: text) under ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


class Run:
    """One run of the evaluator: its exit status, output, and output parsed as JSON."""

    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = json.loads(proc.stdout) if proc.stdout else None

    def package(self, index: int = 0) -> dict:
        """The ``index``-th package of the output."""
        return self.json["packages"][index]

    def targets(self, index: int = 0) -> dict[str, dict]:
        """The targets of the ``index``-th package, by name."""
        return {t["name"]: t for t in self.package(index)["targets"]}


def evaluate(binary: Path, root: Path, *packages: str, jobs: int | None = None) -> Run:
    """Evaluate ``packages`` of the workspace at ``root``."""
    args = [str(binary), "--root", str(root)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    proc = subprocess.run(args + list(packages), capture_output=True, text=True, timeout=60)
    return Run(proc)
