"""Timed runs of programs in a model runner. Latency: each side's outputs
first checked in a run of 3 iterations (a failing side is a problem, or for an
optional side a note, and is not timed), then R interleaved rounds of one
process per side (A B C A B C ...) under `/usr/bin/time`, each of
`--iterations 1+N` (N for ~0.3 s of runs, at least --runs, at most 5000) or a
fixed count; the runner prints its median after the warm-up run, tables show
the median over the R processes; the summaries: ratios, their geometric means,
CPU shares. Greedy generation with the LLM decoders, timed whole-process: the
runner's `--prompt IDS --generate N` prints the tokens and no timing, so each
round runs `--generate 0` (load + prompt) and `--generate N` back to back, and
the decode rate is N over their difference in CPU time (user + system, from the
children's rusage: the work done, less sensitive than wall time to other load);
every run's tokens are checked against torch's first."""

from __future__ import annotations

import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from lib.models import Decoder, Model, difference, runner_command
from lib.results import markdown, ms_cell
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


def run_process(binary: Path, model: Model, out: Path, iterations: int, tmp: Path, threads: int | None = None,
                *extra: str) -> Run:
    """Run ``model`` in ``binary`` once under a fresh GNU `/usr/bin/time` (not os.wait4: a vforked child's
    ru_maxrss starts at the Python process's RSS); with ``threads`` N > 0, `--threads N` (and the peer's
    entry point told the same); ``extra``: more of the runner's options."""
    shutil.rmtree(out, ignore_errors=True)
    usage = tmp / "usage"
    command = ["/usr/bin/time", "-f", "%M %U %S", "-o", str(usage), *runner_command(
        binary, model, out, "--iterations", str(iterations), *(["--threads", str(threads)] if threads else []), *extra)]
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
    return Run(float(match.group(1)) if match else None, rss_kb, cpu, wall,
               None if match else f"no latency line in {run.stdout!r}")


def usable_sides(name: str, sides: Sequence[str], check: Callable[[str], str | None], optional: Sequence[str],
                 problems: list[str], notes: list[str]) -> list[str]:
    """The ``sides`` whose ``check`` finds no problem; the others' problems appended to ``problems`` (an
    ``optional`` side's to ``notes``: it cannot serve program ``name`` and is not timed)."""
    usable = []
    for side in sides:
        if (problem := check(side)) and side in optional:
            notes.append(f"{name}: {side} cannot serve it ({problem}); not timed")
        elif problem:
            problems.append(f"{name}, {side}: {problem}")
        else:
            usable.append(side)
    return usable


@dataclass(frozen=True)
class Timed:
    """One program, per side: median ms and peak RSS (KB), CPU/wall, output differences, each round's ms."""

    name: str
    flops: int
    ms: dict
    rss_kb: dict
    cpu_share: dict
    diffs: dict
    samples: dict   # side -> each timed process's ms, in round order

    def ratio(self, side: str, base: str) -> float | None:
        """``side``'s latency over ``base``'s, when both were timed."""
        return self.ms[side] / self.ms[base] if side in self.ms and base in self.ms else None

    def round_ratios(self, side: str, base: str) -> list[float]:
        """``side`` / ``base`` within each round (the processes ran back to back)."""
        return [a / b for a, b in zip(self.samples.get(side, ()), self.samples.get(base, ()))]

    def gflops(self, side: str) -> float | None:
        """The program's FLOPs over ``side``'s latency."""
        return self.flops / self.ms[side] / 1e6 if self.flops and side in self.ms else None


@dataclass(frozen=True)
class Plan:
    """How bench_items times (the module's docstring): rounds, at least ``runs`` a process or ``fixed``; per
    side, another program of the same model and a thread count; sides whose failure is only a note; FLOPs."""

    rounds: int
    runs: int = 5
    fixed: int = 0
    programs: Mapping[str, Mapping[str, Model]] | None = None
    threads: Mapping[str, int] | None = None
    optional: tuple[str, ...] = ()
    flops: Callable[[Path], int] | None = None


def bench_items(items: Sequence[Model], sides: Mapping[str, Mapping[str, Path]], plan: Plan,
                tmp: Path) -> tuple[list[Timed], list[str], list[str]]:
    """Check, then time, every item on every side that has a binary of it (interleaved rounds): the
    results, the problems (a failure or a wrong output), notes on optional sides."""
    results, problems, notes = [], [], []
    for item in items:
        program = {side: (plan.programs or {}).get(side, {}).get(item.name, item) for side in sides}
        threads, diffs, first = plan.threads or {}, {}, {}

        def check(side: str) -> str | None:
            run = run_process(sides[side][item.name], program[side], tmp / "check", CHECK_ITERATIONS, tmp,
                              threads.get(side))
            if run.problem:
                return run.problem
            diffs[side], first[side] = difference(program[side], tmp / "check"), run.ms
            return None if diffs[side][1] else (f"outputs out of tolerance (max abs diff {diffs[side][0]:.3g}, "
                                                f"atol {program[side].atol:.1e})")

        usable = usable_sides(item.name, [s for s in sides if item.name in sides[s]], check, plan.optional, problems,
                              notes)
        iterations = {side: plan.fixed or max(plan.runs, min(MAX_ITERATIONS, math.ceil(PROCESS_MS / max(
            first[side], 1e-3)))) for side in usable}

        def timed(side: str, index: int) -> Run | None:
            run = run_process(sides[side][item.name], program[side], tmp / "timed",
                              iterations[side] + (not plan.fixed), tmp, threads.get(side))   # adaptive: a warm-up more
            problems.extend([f"{item.name}, {side}, timed: {run.problem}"] if run.problem else [])
            return None if run.problem else run

        samples = {side: s for side, s in interleaved(usable, plan.rounds, timed).items() if s}

        def median(value: Callable[[Run], float]) -> dict:
            return {side: statistics.median(value(r) for r in s) for side, s in samples.items()}
        results.append(Timed(item.name, plan.flops(item.pte) if plan.flops and item.method == "forward" else 0,
                             median(lambda r: r.ms), median(lambda r: r.rss_kb),
                             {side: max(r.cpu_s / r.wall_s for r in s) for side, s in samples.items()},
                             diffs, {side: tuple(r.ms for r in s) for side, s in samples.items()}))
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


@dataclass(frozen=True)
class Generated:
    """One decoder on one side: median CPU ms of the prompt-only and of the
    full process, and each round's pair (prompt-only ms, full ms)."""

    prompt_ms: float
    full_ms: float
    rounds: tuple[tuple[float, float], ...]

    def decode_rate(self, count: int) -> float | None:
        """Tokens per second of the ``count`` generated tokens: the median over the rounds' pairs."""
        rates = [r for p, f in self.rounds if (r := tokens_per_second(count, p, f)) is not None]
        return statistics.median(rates) if rates else None


def parse_tokens(stdout: str) -> tuple[int, ...] | None:
    """The ids of the runner's last "tokens: ..." line (prompt first), None without one."""
    lines = [line for line in stdout.splitlines() if line.startswith("tokens:")]
    if not lines:
        return None
    try:
        return tuple(int(word) for word in lines[-1].split()[1:])
    except ValueError:
        return None


def tokens_per_second(count: int, prompt_ms: float, full_ms: float) -> float | None:
    """``count`` tokens over the time the full run took beyond the prompt-only one (None when not beyond)."""
    return count / ((full_ms - prompt_ms) / 1000) if full_ms > prompt_ms else None


def generate(binary: Path, decoder: Decoder, count: int) -> tuple[float, str | None]:
    """``binary`` --prompt --generate ``count`` on ``decoder``: (CPU ms, a problem or None);
    the tokens it prints must be the prompt and torch's first ``count``."""
    command = [str(binary), "--model", str(decoder.pte), "--prompt", ",".join(map(str, decoder.prompt)),
               "--generate", str(count)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run(command, capture_output=True, text=True, env=child_env(None), check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    if run.returncode != 0:
        lines = [line.split("  key ")[0].strip() for line in run.stderr.strip().splitlines()
                 if not line.startswith(("I ", "W "))]   # not the runtime's log lines
        return cpu, "fails: " + " ".join(lines[:3] or [f"exit {run.returncode}"])
    tokens, expected = parse_tokens(run.stdout), decoder.prompt + decoder.expected[:count]
    return cpu, None if tokens == expected else f"tokens {tokens} are not torch's {expected}"


def bench_decoders(decoders: Sequence[Decoder], sides: Mapping[str, Mapping[str, Path]], rounds: int,
                   optional: Sequence[str] = ()) -> tuple[dict, list[str], list[str]]:
    """Per decoder, each side that serves it (a checked run first), timed in
    interleaved rounds: {decoder: {side: Generated}}, problems, notes (optional sides that cannot)."""
    results: dict[str, dict[str, Generated]] = {}
    problems, notes = [], []
    for decoder in decoders:
        count = len(decoder.expected)
        usable = usable_sides(decoder.name, list(sides), lambda side: generate(sides[side][decoder.name], decoder,
                              count)[1] if decoder.name in sides[side] else "no binary", optional, problems, notes)

        def timed(side: str, index: int) -> tuple[float, float] | None:
            runs = [generate(sides[side][decoder.name], decoder, n) for n in (0, count)]
            if found := [f"{decoder.name}, {side}, timed: {problem}" for _, problem in runs if problem]:
                problems.extend(found)
                return None
            return runs[0][0], runs[1][0]

        samples = interleaved(usable, rounds, timed)
        results[decoder.name] = {side: Generated(statistics.median(p for p, _ in s), statistics.median(f for _, f in s),
                                                 tuple(s)) for side, s in samples.items() if s}
        print(f"  {decoder.name}: " + ", ".join(f"{side} {g.prompt_ms:.2f}/{g.full_ms:.2f} ms"
                                                 for side, g in results[decoder.name].items()), flush=True)
    return results, problems, notes


def decoder_table(decoders: Sequence[Decoder], results: Mapping[str, Mapping[str, Generated]],
                  sides: Sequence[str]) -> str:
    """Per decoder: prompt-only and full ms, tokens/s per side, and the first side's rate over each other's."""
    rows = []
    for decoder in decoders:
        count, done = len(decoder.expected), results[decoder.name]
        rates = {s: done[s].decode_rate(count) if s in done else None for s in sides}
        rows.append([decoder.name, f"{len(decoder.prompt)} + {count}",
                     *(ms_cell(done[s].prompt_ms if s in done else None) for s in sides),
                     *(ms_cell(done[s].full_ms if s in done else None) for s in sides),
                     *(f"{r:,.0f}" if r else "-" for r in rates.values()),
                     *(f"{rates[sides[0]] / rates[s]:.2f}x" if rates[sides[0]] and rates[s] else "-"
                       for s in sides[1:])])
    headers = ["decoder", "prompt + generated", *(f"{s} prompt-only ms" for s in sides),
               *(f"{s} full ms" for s in sides), *(f"{s} tokens/s" for s in sides),
               *(f"{sides[0]}/{s} tokens/s" for s in sides[1:])]
    return markdown(headers, rows)
