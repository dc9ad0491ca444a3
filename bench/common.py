"""Shared benchmark helpers: interleaved process timing and plain-text tables."""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parent.parent
VENV_PYTHON = REPO / ".venv" / "bin" / "python"


def child_environment() -> dict[str, str]:
    """The environment commands are timed in: Python may cache bytecode (as it
    does for any user; pip compiled the peers' at install time), so that no
    side pays for compiling its modules on every run."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_commands(commands: dict[str, Sequence[str]], runs: int) -> dict[str, float]:
    """Median wall time in ms of each command, run interleaved (A B A B ...) so
    that drift in machine load affects them alike, after one untimed run of
    each (which caches bytecode). A failing command raises."""
    env = child_environment()
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for run in range(runs + 1):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
            if run:
                samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def time_call(function: Callable[[], object], runs: int) -> float:
    """Median wall time in ms of an in-process call."""
    values = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        values.append((time.perf_counter() - start) * 1000)
    return statistics.median(values)


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain-text table with aligned columns (numbers right-aligned)."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row, is_header=False):
        parts = []
        for i, cell in enumerate(row):
            numeric = not is_header and cell.replace(".", "").replace("x", "").replace("-", "").isdigit()
            parts.append(cell.rjust(widths[i]) if numeric else cell.ljust(widths[i]))
        return "  ".join(parts).rstrip()

    out = [line(cells[0], True), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in cells[1:]]
    return "\n".join(out)


def finish(text: str, output: Path | None, started: float, problems: Sequence[object]) -> int:
    """Print a benchmark's report, write it to ``output`` when given, say how
    long the run took and the load at its end; the exit status (1 when there
    were problems)."""
    print("\n" + text)
    if output:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text + "\n")
    print(f"\n(bench took {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.2f} at the end)")
    return 1 if problems else 0
