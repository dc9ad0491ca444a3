"""Ours-alone benchmark: etsb's own portable kernels (//kernels/portable, the
rules' default) against ExecuTorch's prebuilt optimized kernel library, side
by side in one run: per real model (latency, GFLOP/s, peak memory, trimmed
size) and per operator (latency, GFLOP/s), with a Markdown report and SVG
bar charts.

    .venv/bin/python bench/bench_ours.py [--models a,b,...|none] [--cases a,b,...|none] [--runs N]
        [--rounds R] [--no-wait] [--max-wait MIN] [--output FILE] [--chart-dir DIR] [--workspace DIR]
        [--ops-data DIR]

Models: the 18 architectures of tests/models/real (manifest.json), by
default all (the corpus models mlp, cnn and attention may be named too).
Operator cases: the single-operator programs that bench/export_op_bench.py
writes into bench/.data/ops (not committed; regenerate them with
`.venv-export/bin/python bench/export_op_bench.py`); the benchmark itself
needs no torch.

Builds: `etsb build -j 2` in a workspace of its own (default
/tmp/bench_ours_ws, kept between runs so that a second run only re-links what
changed; never the repository's etsb-out, which tests use), made as
bench_tree.py makes one (copies of rules, runtime, tools and kernels, taken
when the run starts), with three packages:

    //models  M.pte and, per model, et_model_binary(name = "M_ours", model = "M.pte")
              (no kernel attributes: the rules' default, etsb's kernels alone);
              and one M_ours_all_kernels companion (every kernel of the library)
    //ops     per case C, et_model_binary(name = "C_ours", model = "C.pte")
    //bench_et_1t  runner_et_optimized: the same //tools/runner:runner linked with
              the wheel's prebuilt libexecutorch_kernels_optimized.so (which
              registers its kernels when loaded), whose entry point sets
              ExecuTorch's threadpool to one thread (below)

Threads: both sides run on one thread. etsb's kernels never start a thread.
The prebuilt library parallelises through ExecuTorch's threadpool
(`executorch::extension::parallel_for` -> libexecutorch_threadpool.so, a
pthreadpool sized when first used to the performance cores: 2 here) and
reads no environment variable for it; it uses no OpenMP. So the peer's entry
point calls `get_threadpool()->_unsafe_reset_threadpool(1)` (the wheel ships
the library but not threadpool.h: the two members used are declared in the
entry file) and checks that the pool then reports one thread;
ETSB_BENCH_ET_THREADS=N sets N instead (0: the library's default).
OMP_NUM_THREADS=1 is set for both sides as well (a no-op here). The report
gives each side's CPU time / wall time per process as a check.

1. Models, per model: each binary's outputs on the recorded inputs are first
   compared with torch's (tolerance as bench_tree.py: rtol 1e-4, atol 10x the
   larger of the model's float32-vs-float64 and eager-vs-runtime spreads), in
   a run of 3 in-process iterations that also gives a first latency; then R
   interleaved processes (default 7) per side of `--iterations 1+N`, N per
   side enough for ~0.3 s of runs (at least --runs, default 5; at most 5000);
   the runner prints the median of its runs after the warm-up one, and the
   table shows the median over the R processes. Peak RSS: each timed
   process's maximum resident set as a fresh `/usr/bin/time -f %M` reports it
   (not os.wait4 on the runner itself: see run_process), median over the
   processes. GFLOP/s: the model's convolution and matrix-product FLOPs,
   counted from the .pte's kernel calls (argument shapes read with the table
   accessors of etsb's .pte reader, tools/selective_build/readers/pte.py),
   over the median latency; and its share of one core's peak, measured by
   the script (PEAK_SOURCE: ~270 GFLOP/s here, a Zen 5 core with two 512-bit
   FMA pipes, not the ~100 once assumed). Size: each M_ours binary stripped,
   split by its link map as `etsb size` splits it, against the all-kernels
   binary of the same library.
2. Operators: the same for each case (tolerance: 10x the case's recorded
   spreads, at least 1e-6; rtol 1e-4).

Before timing, the script waits (at most --max-wait minutes, default 20)
until the 1-minute load average is below 0.8, once: after that its own
processes keep the load average near 1; it reports the load average at the
start of each part. Output: Markdown tables (printed, and with --output
written to FILE) and two SVG charts (per-model and per-case latency, log
scale) in --chart-dir (default: beside --output). Exits 1 when a binary
fails or disagrees with torch.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from xml.sax.saxutils import escape

sys.path.insert(0, str(Path(__file__).resolve().parent))   # bench_kernels puts tools/ on sys.path too
import bench_tree
from bench_kernels import build, check_et_runner, check_setup, size_mod
from common import finish
from bench_tree import (
    LATENCY_LINE,
    REAL_DIR,
    Model,
    diff_cell,
    difference,
    load_models,
    markdown,
    ms_cell,
    new_workspace,
    wait_for_quiet,
    write_if_changed,
)
from selective_build.readers import pte as pte_reader

DEFAULT_WORKSPACE = Path("/tmp/bench_ours_ws")
DEFAULT_OPS_DATA = Path(__file__).resolve().parent / ".data" / "ops"
EXPORT_HINT = ".venv-export/bin/python bench/export_op_bench.py"
BRIEF_PEAK_GFLOPS = 100.0  # the figure once given for one core here (AVX-512 + FMA); measured instead below
PROCESS_MS = 300.0         # in-process runs per timed process: enough for about this long
MAX_ITERATIONS = 5000
CHECK_ITERATIONS = 3       # the correctness run: a warm-up and a first latency too
THREADS_VARIABLE = "ETSB_BENCH_ET_THREADS"
TIME = "/usr/bin/time"    # GNU time: -f, -o

ET_PACKAGE = "bench_et_1t"
ET_BUILD = '''# bench/bench_ours.py: the model runner (the same //tools/runner:runner the
# examples link) with ExecuTorch's prebuilt optimized kernels instead of ours,
# on one thread (see one_thread.cpp). The library registers its kernels when
# it is loaded; nothing in the runner refers to it, hence --no-as-needed.
load("//rules:private/shim.bzl", "RUNNER", "RUNTIME", "etsb_cxx_binary", "etsb_cxx_library")

etsb_cxx_library(
    name = "optimized_kernels",
    srcs = ["one_thread.cpp"],
    deps = [RUNTIME],
    linkopts = [
        "-Wl,--no-as-needed",
        "-L$(EXECUTORCH_RUNTIME)/lib",
        "-lexecutorch_kernels_optimized",
        "-lexecutorch_threadpool",
        "-Wl,-rpath,$(EXECUTORCH_RUNTIME)/lib",
    ],
)

etsb_cxx_binary(
    name = "runner_et_optimized",
    deps = [RUNNER, ":optimized_kernels", RUNTIME],
)
'''
ET_ENTRY = '''// The runner calls etsb::register_model_kernels() before it loads the program
// (it is compiled with -DETSB_MODEL_ENTRY). The kernels come from ExecuTorch's
// optimized library, which registers them itself when it is loaded; here the
// threadpool its kernels parallelise on is set to one thread
// (ETSB_BENCH_ET_THREADS=N: N threads; 0: the library's default size).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <executorch/runtime/core/error.h>

// libexecutorch_threadpool.so exports these; the wheel ships no threadpool.h.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t new_thread_count);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace etsb {
executorch::runtime::Error register_model_kernels() {
  const char* text = std::getenv("ETSB_BENCH_ET_THREADS");
  long threads = text && *text ? std::strtol(text, nullptr, 10) : 1;
  if (threads <= 0) return executorch::runtime::Error::Ok;
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr || !pool->_unsafe_reset_threadpool(static_cast<uint32_t>(threads)) ||
      pool->get_thread_count() != static_cast<size_t>(threads)) {
    std::fprintf(stderr, "cannot set ExecuTorch's threadpool to %ld threads\\n", threads);
    return executorch::runtime::Error::Internal;
  }
  return executorch::runtime::Error::Ok;
}
}  // namespace etsb
'''


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


def real_model_names() -> list[str]:
    return sorted(json.loads((REAL_DIR / "manifest.json").read_text())["models"])


def load_cases(data: Path, names: list[str] | None) -> tuple[list[Model], dict[str, str]]:
    """The operator cases exported by export_op_bench.py (as bench_tree.Model:
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
        atol = 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)
        result.append(Model(name, data / info["pte"], tuple(data / p for p in info["inputs"]),
                            tuple(data / p for p in info["outputs"]), len(info["operators"]), atol, 1e-4))
        descriptions[name] = info["description"]
    return result, descriptions


# -- FLOPs from the program ------------------------------------------------------------------


@dataclass(frozen=True)
class KernelCall:
    """One kernel call of a method: its operator and, per argument, a tensor's
    sizes (a tuple), a bool, an int, or None (anything else)."""

    operator: str
    arguments: tuple


def kernel_calls(pte: Path, method: str = "forward") -> list[KernelCall]:
    """The kernel calls of ``method`` with their arguments' shapes and scalars,
    read with the table accessors of etsb's .pte reader (which itself keeps
    only each tensor's dtype and dim order)."""
    data = pte.read_bytes()
    reader = pte_reader._Reader(data, pte_reader.flatbuffer_size(data, str(pte)), str(pte))
    root = reader.table(reader.u32(0))
    for plan in reader.tables(root, pte_reader._PROGRAM_EXECUTION_PLAN, "methods"):
        if reader.string(plan, pte_reader._PLAN_NAME, "a method name") == method:
            break
    else:
        raise SystemExit(f"{pte}: no method {method!r}")
    operators = [str(op) for op in pte_reader._operators(reader, plan, method)]
    values = reader.tables(plan, pte_reader._PLAN_VALUES, "values")

    def argument(index: int):
        value = values[index]
        kind = reader.scalar(value, pte_reader._EVALUE_VAL_TYPE, "B")
        if kind == pte_reader._VAL_TENSOR:
            tensor = reader.child(value, pte_reader._EVALUE_VAL, "tensor")
            return tuple(reader.ints(tensor, pte_reader._TENSOR_SIZES, "i", "dimensions"))
        if kind == _VAL_BOOL:
            return bool(reader.scalar(reader.child(value, pte_reader._EVALUE_VAL, "bool"), 0, "B"))
        if kind == pte_reader._VAL_INT:
            return reader.scalar(reader.child(value, pte_reader._EVALUE_VAL, "int"), pte_reader._INT_VAL, "q")
        return None

    calls = []
    for chain in reader.tables(plan, pte_reader._PLAN_CHAINS, "chains"):
        for instruction in reader.tables(chain, pte_reader._CHAIN_INSTRUCTIONS, "instructions"):
            if reader.scalar(instruction, pte_reader._INSTRUCTION_ARGS_TYPE, "B") != pte_reader._INSTR_KERNEL_CALL:
                continue
            call = reader.child(instruction, pte_reader._INSTRUCTION_ARGS, "kernel call")
            operator = operators[reader.scalar(call, pte_reader._KERNEL_CALL_OP_INDEX, "i")]
            args = reader.ints(call, pte_reader._KERNEL_CALL_ARGS, "i", "arguments")
            calls.append(KernelCall(operator, tuple(argument(i) for i in args)))
    return calls


_VAL_BOOL = 3   # KernelTypes union tag of Bool (program.fbs: Null, Int, Bool, ...)


def product(values) -> int:
    return math.prod(int(v) for v in values)


def call_flops(call: KernelCall) -> int:
    """Multiply-add FLOPs (2 per multiply-add) of a convolution or matrix
    product; 0 for any other operator. Shapes are the planned (static) ones."""
    name, args = call.operator, call.arguments
    if name == "aten::convolution.out":
        # (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, out)
        source, weight, transposed, out = args[0], args[1], args[6], args[-1]
        per_element = product(weight[1:])   # (IC/groups)*KH*KW, or (OC/groups)*KH*KW when transposed
        return 2 * product(source if transposed else out) * per_element
    if name == "aten::addmm.out":           # (self, mat1, mat2, beta, alpha, out)
        (m, k), n = args[1], args[2][1]
        return 2 * m * n * k
    if name == "aten::mm.out":              # (self, mat2, out)
        (m, k), n = args[0], args[1][1]
        return 2 * m * n * k
    if name == "aten::bmm.out":             # (self, mat2, out)
        (b, m, k), n = args[0], args[1][2]
        return 2 * b * m * n * k
    if name == "aten::linear.out":          # (input, weight, bias, out)
        weight = args[1]
        return 2 * product(args[0]) * weight[0]
    return 0


def program_flops(pte: Path) -> int:
    return sum(call_flops(call) for call in kernel_calls(pte))


# -- running ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One process: the runner's median ms, its peak RSS (KB) and CPU seconds
    (as /usr/bin/time reports them), its wall seconds, or what went wrong."""

    ms: float | None
    rss_kb: int
    cpu_s: float
    wall_s: float
    problem: str | None


def child_env(threads: int | None = None) -> dict[str, str]:
    """The environment of a timed process: the peer's entry point sizes its
    threadpool to ``threads`` (default: ETSB_BENCH_ET_THREADS, else 1)."""
    count = str(threads) if threads else os.environ.get(THREADS_VARIABLE, "1")
    return dict(os.environ, OMP_NUM_THREADS="1", **{THREADS_VARIABLE: count})


def run_process(binary: Path, item: Model, out: Path, iterations: int, tmp: Path, threads: int | None = None) -> Run:
    """Run ``item`` in ``binary`` once, under a fresh `/usr/bin/time -f "%M %U %S"`;
    with ``threads``, `--threads N` (and the peer's entry point told the same).

    Not os.wait4 on the binary itself: Python starts children with vfork, and
    Linux carries the high-water RSS of the image an exec replaces into the
    child's ru_maxrss, so every child "peaks" at the Python process's RSS
    (measured: 41.8 MB on both sides whatever the model). time's own image is
    ~2 MB, far below any runner's."""
    if out.exists():
        shutil.rmtree(out)
    usage_file = tmp / "usage"
    command = [TIME, "-f", "%M %U %S", "-o", str(usage_file), str(binary), "--model", str(item.pte),
               "--inputs", ",".join(str(p) for p in item.inputs), "--output-dir", str(out),
               "--iterations", str(iterations)] + (["--threads", str(threads)] if threads else [])
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=child_env(threads), check=False)
    wall = time.perf_counter() - start
    try:
        rss, user, system = usage_file.read_text().split()[-3:]
        rss_kb, cpu = int(rss), float(user) + float(system)
    except (OSError, ValueError):
        rss_kb, cpu = 0, 0.0
    if run.returncode != 0:
        first = [line for line in run.stderr.strip().splitlines() if not line.startswith("Command exited")]
        return Run(None, rss_kb, cpu, wall, "fails: " + " / ".join(first[:2] or [f"exit {run.returncode}"]))
    match = LATENCY_LINE.search(run.stdout)
    if not match:
        return Run(None, rss_kb, cpu, wall, f"no latency line in {run.stdout!r}")
    return Run(float(match.group(1)), rss_kb, cpu, wall, None)


@dataclass(frozen=True)
class Timed:
    """One model or case, both sides: median ms, median peak RSS (KB), CPU/wall
    per process, output differences, and the in-process runs per process."""

    name: str
    flops: int
    ms: dict
    rss_kb: dict
    cpu_share: dict
    diffs: dict
    iterations: dict
    samples: dict   # side -> each timed process's ms, in round order

    def ratio(self) -> float | None:
        return self.ms["ours"] / self.ms["ET"] if "ours" in self.ms and "ET" in self.ms else None

    def round_ratios(self) -> list[float]:
        """ours / ET within each round (the two processes ran back to back)."""
        return [a / b for a, b in zip(self.samples.get("ours", ()), self.samples.get("ET", ()))]

    def gflops(self, side: str) -> float | None:
        return self.flops / self.ms[side] / 1e6 if self.flops and side in self.ms else None


def bench_items(items: list[Model], sides: dict[str, dict[str, Path]], runs: int, rounds: int, tmp: Path,
                programs: dict[str, dict[str, Model]] | None = None,
                threads: dict[str, int] | None = None) -> tuple[list[Timed], list[str]]:
    """Check, then time, every item on every side (interleaved rounds). A side
    runs the item itself unless ``programs[side][name]`` gives it another
    program (inputs, torch's outputs, tolerance) of the same model, with
    `--threads N` when ``threads[side]`` says N."""
    results, problems = [], []
    programs, threads = programs or {}, threads or {}
    for item in items:
        usable, diffs, first = {}, {}, {}
        program = {side: programs.get(side, {}).get(item.name, item) for side in sides}
        for side, binaries in sides.items():
            run = run_process(binaries[item.name], program[side], tmp / "check", CHECK_ITERATIONS, tmp,
                              threads.get(side))
            if run.problem:
                problems.append(f"{item.name}, {side}: {run.problem}")
                continue
            diffs[side] = difference(program[side], tmp / "check")
            if not diffs[side][1]:
                problems.append(f"{item.name}, {side}: outputs out of tolerance (max abs diff {diffs[side][0]:.3g},"
                                f" atol {program[side].atol:.1e})")
                continue
            usable[side], first[side] = binaries[item.name], run.ms
        # Each side runs enough in-process iterations for ~PROCESS_MS (at least ``runs``).
        iterations = {side: max(runs, min(MAX_ITERATIONS, math.ceil(PROCESS_MS / max(ms, 1e-3))))
                      for side, ms in first.items()}
        samples: dict[str, list[Run]] = {side: [] for side in usable}
        for _ in range(rounds):
            for side, binary in usable.items():
                run = run_process(binary, program[side], tmp / "timed", 1 + iterations[side], tmp, threads.get(side))
                if run.problem:
                    problems.append(f"{item.name}, {side}, timed: {run.problem}")
                else:
                    samples[side].append(run)
        samples = {side: s for side, s in samples.items() if s}
        timed = Timed(item.name, program_flops(item.pte),
                      {side: statistics.median(r.ms for r in s) for side, s in samples.items()},
                      {side: statistics.median(r.rss_kb for r in s) for side, s in samples.items()},
                      {side: max(r.cpu_s / r.wall_s for r in s) for side, s in samples.items()},
                      diffs, iterations, {side: tuple(r.ms for r in s) for side, s in samples.items()})
        results.append(timed)
        ratio = timed.ratio()
        print(f"  {item.name}: " + ", ".join(f"{side} {ms_cell(v)} ms" for side, v in timed.ms.items())
              + (f" ({ratio:.3g}x)" if ratio else "")
              + " [runs/process: " + ", ".join(f"{k} {v}" for k, v in iterations.items()) + "]", flush=True)
    return results, problems


# -- sizes -------------------------------------------------------------------------------------


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
    for model, size in measured:
        rest = size.stripped - sum(size.parts.get(p, 0) for p in parts)
        rows.append([model.name, f"{model.operators}/{count}", *(kb(size.parts.get(p, 0)) for p in parts), kb(rest),
                     kb(size.stripped), f"{size.stripped / every.stripped:.2f}",
                     f"{kernel_code(size) / kernel_code(every):.2f}"])
    rest = every.stripped - sum(every.parts.get(p, 0) for p in parts)
    rows.append([f"all kernels ({every_label.split(':')[1]})", f"{count}/{count}",
                 *(kb(every.parts.get(p, 0)) for p in parts), kb(rest), kb(every.stripped), "1.00", "1.00"])
    return SizeTable(headers, rows, kb(every.stripped), count)


def kb(size: int) -> str:
    return f"{size / 1024:,.1f}"


# -- report ------------------------------------------------------------------------------------


def ratio_cell(ratio: float | None) -> str:
    if ratio is None:
        return "-"
    text = f"{ratio:.2f}x" if ratio >= 0.1 else f"{ratio:.2g}x"
    return text + (" (par)" if text == "1.00x" else " (SLOWER)" if ratio > 1 else "")


def gflops_cell(value: float | None, peak: float) -> str:
    return "-" if value is None else f"{value:.1f} ({value / peak:.0%})"


def mb(kb_value: float | None) -> str:
    return "-" if kb_value is None else f"{kb_value / 1024:.1f}"


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


def geomean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


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


def cpu_note(results: list[Timed]) -> str:
    parts = []
    for side in ("ours", "ET"):
        shares = [t.cpu_share[side] for t in results if side in t.cpu_share]
        if shares:
            parts.append(f"{side} median {statistics.median(shares):.2f}, max {max(shares):.2f}")
    return ("CPU time / wall time of the timed processes (start-up included; 1.00 = one busy core, above 1 = "
            "more than one thread at work): " + "; ".join(parts) + ".")


OURS_AND_ET = (("ours", "ours: etsb's portable kernels", "#1f77b4"),
               ("ET", "ExecuTorch prebuilt optimized, 1 thread", "#ff7f0e"))


def bar_chart(title: str, results: list[Timed], path: Path, sides: tuple = OURS_AND_ET,
              ratio: tuple | None = ("ours/ET", Timed.ratio),
              label: Callable[[Timed, str], str] | None = None) -> None:
    """A horizontal bar chart (log-scale ms), one bar per row and side (sides:
    (key, legend, colour); default ours and ET's optimized library), each
    labelled with ``label(t, side)`` (default its time), the row with
    ``ratio``'s (header, function of the row), unless it is None."""
    keys = [key for key, _, _ in sides]
    rows = [t for t in results if all(key in t.ms for key in keys)]
    if not rows:
        return
    label_w, bar_w, right_w, row_h, top = 130, 540, 80, 12 * len(sides) + 6, 58
    width, height = label_w + bar_w + right_w, top + row_h * len(rows) + 40
    values = [t.ms[s] for t in rows for s in keys]
    low = 10 ** math.floor(math.log10(min(values)))
    high = 10 ** math.ceil(math.log10(max(values) * 1.5))   # room for the value labels
    span = math.log10(high) - math.log10(low)

    def x(value: float) -> float:
        return label_w + bar_w * (math.log10(value) - math.log10(low)) / span

    colours = {key: colour for key, _, colour in sides}
    out = [(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'),
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14" font-weight="bold">{escape(title)}</text>']
    legend_x = label_w
    for key, legend, colour in sides:   # ~6 px a character
        out.append(f'<rect x="{legend_x}" y="28" width="12" height="10" fill="{colour}"/>'
                   f'<text x="{legend_x + 16}" y="37">{escape(legend)}</text>')
        legend_x += 16 + 6 * len(legend)
    if ratio:
        out.append(f'<text x="{label_w + bar_w + 8}" y="37" font-weight="bold">{escape(ratio[0])}</text>')
    for index in range(1, len(rows), 2):   # every other row shaded, under the grid
        out.append(f'<rect x="0" y="{top + index * row_h}" width="{width}" height="{row_h}" fill="#f4f4f4"/>')
    decade = low
    while decade <= high * 1.0001:
        gx = x(decade)
        out.append(f'<line x1="{gx:.1f}" y1="{top - 6}" x2="{gx:.1f}" y2="{top + row_h * len(rows)}" '
                   'stroke="#ccc" stroke-width="1"/>')
        out.append(f'<text x="{gx:.1f}" y="{top + row_h * len(rows) + 14}" text-anchor="middle" fill="#555">'
                   f'{decade:g} ms</text>')
        decade *= 10
    for index, t in enumerate(rows):
        y = top + index * row_h
        out.append(f'<text x="{label_w - 6}" y="{y + row_h / 2 + 4}" text-anchor="end">{escape(t.name)}</text>')
        for offset, side in zip(range(3, row_h, 12), keys):
            end = x(t.ms[side])
            out.append(f'<rect x="{label_w}" y="{y + offset}" width="{max(end - label_w, 1):.1f}" height="11" '
                       f'fill="{colours[side]}"/>')
            out.append(f'<text x="{end + 3:.1f}" y="{y + offset + 9}" font-size="9" fill="#333">'
                       f'{escape(label(t, side)) if label else ms_cell(t.ms[side])}</text>')
        if not ratio:
            continue
        value = ratio[1](t)
        out.append(f'<text x="{label_w + bar_w + 8}" y="{y + row_h / 2 + 4}" '
                   f'fill="{"#c00" if value > 1 else "#080"}" font-weight="bold">'
                   f'{value:.2f}x</text>' if value >= 0.1 else
                   f'<text x="{label_w + bar_w + 8}" y="{y + row_h / 2 + 4}" fill="#080" font-weight="bold">'
                   f'{value:.2g}x</text>')
    out.append(f'<text x="{label_w + bar_w / 2}" y="{height - 6}" text-anchor="middle" fill="#555">'
               'median latency, log scale (shorter is faster)</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def report(options: argparse.Namespace, peak: float, model_results: list[Timed], case_results: list[Timed],
           descriptions: dict[str, str], sizes: SizeTable | None, loads: dict[str, float], optimized: Path,
           charts: list[Path], problems: list[str]) -> str:
    """The Markdown report: models, operators, sizes, and how they were measured."""
    lines = [(f"{datetime.date.today().isoformat()}, {cpu_name()}, {os.cpu_count()} cores; each side on one thread. "
             f"Peak of one core, measured: {peak:.0f} GFLOP/s (fused multiply-adds on 16-float vectors, "
             f"`g++ -O2 -march=native`); the percentages below are of that "
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
        lines.append(cpu_note(results))
    lines.append(f"Peer: //tools/runner:runner + {optimized} ({optimized.stat().st_size / 2**20:.1f} MB), its "
                 f"threadpool reset to {os.environ.get(THREADS_VARIABLE, '1')} thread(s) by the entry point, "
                 "OMP_NUM_THREADS=1. Ours: the same runner, etsb's kernels, op-selective (`et_model_binary` defaults).")
    if charts:
        lines.append("Charts: " + ", ".join(str(c) for c in charts))
    lines += [f"PROBLEM: {line}" for line in problems]
    return "\n".join(lines)


# -- main ----------------------------------------------------------------------------------------


def write_package(directory: Path, items: list[Model], suffix: str, comment: str) -> None:
    """A package of the items' programs (copies) and, per item I,
    et_model_binary(name = "I<suffix>", model = "I.pte") (the rules' defaults)."""
    directory.mkdir(exist_ok=True)
    for item in items:
        copy = directory / f"{item.name}.pte"
        if not copy.exists() or copy.read_bytes() != item.pte.read_bytes():
            shutil.copy2(item.pte, copy)
    text = [comment, 'load("//rules:executorch.bzl", "et_model_binary")', '']
    text += [f'et_model_binary(name = "{i.name}{suffix}", model = "{i.name}.pte")\n' for i in items]
    write_if_changed(directory / "BUILD", "\n".join(text))


def write_et_package(workspace: Path) -> None:
    """//bench_et_1t: runner_et_optimized, the runner on the wheel's optimized kernels."""
    et = workspace / ET_PACKAGE
    et.mkdir(exist_ok=True)
    write_if_changed(et / "BUILD", ET_BUILD)
    write_if_changed(et / "one_thread.cpp", ET_ENTRY)


def sync_workspace(workspace: Path, models: list[Model], cases: list[Model]) -> None:
    """The bench workspace: etsb's parts, //models, //ops and //bench_et_1t."""
    new_workspace(workspace)
    comment = '# bench/bench_ours.py: each program with etsb\'s own portable kernels alone (the rules\' default).'
    for package, items in (("models", models), ("ops", cases)):
        write_package(workspace / package, items, "_ours", comment)
    write_et_package(workspace)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated model names (default: the 18 real models; 'none': skip)")
    parser.add_argument("--cases", help="comma-separated operator cases (default: all exported; 'none': skip)")
    parser.add_argument("--runs", type=int, default=5, help="in-process runs per timed process, at least (default 5)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timed processes per side (default 7)")
    parser.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
    parser.add_argument("--max-wait", type=float, default=bench_tree.QUIET_WAIT_S / 60,
                        help=f"minutes to wait for a quiet machine before each timed part (default "
                             f"{bench_tree.QUIET_WAIT_S // 60})")
    parser.add_argument("--output", type=Path, help="also write the Markdown report here")
    parser.add_argument("--chart-dir", type=Path, help="where the SVG charts go (default: beside --output)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help=f"where the binaries are built (default {DEFAULT_WORKSPACE}, kept between runs)")
    parser.add_argument("--ops-data", type=Path, default=DEFAULT_OPS_DATA,
                        help=f"the exported operator cases (default {DEFAULT_OPS_DATA})")
    options = parser.parse_args()
    bench_tree.QUIET_WAIT_S = int(options.max_wait * 60)
    check_setup()
    models = [] if options.models == "none" else load_models(
        options.models.split(",") if options.models else real_model_names())
    cases, descriptions = ([], {}) if options.cases == "none" else load_cases(
        options.ops_data.resolve(), options.cases.split(",") if options.cases else None)

    started = time.perf_counter()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start", flush=True)
    workspace = options.workspace.resolve()
    sync_workspace(workspace, models, cases)
    et_label = f"//{ET_PACKAGE}:runner_et_optimized"
    every_label = f"//models:{models[0].name}_ours_all_kernels" if models else None
    labels = ([f"//models:{m.name}_ours" for m in models] + [f"//ops:{c.name}_ours" for c in cases]
              + [et_label] + ([every_label] if every_label else []))
    outputs = build(workspace, labels)
    optimized = Path(check_et_runner(outputs[et_label]))
    sizes = bench_sizes(models, workspace, outputs, every_label) if models else None

    problems, loads, charts = [], {}, []
    model_results, case_results = [], []
    with tempfile.TemporaryDirectory(prefix="bench_ours_") as tmp:
        # One wait, before all timing: later, this script's own processes keep the load average near 1.
        loads["peak"] = wait_for_quiet("timing", not options.no_wait)
        peak = measure_peak(Path(tmp))
        print(f"peak of one core: {peak:.0f} GFLOP/s", flush=True)
        for key, items, package in (("models", models, "models"), ("ops", cases, "ops")):
            if not items:
                continue
            loads[key] = os.getloadavg()[0]
            sides = {"ours": {i.name: outputs[f"//{package}:{i.name}_ours"] for i in items},
                     "ET": {i.name: outputs[et_label] for i in items}}
            results, found = bench_items(items, sides, options.runs, options.rounds, Path(tmp))
            problems += found
            if key == "models":
                model_results = results
            else:
                case_results = results

    chart_dir = options.chart_dir or (options.output.parent if options.output else None)
    if chart_dir:
        chart_dir.mkdir(parents=True, exist_ok=True)
        for name, title, results in (("bench_ours_models.svg", "Real models: median latency, ours vs ExecuTorch",
                                      model_results),
                                     ("bench_ours_ops.svg", "Operators: median latency, ours vs ExecuTorch",
                                      case_results)):
            if results:
                bar_chart(title, results, chart_dir / name)
                charts.append(chart_dir / name)
    text = report(options, peak, model_results, case_results, descriptions, sizes, loads, optimized, charts,
                  problems)
    return finish(text, options.output, started, problems)


if __name__ == "__main__":
    sys.exit(main())
