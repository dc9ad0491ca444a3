"""What benches print and write: plain and Markdown tables, cell formats, and
bench/results/<name>.md written atomically under a head naming commit and machine."""

from __future__ import annotations

import datetime
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Sequence

from lib.env import REPO, RESULTS


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table with aligned columns (numbers right-aligned)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: list[str], is_header: bool = False) -> str:
        numeric = [not is_header and c.replace(".", "").replace("x", "").replace("-", "").isdigit() for c in row]
        return "  ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(row, widths, numeric)).rstrip()

    return "\n".join([line(cells[0], True), "  ".join("-" * w for w in widths), *(line(r) for r in cells[1:])])


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


def mb(kb_value: float | None) -> str:
    """KB as MB."""
    return "-" if kb_value is None else f"{kb_value / 1024:.1f}"


def machine() -> str:
    """The machine: CPU model, cores, memory, OS."""
    try:
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "unknown CPU")
    except OSError:
        cpu = "unknown CPU"
    try:
        release = platform.freedesktop_os_release().get("PRETTY_NAME", platform.system())
    except OSError:
        release = platform.system()
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GB; {release}, Linux {platform.release()}; "
            f"Python {platform.python_version()}")


def commit() -> str:
    """`git rev-parse --short HEAD`, with "dirty" when the tree has changes."""
    def git(*argv: str) -> str:
        return subprocess.run(["git", *argv], cwd=REPO, capture_output=True, text=True).stdout.strip()
    return (git("rev-parse", "--short", "HEAD") or "unknown") + (
        " dirty" if git("status", "--porcelain", "--untracked-files=no") else "")


def header(name: str, title: str) -> str:
    """The head of results file ``title``: what wrote it (bench ``name``), at which commit, on which machine."""
    command = " ".join(["bench/" + name + ".py", *sys.argv[1:]])
    return (f"# {title}\n\nCommit {commit()}; {machine()}; "
            f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; load average "
            f"{os.getloadavg()[0]:.2f} at the end.\nWritten by `.venv/bin/python {command}`.\n")


def write_atomically(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)
    return path


def results_path(name: str) -> Path:
    """Where results ``name`` go: bench/results/<name>.md."""
    return RESULTS / f"{name}.md"


def finish(name: str, text: str, started: float, problems: Sequence[object] = (), output: str = "") -> int:
    """Print a bench's report, write it with its head to results ``output`` (default
    ``name``), say how long the run took; the exit status (1 when there were problems)."""
    text += "".join(f"\nPROBLEM: {p}" for p in problems)
    print("\n" + text)
    path = results_path(output or name)
    write_atomically(path, header(name, path.stem) + "\n" + text.rstrip() + "\n")
    print(f"\n(wrote {path}; bench took {time.perf_counter() - started:.0f} s; load average "
          f"{os.getloadavg()[0]:.2f} at the end)")
    return 1 if problems else 0


def cpu_note(results: Sequence, sides: Sequence[tuple[str, str]], more: str = "") -> str:
    """CPU time / wall time of the timed processes per side (key, label): how many cores were busy."""
    parts = [f"{label} median {statistics.median(shares):.2f}, max {max(shares):.2f}" for key, label in sides
             if (shares := [t.cpu_share[key] for t in results if key in t.cpu_share])]
    return f"CPU time / wall time of the timed processes (start-up included; 1.00 = one busy core{more}): " + \
        "; ".join(parts) + "."
