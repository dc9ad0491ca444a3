"""What benches write: Markdown tables, cell formats, and bench/results/<name>.md
written atomically under a head naming commit and machine."""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from lib.env import REPO, RESULTS

STARTED = time.perf_counter()   # imported as a bench starts: how long it took, in finish


def markdown(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table, numeric columns right-aligned."""
    def numeric(cell: str) -> bool:
        return bool(re.fullmatch(r"[0-9.,/e+-]+x?( \(.*\))?|-|", cell))
    right = [all(numeric(str(row[i])) for row in rows) for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join("---:" if r else "---" for r in right) + " |"]
    return "\n".join(lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def ms_cell(value: float | None) -> str:
    """Milliseconds with the digits that matter."""
    if value is None:
        return "-"
    return (f"{value:.3g}" if value < 0.1 else f"{value:.4f}" if value < 1 else f"{value:.2f}" if value < 100
            else f"{value:,.0f}")


def diff_cell(result: tuple[float, bool] | None) -> str:
    """A max abs difference from torch's outputs, flagged when out of tolerance."""
    return "-" if result is None else f"{result[0]:.1e}" + ("" if result[1] else " (OUT OF TOLERANCE)")


def kb(size: float | None) -> str:
    """Bytes as KB."""
    return "-" if size is None else f"{size / 1024:,.1f}"


def machine() -> str:
    """The machine: CPU model, cores, memory, OS."""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "unknown CPU")
        release = platform.freedesktop_os_release().get("PRETTY_NAME", platform.system())
    except OSError:
        cpu, release = "unknown CPU", platform.system()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GB; {release}, Linux {platform.release()}; "
            f"Python {platform.python_version()}")


def commit() -> str:
    """`git rev-parse --short HEAD`, with "dirty" when the tree has changes."""
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=REPO, capture_output=True, text=True).stdout.strip()
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (
        " dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def results_path(name: str, suffix: str = ".md") -> Path:
    """Where results ``name`` go: bench/results/<name>.md (ETSB_BENCH_RESULTS: another folder, for trial runs)."""
    return Path(os.environ.get("ETSB_BENCH_RESULTS") or RESULTS) / f"{name}{suffix}"


def write_atomically(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def finish(name: str, text: str, problems: Sequence[object] = (), output: str = "") -> int:
    """Print a bench's report, write it to results ``output`` (default ``name``) under a head naming the
    bench, commit, machine and command line; the exit status (1 when there were problems)."""
    text += "".join(f"\nPROBLEM: {p}" for p in problems)
    print("\n" + text)
    path = results_path(output or name)
    now = datetime.datetime.now(datetime.timezone.utc)
    head = (f"# {path.stem}\n\nCommit {commit()}; {machine()}; {now:%Y-%m-%d %H:%M} UTC; load average "
            f"{os.getloadavg()[0]:.2f} at the end.\nWritten by "
            f"`.venv/bin/python {' '.join(['bench/' + name + '.py', *sys.argv[1:]])}`.\n")
    write_atomically(path, head + "\n" + text.rstrip() + "\n")
    print(f"\n(wrote {path}; bench took {time.perf_counter() - STARTED:.0f} s; load average "
          f"{os.getloadavg()[0]:.2f} at the end)")
    return 1 if problems else 0
