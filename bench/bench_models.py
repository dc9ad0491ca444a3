"""Model benchmark: programs built by etsb with different kernel libraries and
backends ("sides") run side by side on the same models in one run: latency,
GFLOP/s, peak memory and the check against torch per side, the size by part of
every binary built, and an SVG bar chart.

    .venv/bin/python bench/bench_models.py --set real|ops|delegated|fullres|corpus|tree|quantized|llm [options]
    (minutes for a few models, an hour+ for a whole set; writes bench/results/bench_models_SET.md and .svg)

Sides (lib/models.py): binaries built per program in $TMPDIR/bench_models_SET_ws (kept; the
tree's sides from ETSB_EXECUTORCH_TREE), or a peer runner on the wheel's prebuilt kernels. Each
set has its own default sides and threads; fullres (MobileNet-v2 1.0, ResNet-18, EfficientNet-B0 and
MobileNet-v3-Large at 224 px) is exported first by bench/export_fullres.py; delegated and fullres split each program's time by kind
of operator per side and thread count (lib/split.py); corpus checks goals, tree also times cold builds of
the MLP, llm greedy generation; timing: lib/rounds.py. Exits 1 when a binary fails or
disagrees with torch, or a goal is missed.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lib.charts import bar_chart
from lib.env import MODELS_DIR, OPTIMIZED_LIB, TREE, executorch_runtime
from lib.models import (DTS, QUANTIZED_LIB, SIDES, Programs, load_cases, load_corpus, load_delegated, load_fullres,
                        load_llm, load_models, load_quantized)
from lib.profiles import measure_peak, program_flops
from lib.results import diff_cell, finish, kb, markdown, ms_cell, results_path, write_atomically
from lib.rounds import (PROCESS_MS, Plan, Timed, bench_decoders, bench_items, cpu_note, decoder_table, ratio_cell,
                        summary)
from lib.split import split_report
from lib.sizes import executorch_libraries, libraries, measure, size_table, stripped, yaml_operators
from lib.timing import choose, interleaved, listed, parser, wait
from lib.workspace import build_models, model_target, write_et_package

PACKAGE = "models"
LATENCY_GOAL, KERNEL_SHARE_GOAL, COLD_GOAL = 1.5, 0.2, 1.5
@dataclass(frozen=True)
class Set:
    """A set's programs (a loader of --models' names) and defaults: sides, thread counts,
    the side ratios are over, rounds, fixed runs per process (0: enough for ~PROCESS_MS),
    sides whose failure is only noted, whether it checks goals and times cold builds,
    whether its programs have delegated twins, whether the tree's sides can build them, and whether its tables split
    each program's time by kind of operator (lib/split.py)."""

    load: Callable[[list[str] | None], Programs]
    sides: str
    threads: str = "1"
    base: str = "optimized"
    rounds: int = 7
    iterations: int = 0
    optional: tuple[str, ...] = ()
    goals: bool = False
    cold: bool = False
    twins: bool = False
    portable: bool = True
    split: bool = False


SETS = {"real": Set(lambda names: Programs(load_models(names, real_only=True)), "ours,optimized"),
        "ops": Set(load_cases, "ours,optimized"),
        "delegated": Set(load_delegated, "xnnpack,ours,optimized", "1,2", base="xnnpack", twins=True, split=True),
        "fullres": Set(load_fullres, "xnnpack,ours", "1,2", base="xnnpack", rounds=5, twins=True, split=True),
        "corpus": Set(load_corpus, "ours,dts,optimized", "0", iterations=1000, optional=("optimized",), goals=True),
        "tree": Set(lambda names: Programs(load_models(names)), "tree,tree_dts,merged,optimized", "0", rounds=3,
                    iterations=6, cold=True),
        "quantized": Set(load_quantized, "ours,xnnpack,optimized_quantized", base="optimized_quantized", twins=True,
                         portable=False),
        "llm": Set(load_llm, "ours,optimized", rounds=15, optional=("optimized",), portable=False)}


def runs(sides: list[str], threads: list[int]) -> list[tuple[str, str, int | None]]:
    """(key, side, thread count) of each process per round: threaded sides once per count."""
    def key(side: str, count: int | None) -> str:
        return side if count is None or len(threads) == 1 else f"{side} {count}t" if count else f"{side} default"
    return [(key(s, t), s, t) for s in sides for t in (threads if SIDES[s].threaded else [None])]


def key_at(side: str, count: int, threads: list[int]) -> str:
    """The run key giving ``side``'s figure at ``count`` threads (a side without a pool: its one run)."""
    return next(k for k, s, t in runs([side], threads) if t in (count, None))


def target(stem: str, side: str, program: str = "") -> str:
    """The et_model_binary of program ``stem`` for ``side``; ``program``: the
    program's own attributes (not for a delegated side's program)."""
    delegated = SIDES[side].delegated
    return model_target(f"{stem}_{side}", f"{stem}_delegated.pte" if delegated else f"{stem}.pte",
                        SIDES[side].attributes or "", "" if delegated else program)


def build_all(workspace: Path, programs: Programs, sides: list[str]) -> tuple[dict, dict, dict]:
    """The set's workspace (etsb's parts, //models, //bench_et) built: the binary of each (program, side; a delegated
    side's only where the program has a delegated twin), each library's all-kernels companion, each peer by side."""
    stems = list(dict.fromkeys(m.pte.stem for m in programs.models))
    built = [s for s in sides if SIDES[s].attributes is not None]
    libs = sorted({SIDES[s].library for s in built if SIDES[s].library})
    ptes = {f"{m.pte.stem}.pte": m.pte for m in programs.models}
    twins = {m.pte.stem for m in programs.models if m.name in programs.delegated}
    ptes.update({f"{m.pte.stem}_delegated.pte": programs.delegated[m.name].pte for m in programs.models
                 if m.pte.stem in twins and any(SIDES[s].delegated for s in built)})
    pairs = [(stem, s) for stem in stems for s in built if not SIDES[s].delegated or stem in twins]
    labels = {(stem, s): f"//{PACKAGE}:{stem}_{s}" for stem, s in pairs}
    companions = {lib: f"//{PACKAGE}:{stems[0]}_{lib}_all_kernels" for lib in libs}
    peers = {s: SIDES[s].peer for s in sides if SIDES[s].peer}
    if peers:
        write_et_package(workspace)
    done = build_models(workspace, PACKAGE, ptes.items(), "# bench/bench_models.py: each program, each side.",
                        [target(stem, s, programs.attributes.get(stem, "")) for stem, s in pairs]
                        + [target(stems[0], lib, programs.attributes.get(stems[0], "")) for lib in libs
                           if lib not in built], [*labels.values(), *companions.values(), *peers.values()],
                        *(["--executorch-root", str(TREE)] if any(SIDES[s].tree for s in sides) else []))
    return ({key: done.outputs[label] for key, label in labels.items()},
            {lib: done.outputs[label] for lib, label in companions.items()},
            {side: done.outputs[label] for side, label in peers.items()})


def peer_lines(peers: dict[str, Path]) -> list[str]:
    """What each peer runner loads its kernels from (exit when one of its libraries does not resolve)."""
    found = {side: executorch_libraries(binary) for side, binary in peers.items()}
    return [f"Peer {side}: //tools/runner:runner + " + " + ".join(
        f"{libs[n]} ({libs[n].stat().st_size / 2**20:.1f} MB unstripped)" for n in (OPTIMIZED_LIB, QUANTIZED_LIB)
        if n in libs) + " (each registers its kernels at load), its pool sized by ETSB_BENCH_ET_THREADS and "
        "`--threads`." for side, libs in found.items()]


def check_backends(binaries: dict) -> list[str]:
    """Problems: a delegated side's binary without XNNPACK, any other registering a backend (`--list-backends`)."""
    problems = []
    for (stem, side), binary in binaries.items():
        run = subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True, check=False)
        found = run.stdout.split() if run.returncode == 0 else [f"(exit {run.returncode})"]
        if SIDES[side].delegated != ("XnnpackBackend" in found) or (not SIDES[side].delegated and found):
            problems.append(f"{stem}, {side}: --list-backends gives {found}")
    return problems


def bench_sizes(workspace: Path, programs: Programs, built_binaries: tuple, sides: list[str],
                tmp: Path) -> tuple[list[str], dict, dict]:
    """The size tables' text (one per side etsb built, and a line per peer), and
    the Size of each (program, side) and of each library's all-kernels binary."""
    binaries, companions, peers = built_binaries
    cache: dict = {}
    measured = {key: measure(workspace, path, tmp, cache) for key, path in binaries.items()}
    every = {lib: measure(workspace, path, tmp, cache) for lib, path in companions.items()}
    built = [s for s in sides if SIDES[s].attributes is not None]
    lines = []
    for side in built:
        sizes = {stem: size for (stem, s), size in measured.items() if s == side}
        candidates = {}
        if DTS in (SIDES[side].attributes or ""):
            out = workspace / "etsb-out" / "bin" / PACKAGE   # the dtype-restricted link, kept or not
            candidates = {stem: measure(workspace, out / f"{stem}_{side}_dtype_selective", tmp, cache)
                          for (stem, s) in binaries if s == side}
        base = {stem: size for (stem, s), size in measured.items() if s == built[0]} if side != built[0] else None
        root = TREE if SIDES[side].library == "tree" else workspace
        operators = {m.pte.stem: m.operators for m in programs.models}
        operators[""] = sum(yaml_operators(root / "kernels" / name) for name in programs.yamls)
        lines += [f"Size of the {side} binaries ({SIDES[side].legend}; stripped KB, split by the link map as "
                  "`etsb size` splits it; rest = C++ library, start-up, ELF headers, symbols for dynamic linking; "
                  "kernel code = kernels + kernel utilities + registration; runtime = libexecutorch.so; backends = "
                  "the other ExecuTorch libraries loaded; total = all three)", "",
                  size_table(sizes, every.get(SIDES[side].library), candidates, base, built[0], operators), ""]
    for side, peer in peers.items():
        runtime, others, names = libraries(peer, tmp, cache)
        lines.append(f"The peer {side}, {SIDES[side].peer}: runner {kb(stripped(peer, tmp))} KB + runtime "
                     f"{kb(runtime)} KB + {' + '.join(names)} {kb(others)} KB, stripped, the same for every program.")
    return lines, measured, every


def latency_table(results: list[Timed], keys: list[str], base: str, speedups: list[tuple[str, str]],
                  programs: Programs, peak: float) -> str:
    """Per program: ms per side, ratios over ``base``, GFLOP/s (and its share of ``peak``), (key, over) speed-ups."""
    others = [k for k in keys if k != base]
    column = [programs.column] if programs.column else []
    headers = ["program", *column, "conv+matmul MFLOP", *(f"{k} ms" for k in keys), *(f"{k}/{base}" for k in others),
               *(f"{k} GFLOP/s" for k in keys), *(f"{one}/{many}" for one, many in speedups)]
    rows = [[t.name, *([programs.cells[t.name]] if column else []),
             f"{t.flops / 1e6:,.1f}" if t.flops >= 1e6 else f"{t.flops / 1e6:.2g}" if t.flops else "-",
             *(ms_cell(t.ms.get(k)) for k in keys), *(ratio_cell(t.ratio(k, base)) for k in others),
             *("-" if (g := t.gflops(k)) is None else f"{g:.1f} ({g / peak:.0%})" for k in keys),
             *(f"{t.ms[one] / t.ms[many]:.2f}" if one in t.ms and many in t.ms else "-" for one, many in speedups)]
            for t in results]
    return markdown(headers, rows)


def latency_lines(options: argparse.Namespace, results: list[Timed], programs: Programs, peak: float) -> list[str]:
    """A latency table and its summaries per thread count, then RSS and the checks against torch."""
    every = [k for k, _, _ in runs(options.sides, options.threads)]
    timing = (f"ms: median over {options.rounds} interleaved processes per side of the runner's median of "
              + (f"{options.iterations} in-process runs (the first a warm-up)" if options.iterations else
                 f"N in-process runs after one warm-up (N >= {options.runs}, ~{PROCESS_MS:.0f} ms of runs a process)"))
    lines = []
    for count in options.threads:
        keys = list(dict.fromkeys(key_at(s, count, options.threads) for s in options.sides))
        base = key_at(options.base, count, options.threads)
        speedups = [(key_at(s, options.threads[0], options.threads), key_at(s, count, options.threads))
                    for s in options.sides if SIDES[s].threaded and count != options.threads[0]]
        lines += [f"Latency, {count or 'the default number of'} thread(s) ({timing}; MFLOP: convolutions and "
                  f"matrix products from the .pte; GFLOP/s (% of the {peak:.0f} GFLOP/s peak of one core) = those "
                  "FLOPs over the program's latency; a/b over a thread count: a side's speed-up)", "",
                  latency_table(results, keys, base, speedups, programs, peak), "",
                  *(summary(results, k, base) for k in keys if k != base), ""]
    atol = {m.name: m.atol for m in programs.models}
    twin = [["atol (delegated, rtol 0)"], {n: f"{m.atol:.1e}" for n, m in programs.delegated.items()}]
    checks = [[t.name, f"{atol[t.name]:.1e}", *([twin[1].get(t.name, "-")] if programs.delegated else []),
               *("-" if k not in t.rss_kb else f"{t.rss_kb[k] / 1024:.1f}" for k in every),
               *(diff_cell(t.diffs.get(k)) for k in every)] for t in results]
    return lines + ["Peak RSS (MB, median over the timed processes, `/usr/bin/time -f %M`) and the max abs "
                    "difference from torch's recorded outputs (checked before timing)", "",
                    markdown(["program", "atol", *(twin[0] if programs.delegated else []),
                              *(f"{k} RSS MB" for k in every), *(f"max diff {k}" for k in every)], checks), "",
                    cpu_note(results, every, ", above 1 = more than one thread at work")]


def split_lines(options: argparse.Namespace, programs: Programs, built: tuple, results: list[Timed],
                tmp: Path) -> tuple[list[str], list[str]]:
    """Per program, its time by kind of operator on each side etsb built (peers aside) at each thread count, from
    --profile runs after the timing (lib/split.py); the lines and the problems."""
    order = [(k, s, t) for k, s, t in runs(options.sides, options.threads) if SIDES[s].attributes is not None]
    speedups = [(key_at(s, options.threads[0], options.threads), key_at(s, count, options.threads))
                for s in dict.fromkeys(s for _, s, _ in order) if SIDES[s].threaded for count in options.threads[1:]]
    return split_report(programs.models, binaries_by_side([(k, s) for k, s, _ in order], {
        m.name: m.pte.stem for m in programs.models}, built), {k: programs.delegated for k, s, _ in order
                                                                if SIDES[s].delegated},
        {k: t for k, _, t in order}, speedups, {t.name: t.ms for t in results}, options.split_rounds, tmp)


def goal_lines(results: list[Timed], measured: dict, every: dict) -> tuple[list[str], list[str]]:
    """The corpus set's goals, and the size goals missed (which fail the run)."""
    slow = [f"{t.name}, {s} {r:.2f}x" for t in results for s in ("ours", "dts")
            if (r := t.ratio(s, "optimized")) and r > LATENCY_GOAL]
    unmeasured = [t.name for t in results if "optimized" not in t.ms]
    failures = [f"{stem}, {side}: kernel + registration code {size.kernel_code / lib.kernel_code:.1%} of the "
                f"all-kernels binary's (goal <= {KERNEL_SHARE_GOAL:.0%})" for (stem, side), size in measured.items()
                if (lib := every.get(SIDES[side].library)) and size.kernel_code > KERNEL_SHARE_GOAL * lib.kernel_code]
    failures += [f"{stem}: dtype-selective {size.binary.stripped:,} B > op-selective {ours.binary.stripped:,} B"
                 for (stem, side), size in measured.items()
                 if side == "dts" and (ours := measured.get((stem, "ours"))) and size.binary.stripped >
                 ours.binary.stripped]
    return ["Goals:", f"- latency <= {LATENCY_GOAL}x the peer on every program: "
            + (f"NOT MET: {', '.join(slow)}" if slow else "met")
            + (f"; not measured (see NOTE): {', '.join(unmeasured)}" if unmeasured else ""),
            f"- kernel + registration code <= {KERNEL_SHARE_GOAL:.0%} of all-kernels; dtype-selective never larger "
            "than op-selective: " + (f"NOT MET in {len(failures)}" if failures else "met"),
            *(f"  {line}" for line in failures)], failures


def cold_build(root: Path, side: str) -> tuple[float, int]:
    """Seconds and actions of `etsb build -j 2` of the MLP on ``side`` in a fresh workspace (fresh etsb-out)."""
    shutil.rmtree(root, ignore_errors=True)
    done = build_models(root, PACKAGE, [("mlp.pte", MODELS_DIR / "mlp" / "mlp.pte")], "# bench/bench_models.py: cold",
                        [target("mlp", side)], [f"//{PACKAGE}:mlp_{side}"], "--executorch-root", str(TREE))
    shutil.rmtree(root)
    return done.seconds, len(done.actions)


def cold_lines(options: argparse.Namespace) -> list[str]:
    """The cold-build table, from interleaved builds (tree, ours, tree, ours ...)."""
    load = wait("cold builds", options)
    builds = interleaved(["tree", "ours"], options.cold_runs,
                         lambda side, i: cold_build(Path(tempfile.gettempdir()) / f"bench_models_cold_{side}_{i}", side))
    median = {side: statistics.median(s for s, _ in done) for side, done in builds.items()}
    ratio = median["tree"] / median["ours"]
    rows = [[f"{SIDES[side].legend} ({side})", f"{median[side]:.1f}", ", ".join(f"{s:.1f}" for s, _ in done),
             str(done[-1][1])] for side, done in builds.items()]
    rows.append([f"ratio tree / ours (goal <= {COLD_GOAL}x)", f"{ratio:.2f}x", "met" if ratio <= COLD_GOAL else
                 "NOT MET", ""])
    return [f"Cold build of the MLP (`etsb build -j 2`, fresh workspace and etsb-out; median of {options.cold_runs} "
            f"interleaved; load average {load:.2f} at start)", "",
            markdown(["kernels", "median s", "each run s", "actions"], rows)]


def counts(text: str) -> list[int]:
    """--threads' comma-separated whole numbers."""
    return [int(count) for count in text.split(",")]


def parse_options() -> argparse.Namespace:
    """The command line, with the set's defaults filled in."""
    options = parser(__doc__, wait=True, runs=5, runs_help="in-process runs per timed process, at least",
                     set=(str, "real", f"the programs, of {', '.join(SETS)} (default real)"),
                     sides=(listed, None, f"comma-separated, of {', '.join(SIDES)} (default: the set's)"),
                     threads=(counts, None, "comma-separated thread counts of the sides with a pool (0: its default)"),
                     models=(listed, None, "comma-separated programs of the set (default: all)"),
                     rounds=(int, None, "interleaved timed processes per side (default: the set's)"),
                     iterations=(int, None, "fixed in-process runs per process (default: the set's)"),
                     cold_runs=(int, 3, "cold builds of each side (tree set; 0 skips)"),
                     split_rounds=(int, 3, "--profile processes per side and thread count of the split by kind of "
                                   "operator (delegated and fullres sets; 0 skips)")).parse_args()
    if options.split_rounds < 0 or (options.rounds is not None and options.rounds < 1):
        raise SystemExit("--rounds must be at least 1 and --split-rounds at least 0")
    chosen = SETS[choose("sets", [options.set], SETS)[0]]
    sides = choose("sides", options.sides or chosen.sides.split(","), SIDES)
    if not chosen.twins and any(SIDES[s].delegated for s in sides):
        raise SystemExit("the xnnpack side runs the delegated programs: use it with --set delegated or quantized")
    if not chosen.portable and any(SIDES[s].tree for s in sides):
        raise SystemExit(f"the tree's sides build the portable kernels alone: not for --set {options.set}")
    return argparse.Namespace(**{**vars(options), "sides": sides, "threads": options.threads or counts(chosen.threads),
                                 "base": chosen.base if chosen.base in sides else sides[-1],
                                 "rounds": options.rounds or chosen.rounds,
                                 "iterations": chosen.iterations if options.iterations is None else options.iterations,
                                 "workspace": Path(tempfile.gettempdir()) / f"bench_models_{options.set}_ws",
                                 "optional": chosen.optional, "goals": chosen.goals, "cold": chosen.cold})


def binaries_by_side(keys: list[tuple[str, str]], names: dict[str, str], built: tuple) -> dict:
    """Per (key, side): each program's binary by name (``names``: name -> .pte stem), where the side has one."""
    binaries, _, peers = built
    return {key: {name: binaries.get((stem, side), peers.get(side)) for name, stem in names.items()
                  if (stem, side) in binaries or side in peers} for key, side in keys}


def latency_report(options: argparse.Namespace, programs: Programs, built: tuple, sized: tuple,
                   tmp: Path) -> tuple[list[str], list[str], list[str]]:
    """The latency sets: the lines before the sizes, the lines after them (goals,
    cold builds, notes, the chart, which it writes), and the problems."""
    load = wait("timing", options)
    peak = measure_peak(tmp)
    print(f"peak of one core: {peak:.0f} GFLOP/s", flush=True)
    order = runs(options.sides, options.threads)
    plan = Plan(options.rounds, options.runs, options.iterations, flops=program_flops,
                programs={key: programs.delegated for key, side, _ in order if SIDES[side].delegated},
                threads={key: count for key, _, count in order if count is not None},
                optional=tuple(key for key, side, _ in order if side in options.optional))
    sides = binaries_by_side([(k, s) for k, s, _ in order], {m.name: m.pte.stem for m in programs.models}, built)
    results, problems, notes = bench_items(programs.models, sides, plan, tmp)
    first = [key_at(s, options.threads[0], options.threads) for s in options.sides]
    base = key_at(options.base, options.threads[0], options.threads)
    svg = bar_chart(f"{options.set}: median latency, {options.threads[0] or 'default'} thread(s)", results,
                    tuple((k, SIDES[s].legend + (f" ({k})" if k != s else ""), SIDES[s].colour)
                          for k, s in zip(first, options.sides)),
                    (f"{first[0]}/{base}", lambda t: t.ratio(first[0], base)) if first[0] != base else None)
    chart = write_atomically(results_path(f"bench_models_{options.set}", ".svg"), svg) if svg else None
    head = [f"Set {options.set}: {len(programs.models)} programs; sides: "
            + "; ".join(f"{s}, {SIDES[s].legend}" for s in options.sides) + f". Load average {load:.2f} when "
            f"timing started; peak of one core measured at {peak:.0f} GFLOP/s (fused multiply-adds on 16-float "
            "vectors, `g++ -O2 -march=native`).", ""]
    tail = []
    if SETS[options.set].split and options.split_rounds:
        split, failed = split_lines(options, programs, built, results, tmp)
        tail, problems = ["", *split], problems + failed
    if options.goals:
        goals, failures = goal_lines(results, *sized)
        tail, problems = [*tail, "", *goals], problems + failures
    if options.cold and options.cold_runs:
        tail += ["", *cold_lines(options)]
    tail += [f"NOTE: {note}" for note in notes] + (["", f"![latency]({chart.name})"] if chart else [])
    return head + latency_lines(options, results, programs, peak) + [""], tail, problems


def decoder_report(options: argparse.Namespace, programs: Programs, built: tuple, sized: tuple,
                   tmp: Path) -> tuple[list[str], list[str], list[str]]:
    """The llm set: tokens per second of each decoder on each side (lib/rounds.py)."""
    load = wait("timing", options)
    sides = binaries_by_side([(s, s) for s in options.sides], {d.name: d.pte.stem for d in programs.decoders}, built)
    results, problems, notes = bench_decoders(programs.decoders, sides, options.rounds, options.optional)
    head = [f"Set llm: {len(programs.decoders)} decoders; sides: "
            + "; ".join(f"{s}, {SIDES[s].legend}" for s in options.sides) + f". Load average {load:.2f} when "
            "timing started.", "",
            f"Greedy generation, `--prompt` (the manifest's) `--generate N` (ms: median over {options.rounds} "
            "interleaved rounds of the process's CPU time, user + system, start-up and loading included; "
            "prompt-only: `--generate 0`; tokens/s: N over full minus prompt-only, the median over the rounds; "
            "every run's tokens checked against torch's)", "",
            decoder_table(programs.decoders, results, options.sides), ""]
    return head, [f"NOTE: {note}" for note in notes], problems


def main() -> int:
    """Build, size and time the set's programs on every side; write the report."""
    options = parse_options()
    if not (executorch_runtime() / "lib" / OPTIMIZED_LIB).exists():
        raise SystemExit(f"{OPTIMIZED_LIB} not found in the executorch wheel: run scripts/setup.sh")
    programs = SETS[options.set].load(options.models)
    built = build_all(options.workspace, programs, options.sides)
    peers, problems = peer_lines(built[2]), check_backends(built[0])
    report = decoder_report if options.set == "llm" else latency_report
    with tempfile.TemporaryDirectory(prefix="bench_models_") as tmp:
        size_lines, measured, every = bench_sizes(options.workspace, programs, built, options.sides, Path(tmp))
        head, tail, found = report(options, programs, built, (measured, every), Path(tmp))
    return finish("bench_models", "\n".join(head + size_lines + peers + tail), problems + found,
                  f"bench_models_{options.set}")


if __name__ == "__main__":
    sys.exit(main())
