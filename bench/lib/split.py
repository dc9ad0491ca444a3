"""Where each model's time goes, side by side (bench_models.py's per-operator
split): each side's binary run with the runner's --profile at each thread count
(the runtime's event tracer: one time per instruction, lib/profiles.py joins
it with the program), in interleaved rounds; the time per kind of operator,
the median over the rounds. A delegate call is timed as a whole: the XNNPACK
backend of the executorch wheel is built without ENABLE_XNNPACK_PROFILING, so
its runtime is created without XNN_FLAG_BASIC_PROFILING and it logs no
per-operator events to the tracer (the library has the profiler's code but
not that build's per-operator log)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from lib.models import Model
from lib.profiles import Row, category, grouped, instructions, join, read_profile
from lib.results import markdown, ms_cell
from lib.rounds import PROCESS_MS, run_process
from lib.timing import interleaved

DELEGATE = "delegate call (XNNPACK, as a whole)"
MAX_RUNS = 200   # runs per profiled process, at most


@dataclass(frozen=True)
class Split:
    """One program on one run key (side and thread count): ms per run by kind of operator (the median over the
    rounds), the instructions' total, and the rounds profiled."""

    kinds: dict
    total: float
    rounds: int


def kind(row: Row) -> str:
    """The row's kind: a delegate call, or its operator's category (lib/profiles.py's CATEGORIES)."""
    return DELEGATE if row.kind == "delegate" else category(row.operator)


def by_kind(rows: Sequence[Row]) -> dict[str, float]:
    """Milliseconds per run of each kind in ``rows``."""
    return {share.name: share.ns / 1e6 for share in grouped(rows, kind)}


def runs_for(ms: float | None) -> int:
    """Runs per profiled process: about PROCESS_MS of them, 3 to MAX_RUNS."""
    return max(3, min(MAX_RUNS, math.ceil(PROCESS_MS / ms))) if ms else 3


def profile_splits(model: Model, binaries: Mapping[str, Path], programs: Mapping[str, Model],
                   threads: Mapping[str, int | None], ms: Mapping[str, float], rounds: int,
                   tmp: Path) -> tuple[dict[str, Split], list[str]]:
    """Profile ``model`` in each key's binary (``programs``: a key's own program of it, the delegated one) at its
    thread count in ``rounds`` interleaved rounds: its Split by key, and the problems (a failing run)."""
    problems: list[str] = []

    def one(key: str, index: int) -> dict[str, float] | None:
        program, path = programs.get(key, model), tmp / f"split.{index}.json"
        run = run_process(binaries[key], program, tmp / "split", runs_for(ms.get(key)), tmp, threads.get(key),
                          "--profile", str(path))
        if run.problem:
            problems.append(f"{model.name}, {key}, --profile: {run.problem}")
            return None
        return by_kind(join([read_profile(path)], instructions(program.pte, program.method), program.name))

    found = {}
    for key, samples in interleaved(list(binaries), rounds, one).items():
        if samples:
            names = dict.fromkeys(name for sample in samples for name in sample)
            kinds = {name: statistics.median(s.get(name, 0.0) for s in samples) for name in names}
            found[key] = Split(kinds, sum(kinds.values()), len(samples))
    return found, problems


def split_table(splits: Mapping[str, Split], keys: Sequence[str], speedups: Sequence[tuple[str, str]]) -> str:
    """Per kind of operator (the costliest first, summed over the keys): ms per run on each key, its share of the key's
    instruction time, and each (one, many) speed-up; a last row with the instructions' totals."""
    keys = [k for k in keys if k in splits]
    names = sorted(dict.fromkeys(n for k in keys for n in splits[k].kinds),
                   key=lambda n: (-sum(splits[k].kinds.get(n, 0.0) for k in keys), n))

    def speedup(one: float | None, many: float | None) -> str:
        return f"{one / many:.2f}" if one and many else "-"

    rows = [[name, *(ms_cell(splits[k].kinds.get(name)) for k in keys),
             *(f"{splits[k].kinds[name] / splits[k].total:.0%}" if name in splits[k].kinds and splits[k].total
               else "-" for k in keys),
             *(speedup(splits[a].kinds.get(name), splits[b].kinds.get(name)) for a, b in speedups
               if a in splits and b in splits)] for name in names]
    rows.append(["all instructions", *(ms_cell(splits[k].total) for k in keys), *("100%" for _ in keys),
                 *(speedup(splits[a].total, splits[b].total) for a, b in speedups if a in splits and b in splits)])
    return markdown(["kind of operator", *(f"{k} ms" for k in keys), *(f"{k} share" for k in keys),
                     *(f"{a}/{b}" for a, b in speedups if a in splits and b in splits)], rows)


def split_report(models: Sequence[Model], binaries: Mapping[str, Mapping[str, Path]],
                 programs: Mapping[str, Mapping[str, Model]], threads: Mapping[str, int | None],
                 speedups: Sequence[tuple[str, str]], ms: Mapping[str, Mapping[str, float]], rounds: int,
                 tmp: Path) -> tuple[list[str], list[str]]:
    """A split table per model over the run keys of ``binaries`` (key -> model name -> binary; ``programs``: a key's
    own programs by model name, the delegated ones; ``ms``: the timed latencies by model and key): the lines (a note
    on how, then the tables) and the problems."""
    lines, problems = [f"Where the time goes: each program's instructions by kind of operator (ms per run: the median "
                       f"over {rounds} interleaved --profile processes per side and thread count after the timing, "
                       "the runtime's event tracer around each instruction; share: of the side's instruction time; "
                       "a/b: the kind's speed-up). XNNPACK's time per operator is not available: the "
                       f"\"{DELEGATE}\" row is its whole delegate call (bench/lib/split.py says why).", ""], []
    for model in models:
        found, failed = profile_splits(
            model, {k: b[model.name] for k, b in binaries.items() if model.name in b},
            {k: p[model.name] for k, p in programs.items() if model.name in p}, threads, ms.get(model.name, {}),
            rounds, tmp)
        problems += failed
        lines += [f"{model.name}:", "", split_table(found, list(binaries), speedups), ""]
    return lines, problems
