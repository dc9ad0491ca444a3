"""Ours-alone benchmark: etsb's own portable kernels (//kernels/portable, the
rules' default) against ExecuTorch's prebuilt optimized kernel library, side
by side in one run: per real model (latency, GFLOP/s, peak memory, trimmed
size) and per operator (latency, GFLOP/s), with SVG bar charts.

    .venv/bin/python bench/bench_ours.py [--models a,b,...|none] [--cases a,b,...|none] [--runs N]
        [--rounds R] [--no-wait] [--max-wait MIN] [--workspace DIR] [--ops-data DIR]
    (builds 37 binaries and times 36 programs: about an hour; writes bench/results/bench_ours.md
    and the charts bench_ours_models.svg, bench_ours_ops.svg beside it)

Models: the 18 architectures of tests/models/real, by default all. Operator
cases: the single-operator programs bench/export_op_bench.py writes into
bench/.data/ops (not committed; `.venv-export/bin/python
bench/export_op_bench.py`); the benchmark itself needs no torch.

Builds: `etsb build -j 2` in a workspace of its own (default
/tmp/bench_ours_ws, kept between runs) with //models (per model
`M_ours`, et_model_binary with no kernel attributes, and one all-kernels
companion), //ops (per case `C_ours`) and the peer runner of
lib/workspace.py. Both sides on one thread: etsb's kernels start none; the
peer's entry point resets ExecuTorch's threadpool to one thread
(ETSB_BENCH_ET_THREADS=N sets N; 0, the library's default).

Timing, peak RSS and the check against torch's outputs as lib/models.py
describes (tolerance: rtol 1e-4, atol 10x the program's recorded spreads).
GFLOP/s: the convolution and matrix-product FLOPs counted from the .pte's
kernel calls (lib/flops.py) over the median latency, and their share of one
core's peak, measured here (PEAK_SOURCE). Size: each M_ours binary stripped,
split by its link map as `etsb size` splits it, against the all-kernels
binary. Exits 1 when a binary fails or disagrees with torch.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from lib.charts import bar_chart
from lib.env import OPTIMIZED_LIB, RESULTS, check_setup, starlark_env
from lib.flops import program_flops
from lib.models import PROCESS_MS, THREADS_VARIABLE, Model, Plan, Timed, bench_items, load_models, spread_atol
from lib.processes import check_et_runner, etsb_build
from lib.results import cpu_note, diff_cell, finish, kb, markdown, mb, ms_cell, write_atomically
from lib.timing import geomean, wait_for_quiet
from lib.workspace import ET_LABEL, new_workspace, write_et_package, write_model_package
from selective_build.driver import size as size_mod

DEFAULT_WORKSPACE = Path("/tmp/bench_ours_ws")
DEFAULT_OPS_DATA = Path(__file__).resolve().parent / ".data" / "ops"
EXPORT_HINT = ".venv-export/bin/python bench/export_op_bench.py"
BRIEF_PEAK_GFLOPS = 100.0  # the figure once given for one core here (AVX-512 + FMA); measured instead below
CHARTS = (("models", "bench_ours_models.svg", "Real models: median latency, ours vs ExecuTorch"),
          ("ops", "bench_ours_ops.svg", "Operators: median latency, ours vs ExecuTorch"))


# Peak single-precision FLOP rate of one core: independent chains of
# multiply-adds on 64-byte vectors (zmm with AVX-512; pairs of ymm otherwise),
# compiled for this machine; the best of 100 short rounds.
PEAK_SOURCE = r'''
#include <chrono>
#include <cstdio>
typedef float v16 __attribute__((vector_size(64)));
int main() {
  constexpr int kChains = 16;
  constexpr long kSteps = 1000000;   // ~2 ms a round: the best of many is one no other process cut into
  v16 acc[kChains], a, b;
  for (int lane = 0; lane < 16; ++lane) { a[lane] = 0.999999f; b[lane] = 1e-7f; }
  for (int i = 0; i < kChains; ++i) acc[i] = b * (float)i;
  double best = 0;
  for (int round = 0; round < 100; ++round) {
    auto start = std::chrono::steady_clock::now();
    for (long step = 0; step < kSteps; ++step) {
#pragma GCC unroll 16
      for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * a + b;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double gflops = 2.0 * 16 * kChains * kSteps / seconds / 1e9;
    if (gflops > best) best = gflops;
  }
  float sum = 0;
  for (int i = 0; i < kChains; ++i) sum += acc[i][0];
  std::printf("%.3f %g\n", best, sum);
}
'''


def measure_peak(tmp: Path) -> float:
    """One core's peak GFLOP/s (fused multiply-adds), the best of 3 processes
    of PEAK_SOURCE built with `g++ -O2 -march=native` (the instructions
    etsb's gemm picks at run time)."""
    source, binary = tmp / "peak.cpp", tmp / "peak"
    source.write_text(PEAK_SOURCE)
    subprocess.run(["g++", "-O2", "-march=native", "-ffp-contract=fast", "-o", str(binary), str(source)], check=True)
    return max(float(subprocess.run([str(binary)], capture_output=True, text=True, check=True).stdout.split()[0])
               for _ in range(3))


# -- what is benchmarked ------------------------------------------------------------------


def load_cases(data: Path, names: list[str] | None) -> tuple[list[Model], dict[str, str]]:
    """The operator cases exported by export_op_bench.py (as lib.models.Model:
    program, inputs, torch's outputs, tolerance), and each case's description."""
    manifest_path = data / "manifest.json"
    if not manifest_path.exists():
        raise SystemExit(f"no operator cases in {data}: export them first with\n    {EXPORT_HINT}"
                         + (f" --output {data}" if data != DEFAULT_OPS_DATA else ""))
    cases = json.loads(manifest_path.read_text())["cases"]
    unknown = [n for n in names or [] if n not in cases]
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; known: {', '.join(cases)} (see bench/export_op_bench.py)")
    result, descriptions = [], {}
    for name in names or list(cases):
        info = cases[name]
        missing = [p for p in [info["pte"], *info["inputs"], *info["outputs"]] if not (data / p).exists()]
        if missing:
            raise SystemExit(f"{data}: {missing[0]} is missing: re-export with\n    {EXPORT_HINT} --cases {name}")
        result.append(Model(name, data / info["pte"], tuple(data / p for p in info["inputs"]),
                            tuple(data / p for p in info["outputs"]), len(info["operators"]), spread_atol(info), 1e-4))
        descriptions[name] = info["description"]
    return result, descriptions


# -- sizes ---------------------------------------------------------------------------------------


SIZE_PARTS = (size_mod.PART_KERNELS, size_mod.PART_KERNEL_SUPPORT, size_mod.PART_REGISTRATION,
              size_mod.PART_RUNNER)


@dataclass(frozen=True)
class SizeTable:
    """The size table: headers and rows (KB), and the all-kernels binary's
    stripped size and operator count, for the text around it."""

    headers: list
    rows: list
    every_kb: str
    library_operators: int


def measure(workspace: Path, binary: Path, label: str):
    """Stripped size and its parts from the link map, as `etsb size` measures them."""
    return size_mod.measure(str(workspace), str(binary.relative_to(workspace)), label)


def kernel_code(size) -> int:
    """Kernels, kernel utilities and registration: what selection trims."""
    return sum(size.parts.get(p, 0) for p in SIZE_PARTS[:3])


def library_operators(workspace: Path) -> int:
    """Operators of etsb's portable yaml in the workspace (all in the all-kernels binary)."""
    text = (workspace / "kernels" / "portable" / "functions.yaml").read_text()
    return len(re.findall(r"^- (?:op|func):", text, re.MULTILINE))


def bench_sizes(models: list[Model], workspace: Path, outputs: dict[str, Path], every_label: str) -> SizeTable:
    """Each M_ours binary by part against the all-kernels binary (parts no
    binary has, such as kernel utilities for header-only kernels, left out)."""
    every = measure(workspace, outputs[every_label], every_label)
    count = library_operators(workspace)
    measured = [(m, measure(workspace, outputs[f"//models:{m.name}_ours"], f"//models:{m.name}_ours")) for m in models]
    parts = [p for p in SIZE_PARTS if any(size.parts.get(p, 0) for _, size in measured) or every.parts.get(p, 0)]
    headers = ["model", "operators (model/library)", *(f"{p} KB" for p in parts), "rest KB", "stripped KB",
               "stripped/all-kernels", "kernel code/all-kernels"]
    rows = []
    for name, ops, size in [(m.name, f"{m.operators}/{count}", s) for m, s in measured] + [
            (f"all kernels ({every_label.split(':')[1]})", f"{count}/{count}", every)]:
        rest = size.stripped - sum(size.parts.get(p, 0) for p in parts)
        rows.append([name, ops, *(kb(size.parts.get(p, 0)) for p in parts), kb(rest), kb(size.stripped),
                     f"{size.stripped / every.stripped:.2f}", f"{kernel_code(size) / kernel_code(every):.2f}"])
    return SizeTable(headers, rows, kb(every.stripped), count)


# -- report ---------------------------------------------------------------------------------------


def ratio_cell(ratio: float | None) -> str:
    """ours/ET, marked par or SLOWER."""
    if ratio is None:
        return "-"
    text = f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"
    return text + (" (par)" if text == "1.00x" else " (SLOWER)" if ratio > 1 else "")


def gflops_cell(value: float | None, peak: float) -> str:
    """GFLOP/s and its share of the peak."""
    return "-" if value is None else f"{value:.1f} ({value / peak:.0%})"


def latency_rows(results: list[Timed], peak: float, descriptions: dict[str, str] | None = None) -> list[list[str]]:
    """Models (descriptions None): with peak RSS; cases: with their description."""
    rows = []
    for t in results:
        row = [t.name] + ([descriptions[t.name]] if descriptions else [])
        row += [f"{t.flops / 1e6:,.1f}" if t.flops else "-", ms_cell(t.ms.get("ours")), ms_cell(t.ms.get("ET")),
                ratio_cell(t.ratio()), gflops_cell(t.gflops("ours"), peak), gflops_cell(t.gflops("ET"), peak)]
        if descriptions is None:
            row += [mb(t.rss_kb.get("ours")), mb(t.rss_kb.get("ET"))]
        row += [diff_cell(t.diffs.get("ours")), diff_cell(t.diffs.get("ET"))]
        rows.append(row)
    return rows


def summary(results: list[Timed], what: str) -> str:
    """Geometric mean and range of ours/ET, and every item where ours is slower."""
    ratios = [(t.name, t.ratio()) for t in results if t.ratio()]
    if not ratios:
        return f"{what}: nothing timed on both sides"
    spread = {t.name: t.round_ratios() for t in results}
    slower = [f"{n} {r:.2f}x (rounds {min(spread[n]):.2f}-{max(spread[n]):.2f})"
              for n, r in sorted(ratios, key=lambda item: -item[1]) if r >= 1.005]
    par = [n for n, r in ratios if 0.995 < r < 1.005]
    values = [r for _, r in ratios]
    return (f"{what}: ours/ET geometric mean {geomean(values):.3g}x, range {min(values):.2g}-{max(values):.2f}x "
            f"over {len(values)}; ours faster on {sum(r <= 0.995 for r in values)}"
            + (f", par (within 0.5%) on {', '.join(par)}" if par else "")
            + (f"; SLOWER on {len(slower)}: {', '.join(slower)}" if slower else "; slower on none"))


def report(options: argparse.Namespace, peak: float, model_results: list[Timed], case_results: list[Timed],
           descriptions: dict[str, str], sizes: SizeTable | None, loads: dict[str, float], optimized: Path,
           charts: list[Path]) -> str:
    """The Markdown report: models, operators, sizes, and how they were measured."""
    lines = [(f"Each side on one thread. Peak of one core, measured: {peak:.0f} GFLOP/s (fused multiply-adds on "
              "16-float vectors, `g++ -O2 -march=native`); the percentages below are of that "
             f"({peak / BRIEF_PEAK_GFLOPS:.1f}x the ~{BRIEF_PEAK_GFLOPS:.0f} GFLOP/s once assumed)."), ""]
    timing = (f"ms: median over {options.rounds} interleaved processes per side of the runner's median of N "
              f"in-process runs after one warm-up (N >= {options.runs}, ~{PROCESS_MS:.0f} ms of runs per process)")
    if model_results:
        lines += [(f"Models ({timing}; load average {loads['models']:.2f} at start. MFLOP: convolutions and matrix "
                   "products, counted from the .pte's kernel calls; GFLOP/s (% of peak) = those FLOPs over the "
                   "whole model's latency. RSS: peak resident set of the process, MB. Max diff: from torch's "
                   "recorded outputs)"), ""]
        lines.append(markdown(["model", "conv+matmul MFLOP", "ours ms", "ET ms", "ours/ET", "ours GFLOP/s",
                               "ET GFLOP/s", "ours RSS MB", "ET RSS MB", "max diff ours", "max diff ET"],
                              latency_rows(model_results, peak)))
        lines += ["", summary(model_results, "Models"), ""]
    if case_results:
        lines += [(f"Operators (one kernel call per program, except linear: permute_copy of the weight, then "
                   f"addmm; {timing}; load average {loads['ops']:.2f} at start)"), ""]
        lines.append(markdown(["case", "what", "MFLOP", "ours ms", "ET ms", "ours/ET", "ours GFLOP/s",
                               "ET GFLOP/s", "max diff ours", "max diff ET"],
                              latency_rows(case_results, peak, descriptions)))
        lines += ["", summary(case_results, "Operators"), ""]
    if sizes:
        lines += [("Size of each `M_ours` binary (stripped KB, split by the link map as `etsb size` splits it; "
                   "rest = C++ library, start-up, ELF headers, symbols for dynamic linking; the last row is the "
                   f"`_all_kernels` companion, all {sizes.library_operators} operators of //kernels/portable; "
                   "kernel code = kernels + registration; the runtime libexecutorch.so is shared and in none)"), ""]
        lines.append(markdown(sizes.headers, sizes.rows))
        lines.append("")
    results = model_results + case_results
    if results:
        lines.append(cpu_note(results, (("ours", "ours"), ("ET", "ET")), ", above 1 = more than one thread at work"))
    lines.append(f"Peer: //tools/runner:runner + {optimized} ({optimized.stat().st_size / 2**20:.1f} MB), its "
                 f"threadpool reset to {os.environ.get(THREADS_VARIABLE, '1')} thread(s) by the entry point, "
                 "OMP_NUM_THREADS=1. Ours: the same runner, etsb's kernels, op-selective (`et_model_binary` defaults).")
    lines += [f"![{chart.stem}]({chart.name})" for chart in charts]
    return "\n".join(lines)


# -- main ----------------------------------------------------------------------------------------


def build_all(workspace: Path, models: list[Model], cases: list[Model]) -> tuple[dict[str, Path], str | None]:
    """The bench workspace (etsb's parts, //models, //ops, //bench_et) built;
    the outputs and the all-kernels companion's label."""
    new_workspace(workspace)
    comment = "# bench/bench_ours.py: each program with etsb's own portable kernels alone (the rules' default)."
    for package, items in (("models", models), ("ops", cases)):
        write_model_package(workspace / package, [(i.name, i.pte) for i in items], comment,
                            [f'et_model_binary(name = "{i.name}_ours", model = "{i.name}.pte")\n' for i in items])
    write_et_package(workspace)
    every_label = f"//models:{models[0].name}_ours_all_kernels" if models else None
    labels = ([f"//models:{m.name}_ours" for m in models] + [f"//ops:{c.name}_ours" for c in cases]
              + [ET_LABEL] + ([every_label] if every_label else []))
    done = etsb_build(workspace, labels, starlark_env())
    print(f"built {len(labels)} targets in {workspace} ({len(done.actions)} actions, {done.seconds:.0f} s)", flush=True)
    return dict(done.outputs), every_label


def time_all(parts: dict[str, list[Model]], outputs: dict[str, Path], options: argparse.Namespace,
             loads: dict[str, float]) -> tuple[float, dict[str, list[Timed]], list[str]]:
    """One core's peak, then every model and case on both sides."""
    results, problems = {}, []
    with tempfile.TemporaryDirectory(prefix="bench_ours_") as tmp:
        # One wait, before all timing: later, this script's own processes keep the load average near 1.
        loads["peak"] = wait_for_quiet("timing", not options.no_wait, options.max_wait * 60)
        peak = measure_peak(Path(tmp))
        print(f"peak of one core: {peak:.0f} GFLOP/s", flush=True)
        for key, items in parts.items():
            loads[key] = os.getloadavg()[0]
            sides = {"ours": {i.name: outputs[f"//{key}:{i.name}_ours"] for i in items},
                     "ET": {i.name: outputs[ET_LABEL] for i in items}}
            plan = Plan(options.rounds, options.runs, et_threads=int(os.environ.get(THREADS_VARIABLE, "1")),
                        flops=program_flops)
            results[key], found, _ = bench_items(items, sides, plan, Path(tmp))
            problems += found
    return peak, results, problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated model names (default: the 18 real models; 'none': skip)")
    parser.add_argument("--cases", help="comma-separated operator cases (default: all exported; 'none': skip)")
    parser.add_argument("--runs", type=int, default=5, help="in-process runs per timed process, at least (default 5)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timed processes per side (default 7)")
    parser.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
    parser.add_argument("--max-wait", type=float, default=20,
                        help="minutes to wait for a quiet machine before timing (default 20)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help=f"where the binaries are built (default {DEFAULT_WORKSPACE}, kept between runs)")
    parser.add_argument("--ops-data", type=Path, default=DEFAULT_OPS_DATA,
                        help=f"the exported operator cases (default {DEFAULT_OPS_DATA})")
    options = parser.parse_args()
    check_setup()
    models = [] if options.models == "none" else load_models(
        options.models.split(",") if options.models else None, real_only=True)
    cases, descriptions = ([], {}) if options.cases == "none" else load_cases(
        options.ops_data.resolve(), options.cases.split(",") if options.cases else None)
    started = time.perf_counter()
    workspace = options.workspace.resolve()
    outputs, every_label = build_all(workspace, models, cases)
    optimized = check_et_runner(outputs[ET_LABEL], OPTIMIZED_LIB)
    sizes = bench_sizes(models, workspace, outputs, every_label) if models else None
    loads: dict[str, float] = {}
    peak, results, problems = time_all({key: items for key, items in (("models", models), ("ops", cases)) if items},
                                       outputs, options, loads)
    charts = []
    for key, name, title in CHARTS:
        svg = bar_chart(title, results.get(key, []))
        if svg:
            charts.append(write_atomically(RESULTS / name, svg))
    text = report(options, peak, results.get("models", []), results.get("ops", []), descriptions, sizes, loads,
                  optimized, charts)
    return finish("bench_ours", text, started, problems)


if __name__ == "__main__":
    sys.exit(main())
