"""A program's timed runs in a model runner under `/usr/bin/time`: each side's
outputs first checked in a run of 3 iterations (a failing side is a problem,
or for an optional side a note, and is not timed), then R interleaved rounds
of one process per side (A B C A B C ...), each of `--iterations 1+N` (N for
~0.3 s of runs, at least --runs, at most 5000) or a fixed count; the runner
prints its median after the warm-up run, tables show the median over the R processes.
Also the summaries of the timed results: ratios, their geometric means, CPU shares."""

from __future__ import annotations

import math
import os
import re
import shutil
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from lib.models import Model, difference, runner_command
from lib.timing import geomean, interleaved

LATENCY_LINE = re.compile(r"median latency: ([0-9.]+) ms over (\d+) runs")
THREADS_VARIABLE = "ETSB_BENCH_ET_THREADS"   # read by the peer's entry point (files/one_thread.cpp)
CHECK_ITERATIONS = 3       # the correctness run: a warm-up and a first latency too
PROCESS_MS = 300.0         # adaptive runs per timed process: enough for about this long
MAX_ITERATIONS = 5000


@dataclass(frozen=True)
class Run:
    """One process: the runner's median ms, peak RSS (KB), CPU and wall seconds, or what went wrong."""

    ms: float | None
    rss_kb: int
    cpu_s: float
    wall_s: float
    problem: str | None


def child_env(threads: int | None) -> dict[str, str]:
    """A timed process's environment: the peer's pool sized to ``threads`` (None:
    ETSB_BENCH_ET_THREADS as set, else 1; 0: the library's default); OMP_NUM_THREADS=1."""
    count = os.environ.get(THREADS_VARIABLE, "1") if threads is None else str(threads)
    return dict(os.environ, OMP_NUM_THREADS="1", **{THREADS_VARIABLE: count})


def run_process(binary: Path, model: Model, out: Path, iterations: int, tmp: Path, threads: int | None = None) -> Run:
    """Run ``model`` in ``binary`` once under a fresh GNU `/usr/bin/time` (not os.wait4:
    a vforked child's ru_maxrss starts at the Python process's RSS); with
    ``threads`` N > 0, `--threads N` (and the peer's entry point told the same)."""
    shutil.rmtree(out, ignore_errors=True)
    usage = tmp / "usage"
    command = ["/usr/bin/time", "-f", "%M %U %S", "-o", str(usage),
               *runner_command(binary, model, out, "--iterations", str(iterations),
                               *(["--threads", str(threads)] if threads else []))]
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=child_env(threads), check=False)
    wall = time.perf_counter() - start
    try:
        rss, user, system = usage.read_text().split()[-3:]
        rss_kb, cpu = int(rss), float(user) + float(system)
    except (OSError, ValueError):
        rss_kb, cpu = 0, 0.0
    if run.returncode != 0:
        first = [line for line in run.stderr.strip().splitlines() if not line.startswith("Command exited")]
        return Run(None, rss_kb, cpu, wall, "fails: " + " / ".join(first[:2] or [f"exit {run.returncode}"]))
    match = LATENCY_LINE.search(run.stdout)
    problem = None if match else f"no latency line in {run.stdout!r}"
    return Run(float(match.group(1)) if match else None, rss_kb, cpu, wall, problem)


@dataclass(frozen=True)
class Timed:
    """One program, per side: median ms and peak RSS (KB), CPU/wall, output differences, runs a process, each round's ms."""

    name: str
    flops: int
    ms: dict
    rss_kb: dict
    cpu_share: dict
    diffs: dict
    iterations: dict
    samples: dict   # side -> each timed process's ms, in round order

    def ratio(self, side: str = "ours", base: str = "ET") -> float | None:
        """``side``'s latency over ``base``'s, when both were timed."""
        return self.ms[side] / self.ms[base] if side in self.ms and base in self.ms else None

    def round_ratios(self, side: str = "ours", base: str = "ET") -> list[float]:
        """``side`` / ``base`` within each round (the processes ran back to back)."""
        return [a / b for a, b in zip(self.samples.get(side, ()), self.samples.get(base, ()))]

    def gflops(self, side: str) -> float | None:
        """The program's FLOPs over ``side``'s latency."""
        return self.flops / self.ms[side] / 1e6 if self.flops and side in self.ms else None


@dataclass(frozen=True)
class Plan:
    """How bench_items times (the module's docstring); per side, another program
    of the same model and a thread count; sides whose failure is only a note."""

    rounds: int
    runs: int = 5
    fixed: int = 0
    programs: Mapping[str, Mapping[str, Model]] | None = None
    threads: Mapping[str, int] | None = None
    optional: tuple[str, ...] = ()
    flops: Callable[[Path], int] | None = None


def check_sides(item: Model, sides: Mapping[str, Mapping[str, Path]], plan: Plan, tmp: Path,
                program: Mapping[str, Model], notes: list[str]) -> tuple[dict, dict, dict, list[str]]:
    """The correctness run of every side with a binary of ``item``: (usable binaries, differences, first ms, problems)."""
    usable, diffs, first, problems = {}, {}, {}, []
    for side, binaries in sides.items():
        if item.name not in binaries:   # a side that has no binary of this program (no delegated twin)
            continue
        run = run_process(binaries[item.name], program[side], tmp / "check", CHECK_ITERATIONS, tmp,
                          (plan.threads or {}).get(side))
        problem = run.problem
        if not problem:
            diffs[side] = difference(program[side], tmp / "check")
            if not diffs[side][1]:
                problem = (f"outputs out of tolerance (max abs diff {diffs[side][0]:.3g}, "
                           f"atol {program[side].atol:.1e})")
        if problem and side in plan.optional:
            notes.append(f"{item.name}: {side} cannot serve it ({problem}); not timed")
        elif problem:
            problems.append(f"{item.name}, {side}: {problem}")
        else:
            usable[side], first[side] = binaries[item.name], run.ms
    return usable, diffs, first, problems


def bench_items(items: Sequence[Model], sides: Mapping[str, Mapping[str, Path]], plan: Plan,
                tmp: Path) -> tuple[list[Timed], list[str], list[str]]:
    """Check, then time, every item on every side (interleaved rounds): the
    results, the problems (a failure or a wrong output), notes on optional sides."""
    results, problems, notes = [], [], []
    for item in items:
        program = {side: (plan.programs or {}).get(side, {}).get(item.name, item) for side in sides}
        usable, diffs, first, found = check_sides(item, sides, plan, tmp, program, notes)
        problems += found
        iterations = {side: plan.fixed or max(plan.runs, min(MAX_ITERATIONS, math.ceil(PROCESS_MS / max(ms, 1e-3))))
                      for side, ms in first.items()}

        def timed(side: str, index: int) -> Run | None:
            count = iterations[side] + (not plan.fixed)   # adaptive: one warm-up run more
            run = run_process(usable[side], program[side], tmp / "timed", count, tmp, (plan.threads or {}).get(side))
            if run.problem:
                problems.append(f"{item.name}, {side}, timed: {run.problem}")
            return None if run.problem else run

        samples = {side: s for side, s in interleaved(list(usable), plan.rounds, timed).items() if s}
        results.append(Timed(item.name, plan.flops(item.pte) if plan.flops and item.method == "forward" else 0,
                             {side: statistics.median(r.ms for r in s) for side, s in samples.items()},
                             {side: statistics.median(r.rss_kb for r in s) for side, s in samples.items()},
                             {side: max(r.cpu_s / r.wall_s for r in s) for side, s in samples.items()},
                             diffs, iterations, {side: tuple(r.ms for r in s) for side, s in samples.items()}))
        print(f"  {item.name}: " + ", ".join(f"{side} {v:.4g} ms" for side, v in results[-1].ms.items())
              + " [runs/process: " + ", ".join(f"{k} {v}" for k, v in iterations.items()) + "]", flush=True)
    return results, problems, notes


def cpu_note(results: Sequence[Timed], keys: Sequence[str], more: str = "") -> str:
    """CPU time / wall time of the timed processes per side: how many cores were busy."""
    parts = [f"{key} median {statistics.median(shares):.2f}, max {max(shares):.2f}" for key in keys
             if (shares := [t.cpu_share[key] for t in results if key in t.cpu_share])]
    return f"CPU time / wall time of the timed processes (start-up included; 1.00 = one busy core{more}): " + \
        "; ".join(parts) + "."
def ratio_cell(ratio: float | None) -> str:
    """A ratio of latencies, marked par or SLOWER."""
    if ratio is None:
        return "-"
    text = f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"
    return text + (" (par)" if text == "1.00x" else " (SLOWER)" if ratio > 1 else "")


def summary(results: list[Timed], side: str, base: str) -> str:
    """Geometric mean and range of side/base, and every program where the side is slower."""
    ratios = [(t.name, t.ratio(side, base)) for t in results if t.ratio(side, base)]
    if not ratios:
        return f"{side}/{base}: nothing timed on both sides"
    spread = {t.name: t.round_ratios(side, base) for t in results}
    slower = [f"{n} {r:.2f}x (rounds {min(spread[n]):.2f}-{max(spread[n]):.2f})"
              for n, r in sorted(ratios, key=lambda item: -item[1]) if r >= 1.005]
    par = [n for n, r in ratios if 0.995 < r < 1.005]
    values = [r for _, r in ratios]
    return (f"{side}/{base}: geometric mean {geomean(values):.3g}x, range {min(values):.2g}-{max(values):.2f}x "
            f"over {len(values)}; {side} faster on {sum(r <= 0.995 for r in values)}"
            + (f", par (within 0.5%) on {', '.join(par)}" if par else "")
            + (f"; SLOWER on {len(slower)}: {', '.join(slower)}" if slower else "; slower on none"))


