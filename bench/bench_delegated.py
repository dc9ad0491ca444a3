"""Delegated-model benchmark: the models of tests/models/delegated (lowered to
XNNPACK) built by etsb with the XNNPACK backend, against the same
architectures, weights and inputs left undelegated (tests/models/real) on
etsb's own portable kernels and on ExecuTorch's prebuilt optimized kernel
library, side by side in one run, at 1 and 2 threads: latency, peak memory,
and stripped size by part, with an SVG bar chart.

    .venv/bin/python bench/bench_delegated.py [--models a,b,...] [--runs N] [--rounds R] [--no-wait]
        [--max-wait MIN] [--workspace DIR]
    (about half an hour; writes bench/results/bench_delegated.md and bench_delegated.svg beside it)

Models: every delegated model (resnet, mobilenet_v2, vit, gpt_decoder,
lstm), each with an undelegated twin of the same name and the same inputs
(checked byte for byte). Sides, built by `etsb build -j 2` in a workspace of
its own (default /tmp/bench_delegated_ws, kept between runs): "etsb +
XNNPACK", et_model_binary on the delegated program with the rules' defaults
(the build links the wheel's XNNPACK backend); "etsb portable", on the
undelegated program, etsb's kernels, no backend; "ET optimized", the peer
runner of lib/workspace.py on the undelegated program.

Threads: the sides with a thread pool run at 1 and at 2 threads, as separate
sides of the same rounds (`--threads N`, and ETSB_BENCH_ET_THREADS=N for the
peer's entry point); etsb portable is single-threaded and runs once, its
figure standing in both tables. Timing, peak RSS and the check against
torch's outputs as lib/models.py describes (XNNPACK: the manifest's
`tolerance`, rtol 0, as tests/test_delegated.py). Ratios are over etsb +
XNNPACK at the same thread count; 1t/2t is a side's speed-up from the second
thread. MFLOP: the undelegated program's convolutions and matrix products.
Sizes, stripped, by part: the executable, the runtime (libexecutorch.so) and
the backends (every other ExecuTorch library reached through NEEDED).
Exits 1 when a binary fails or disagrees with torch.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lib.charts import bar_chart
from lib.env import MODELS_DIR, OPTIMIZED_LIB, RESULTS, check_setup, starlark_env
from lib.flops import program_flops
from lib.models import Model, Plan, Timed, bench_items, load_models
from lib.processes import check_et_runner, etsb_build, executorch_libraries, stripped
from lib.results import cpu_note, diff_cell, finish, kb, markdown, mb, ms_cell, times, write_atomically
from lib.timing import geomean, wait_for_quiet
from lib.workspace import ET_LABEL, new_workspace, write_et_package, write_model_package

DELEGATED_DIR = MODELS_DIR / "delegated"
DEFAULT_WORKSPACE = Path("/tmp/bench_delegated_ws")
CHART = "bench_delegated.svg"
RUNTIME_LIB = "libexecutorch.so"
THREAD_COUNTS = (1, 2)

# The sides: (key, binary kind, threads). One process per side per round, in this order.
XNNPACK, PORTABLE, OPTIMIZED = "xnnpack", "portable", "optimized"
SIDES = ((f"{XNNPACK}@1", XNNPACK, 1), (f"{XNNPACK}@2", XNNPACK, 2), (f"{PORTABLE}@1", PORTABLE, 1),
         (f"{OPTIMIZED}@1", OPTIMIZED, 1), (f"{OPTIMIZED}@2", OPTIMIZED, 2))
DISPLAY = tuple(key for key, _, _ in SIDES)
NAMES = {XNNPACK: "etsb + XNNPACK", PORTABLE: "etsb portable", OPTIMIZED: "ET optimized"}
COLOURS = {XNNPACK: "#2ca02c", PORTABLE: "#1f77b4", OPTIMIZED: "#ff7f0e"}


def side_key(kind: str, threads: int) -> str:
    """The side that gives ``kind``'s figure at ``threads`` threads (etsb portable: always its one-thread run)."""
    return f"{kind}@{1 if kind == PORTABLE else threads}"


# -- what is benchmarked ------------------------------------------------------------------


@dataclass(frozen=True)
class Delegated:
    """A delegated model: its program (as lib.models.Model, held to the
    manifest's tolerance), its delegate calls and the operators left outside."""

    model: Model
    delegate_calls: int
    outside: int


def load_delegated(names: list[str] | None) -> list[Delegated]:
    manifest = json.loads((DELEGATED_DIR / "manifest.json").read_text())["models"]
    unknown = [n for n in names or [] if n not in manifest]
    if unknown:
        raise SystemExit(f"unknown delegated models {unknown}; known: {', '.join(sorted(manifest))}")
    result = []
    for name in names or sorted(manifest):
        info = manifest[name]
        model = Model(name, DELEGATED_DIR / info["pte"],
                      tuple(DELEGATED_DIR / name / i["file"] for i in info["inputs"]),
                      tuple(DELEGATED_DIR / name / o["file"] for o in info["outputs"]), len(info["operators"]),
                      info["tolerance"], 0.0)
        result.append(Delegated(model, info["delegate_calls"], len(info["operators"])))
    return result


def check_twins(delegated: list[Delegated], real: list[Model]) -> None:
    """The undelegated twin of each model takes the same inputs (byte for byte) and gives as many outputs."""
    for d, r in zip(delegated, real):
        if len(d.model.inputs) != len(r.inputs) or any(a.read_bytes() != b.read_bytes()
                                                       for a, b in zip(d.model.inputs, r.inputs)):
            raise SystemExit(f"{d.model.name}: the delegated and the real model's inputs differ")
        if len(d.model.outputs) != len(r.outputs):
            raise SystemExit(f"{d.model.name}: the delegated and the real model have different outputs")


# -- sizes ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Size:
    """Stripped bytes of a binary by part; ``libraries`` names the non-runtime ones."""

    executable: int
    runtime: int
    libraries: int
    names: tuple[str, ...]

    @property
    def total(self) -> int:
        return self.executable + self.runtime + self.libraries


def measure_size(binary: Path, tmp: Path, cache: dict[Path, int]) -> Size:
    libraries = executorch_libraries(binary)
    if RUNTIME_LIB not in libraries:
        raise SystemExit(f"{binary} does not load {RUNTIME_LIB}")

    def size(path: Path) -> int:
        if path not in cache:
            cache[path] = stripped(path, tmp)
        return cache[path]

    others = [name for name in libraries if name != RUNTIME_LIB]
    return Size(stripped(binary, tmp), size(libraries[RUNTIME_LIB]), sum(size(libraries[n]) for n in others),
                tuple(others))


# -- report --------------------------------------------------------------------------------


def ratio_text(value: float | None, base: float | None) -> str:
    return "-" if value is None or base is None else times(value / base)


def latency_table(results: list[Timed], threads: int, models: dict[str, Delegated]) -> str:
    x, p, o = (side_key(kind, threads) for kind in (XNNPACK, PORTABLE, OPTIMIZED))
    portable = f"{NAMES[PORTABLE]} ms" + (" (1 thread)" if threads > 1 else "")
    headers = ["model"] + (["delegate calls/ops outside", "conv+matmul MFLOP"] if threads == 1 else []) + [
        f"{NAMES[XNNPACK]} ms", portable, f"{NAMES[OPTIMIZED]} ms", "portable/XNNPACK", "optimized/XNNPACK"]
    if threads > 1:
        headers += ["XNNPACK 1t/2t", "optimized 1t/2t"]
    headers.append("XNNPACK GFLOP/s")
    rows = []
    for t in results:
        d = models[t.name]
        row = [t.name] + ([f"{d.delegate_calls}/{d.outside}", f"{t.flops / 1e6:,.1f}"] if threads == 1 else [])
        row += [ms_cell(t.ms.get(x)), ms_cell(t.ms.get(p)), ms_cell(t.ms.get(o)),
                ratio_text(t.ms.get(p), t.ms.get(x)), ratio_text(t.ms.get(o), t.ms.get(x))]
        if threads > 1:
            row += [ratio_text(t.ms.get(side_key(kind, 1)), t.ms.get(side_key(kind, threads)))
                    for kind in (XNNPACK, OPTIMIZED)]
        row.append(f"{t.flops / t.ms[x] / 1e6:.1f}" if t.flops and x in t.ms else "-")
        rows.append(row)
    return markdown(headers, rows)


def latency_summary(results: list[Timed], threads: int) -> str:
    base = side_key(XNNPACK, threads)
    parts = []
    for kind in (PORTABLE, OPTIMIZED):
        key = side_key(kind, threads)
        ratios = [t.ms[key] / t.ms[base] for t in results if key in t.ms and base in t.ms]
        if ratios:
            slower = [t.name for t in results if key in t.ms and base in t.ms and t.ms[key] < t.ms[base]]
            parts.append(f"{NAMES[kind]}/XNNPACK geometric mean {times(geomean(ratios))}, range "
                         f"{times(min(ratios))}-{times(max(ratios))}" + (f" (XNNPACK slower on {', '.join(slower)})"
                                                                        if slower else ""))
    if threads > 1:   # the thread speed-up within each round (the processes ran back to back)
        for kind in (XNNPACK, OPTIMIZED):
            one, many = side_key(kind, 1), side_key(kind, threads)
            spread = [f"{t.name} {min(r):.2f}-{max(r):.2f}" for t in results
                      if (r := [a / b for a, b in zip(t.samples.get(one, ()), t.samples.get(many, ()))])]
            if spread:
                parts.append(f"{NAMES[kind]} 1t/{threads}t within each round: {', '.join(spread)}")
    return f"{threads} thread{'s' if threads > 1 else ''}: " + "; ".join(parts) + "."


def rss_table(results: list[Timed]) -> str:
    headers = ["model"] + [f"{NAMES[key.split('@')[0]]} {key.split('@')[1]}t" for key in DISPLAY] + [
        "portable/XNNPACK 1t", "optimized/XNNPACK 1t"]
    rows = [[t.name] + [mb(t.rss_kb.get(key)) for key in DISPLAY]
            + [ratio_text(t.rss_kb.get(side_key(kind, 1)), t.rss_kb.get(side_key(XNNPACK, 1)))
               for kind in (PORTABLE, OPTIMIZED)] for t in results]
    return markdown(headers, rows)


def check_table(results: list[Timed], programs: dict[str, Model], real: dict[str, Model]) -> str:
    headers = ["model", "XNNPACK atol (manifest)"] + [f"{NAMES[XNNPACK]} {n}t" for n in THREAD_COUNTS] + [
        "undelegated atol (rtol 1e-4)", f"{NAMES[PORTABLE]}"] + [f"{NAMES[OPTIMIZED]} {n}t" for n in THREAD_COUNTS]
    rows = []
    for t in results:
        row = [t.name, f"{programs[t.name].atol:.1e}"]
        row += [diff_cell(t.diffs.get(side_key(XNNPACK, n))) for n in THREAD_COUNTS]
        row += [f"{real[t.name].atol:.1e}", diff_cell(t.diffs.get(side_key(PORTABLE, 1)))]
        row += [diff_cell(t.diffs.get(side_key(OPTIMIZED, n))) for n in THREAD_COUNTS]
        rows.append(row)
    return markdown(headers, rows)


def size_table(sizes: dict[str, dict[str, Size]], optimized: Size) -> str:
    headers = ["model", "XNNPACK: executable KB", "runtime KB", "backends KB", "total KB",
               "portable: executable KB", "runtime KB", "backends KB", "total KB", "XNNPACK/portable total",
               "ET optimized total KB"]
    rows = []
    for name, by_kind in sizes.items():
        x, p = by_kind[XNNPACK], by_kind[PORTABLE]
        rows.append([name, kb(x.executable), kb(x.runtime), kb(x.libraries), kb(x.total),
                     kb(p.executable), kb(p.runtime), kb(p.libraries) if p.libraries else "-", kb(p.total),
                     f"{x.total / p.total:.2f}x", kb(optimized.total)])
    return markdown(headers, rows)


def report(options: argparse.Namespace, results: list[Timed], delegated: dict[str, Delegated],
           real: dict[str, Model], sizes: dict[str, dict[str, Size]], optimized_size: Size,
           optimized: Path, load: float, chart: Path | None) -> str:
    """The Markdown report: latency at 1 and 2 threads, RSS, checks, sizes."""
    lines = [f"Load average {load:.2f} when timing started.", ""]
    timing = (f"ms: median over {options.rounds} interleaved processes per side of the runner's median of N "
              f"in-process runs after one warm-up (N >= {options.runs}, ~0.3 s of runs per process)")
    for threads in THREAD_COUNTS:
        note = ("; MFLOP: the undelegated program's convolutions and matrix products (lib/flops.py counts "
                "them)" if threads == 1 else f"; {NAMES[PORTABLE]} is single-threaded: its 1-thread figure again; "
                "1t/2t: a side's 1-thread over its 2-thread latency, above 1 when the second thread helps")
        note += "; XNNPACK GFLOP/s: those FLOPs over etsb + XNNPACK's latency"
        lines += [f"Latency, {threads} thread{'s' if threads > 1 else ''} ({timing}{note})", "",
                  latency_table(results, threads, delegated), "", latency_summary(results, threads), ""]
    lines += ["Peak RSS, MB (median over the timed processes, `/usr/bin/time -f %M`)", "", rss_table(results), ""]
    lines += ["Max abs difference from torch's recorded outputs (checked before timing)", "",
              check_table(results, {d.model.name: d.model for d in delegated.values()}, real), ""]
    kinds = sorted({name for by_kind in sizes.values() for name in by_kind[XNNPACK].names})
    lines += [(f"Size, stripped KB (executable = runner + registration + kernels; runtime = {RUNTIME_LIB}; "
               f"backends = {', '.join(kinds) or 'none'}; the portable binaries load no backend; ET optimized = "
               f"its runner {kb(optimized_size.executable)} + runtime {kb(optimized_size.runtime)} + "
               f"{' + '.join(optimized_size.names)} {kb(optimized_size.libraries)}, the same for every model)"), "",
              size_table(sizes, optimized_size), ""]
    lines.append(cpu_note(results, [(key, f"{NAMES[key.split('@')[0]]} {key.split('@')[1]}t") for key in DISPLAY]))
    lines.append(f"Peer: //tools/runner:runner + {optimized}, its threadpool reset to N threads by the entry point "
                 "(ETSB_BENCH_ET_THREADS=N) as well as by `--threads N`.")
    if chart:
        lines.append(f"![latency at one thread]({chart.name})")
    return "\n".join(lines)


def chart_label(t: Timed, key: str) -> str:
    base = t.ms.get(side_key(XNNPACK, 1))
    text = ms_cell(t.ms[key])
    return text if key == side_key(XNNPACK, 1) or not base else f"{text} ({times(t.ms[key] / base)})"


# -- main ----------------------------------------------------------------------------------------


def build_all(workspace: Path, delegated: list[Delegated], real: list[Model]) -> tuple[dict, Path]:
    """The bench workspace (etsb's parts, //delegated, //portable, //bench_et)
    built; each kind's binary per model, and the ExecuTorch runner."""
    new_workspace(workspace)
    for package, suffix, items, comment in (
            ("delegated", "_xnnpack", [d.model for d in delegated], "each delegated program, the rules' defaults "
             "(its backends linked)."),
            ("portable", "_portable", real, "each undelegated program on etsb's own portable kernels.")):
        write_model_package(workspace / package, [(i.name, i.pte) for i in items],
                            f"# bench/bench_delegated.py: {comment}",
                            [f'et_model_binary(name = "{i.name}{suffix}", model = "{i.name}.pte")\n' for i in items])
    write_et_package(workspace)
    labels = {XNNPACK: {d.model.name: f"//delegated:{d.model.name}_xnnpack" for d in delegated},
              PORTABLE: {m.name: f"//portable:{m.name}_portable" for m in real},
              OPTIMIZED: {m.name: ET_LABEL for m in real}}
    outputs = etsb_build(workspace, sorted({label for by_name in labels.values() for label in by_name.values()}),
                         starlark_env()).outputs
    return ({kind: {name: outputs[label] for name, label in by_name.items()} for kind, by_name in labels.items()},
            outputs[ET_LABEL])


def list_backends(binary: Path) -> list[str]:
    """The backends ``binary`` registers (`--list-backends`)."""
    run = subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True, check=False)
    return run.stdout.split() if run.returncode == 0 else [f"(exit {run.returncode})"]


def check_backends(binaries: dict) -> list[str]:
    """Problems: an XNNPACK binary without the backend, a portable one with any."""
    problems = [f"{name}, {NAMES[XNNPACK]}: --list-backends gives {list_backends(binary)}"
                for name, binary in binaries[XNNPACK].items() if "XnnpackBackend" not in list_backends(binary)]
    return problems + [f"{name}, {NAMES[PORTABLE]}: registers backends {list_backends(binary)}"
                       for name, binary in binaries[PORTABLE].items() if list_backends(binary)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated model names (default: every delegated model)")
    parser.add_argument("--runs", type=int, default=5, help="in-process runs per timed process, at least (default 5)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timed processes per side (default 7)")
    parser.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
    parser.add_argument("--max-wait", type=float, default=20,
                        help="minutes to wait for a quiet machine before timing (default 20)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help=f"where the binaries are built (default {DEFAULT_WORKSPACE}, kept between runs)")
    options = parser.parse_args()
    check_setup()
    delegated = load_delegated(options.models.split(",") if options.models else None)
    real = load_models([d.model.name for d in delegated])
    check_twins(delegated, real)
    started = time.perf_counter()
    binaries, et_runner = build_all(options.workspace.resolve(), delegated, real)
    optimized = check_et_runner(et_runner, OPTIMIZED_LIB)
    problems = check_backends(binaries)
    with tempfile.TemporaryDirectory(prefix="bench_delegated_") as tmp:
        cache: dict[Path, int] = {}
        sizes = {m.name: {kind: measure_size(binaries[kind][m.name], Path(tmp), cache) for kind in (XNNPACK, PORTABLE)}
                 for m in real}
        optimized_size = measure_size(et_runner, Path(tmp), cache)
        if OPTIMIZED_LIB not in optimized_size.names:
            problems.append(f"{et_runner} does not load {OPTIMIZED_LIB}")
        load = wait_for_quiet("timing", not options.no_wait, options.max_wait * 60)
        plan = Plan(options.rounds, options.runs, flops=program_flops,
                    programs={key: {d.model.name: d.model for d in delegated} for key, kind, _ in SIDES
                              if kind == XNNPACK},
                    threads={key: n for key, _, n in SIDES})
        results, found, _ = bench_items(real, {key: binaries[kind] for key, kind, _ in SIDES}, plan, Path(tmp))
        problems += found
    svg = bar_chart("Delegated models: median latency, 1 thread", results,
                    sides=tuple((side_key(kind, 1), NAMES[kind] + (" (ratio to XNNPACK)" if kind != XNNPACK else ""),
                                 COLOURS[kind]) for kind in (XNNPACK, PORTABLE, OPTIMIZED)),
                    ratio=None, label=chart_label)
    chart = write_atomically(RESULTS / CHART, svg) if svg else None
    text = report(options, results, {d.model.name: d for d in delegated}, {m.name: m for m in real}, sizes,
                  optimized_size, optimized, load, chart)
    return finish("bench_delegated", text, started, problems)


if __name__ == "__main__":
    sys.exit(main())
