"""Kernel benchmark: each corpus model's trimmed binary against the same runner
linked with ExecuTorch's prebuilt optimized kernels, for speed; and the
trimmed binaries against the all-kernels one, for size; in one run.

    .venv/bin/python bench/bench_kernels.py [--iterations N] [--rounds R] [--workspace DIR]

Builds: everything is built by `etsb build -j 2` in a copy of the workspace
(default etsb-out/bench/kernels/, kept between runs so that a second run only
re-links what changed; never the repository's own etsb-out, which other
builds may be using). The copy gets one package more, //bench_et, whose
`runner_et_optimized` links the runner library the examples link
(//tools/runner:runner, the same object, same flags) with
`libexecutorch_kernels_optimized.so` from the executorch wheel instead of a
generated registration library. That library registers its own kernels when
it is loaded, so the runner's `etsb::register_model_kernels()` is given a
definition that registers nothing.

1. Latency, per corpus model and method: the op-selective binary (`bin`),
   the dtype-selective one (`bin_dtype_selective`, the smaller form that the
   rule keeps) and the ExecuTorch-optimized runner, on the corpus inputs. Each
   binary's outputs are first checked against torch's (rtol 1e-5, atol 1e-6
   for floats, exact otherwise): a binary that computes a wrong result is
   reported, never timed (a model ExecuTorch's library cannot run, such as
   one with a custom operator, is noted and left out). Then R rounds (default
   7), interleaved (A B C A B C ...), of `--iterations N` (default 1000)
   in-process runs each; the runner prints the median of its N runs and the
   table shows the median of the R medians, in microseconds (the corpus
   models run in 0.1-20 us). Goal: ours at most 1.5x ExecuTorch's (reported;
   a miss does not fail the script).
2. Size, per model: stripped sizes of the op-selective binary, the kept
   dtype-selective binary (and the dtype-restricted candidate it was chosen
   from) and the all-kernels companion (`bin_all_kernels`, every kernel of
   //kernels/portable); and their kernel + registration code, attributed by
   the link map exactly as `etsb size` does (selective_build.driver.size).
   Goals: a trimmed binary's kernel + registration code at most a fifth of the
   all-kernels binary's; dtype-selective never larger than op-selective. The
   script exits 1 when a size goal is missed (or a binary fails or is wrong).
"""

from __future__ import annotations

import argparse
import json
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, table  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from selective_build.driver import size as size_mod  # noqa: E402
from selective_build.driver.state import executorch_runtime  # noqa: E402

ETSB = str(REPO / ".venv" / "bin" / "etsb")
STARLARK = str(REPO / "etsb-out" / "tools" / "etsb-starlark")
MODELS_DIR = REPO / "tests" / "models"
DEFAULT_WORKSPACE = REPO / "etsb-out" / "bench" / "kernels"

LATENCY_GOAL = 1.5        # ours / ExecuTorch optimized, at most
KERNEL_SHARE_GOAL = 0.2   # trimmed kernel + registration code / all-kernels', at most

OPTIMIZED_LIB = "libexecutorch_kernels_optimized.so"
VARIANTS = ("op-selective", "dtype-selective", "ExecuTorch optimized")

# The extra package of the workspace copy: the model runner with ExecuTorch's
# optimized kernels in place of a generated registration library.
ET_BUILD = '''# bench/bench_kernels.py: the model runner (the same //tools/runner:runner the
# examples link) with ExecuTorch's prebuilt optimized kernels instead of ours.
# libexecutorch_kernels_optimized.so registers its kernels when it is loaded;
# nothing in the runner refers to it, hence --no-as-needed.
load("//rules:private/shim.bzl", "RUNNER", "RUNTIME", "etsb_cxx_binary", "etsb_cxx_library")

etsb_cxx_library(
    name = "optimized_kernels",
    srcs = ["no_registration.cpp"],
    deps = [RUNTIME],
    linkopts = [
        "-Wl,--no-as-needed",
        "-L$(EXECUTORCH_RUNTIME)/lib",
        "-lexecutorch_kernels_optimized",
        "-Wl,-rpath,$(EXECUTORCH_RUNTIME)/lib",
    ],
)

etsb_cxx_binary(
    name = "runner_et_optimized",
    deps = [RUNNER, ":optimized_kernels", RUNTIME],
)
'''

ET_ENTRY = '''// The runner calls etsb::register_model_kernels() (it is compiled with
// -DETSB_MODEL_ENTRY); here the kernels come from ExecuTorch's optimized
// library, which registers them itself when it is loaded.
#include <executorch/runtime/core/error.h>

namespace etsb {
executorch::runtime::Error register_model_kernels() { return executorch::runtime::Error::Ok; }
}  // namespace etsb
'''

LATENCY_LINE = re.compile(r"median latency: ([0-9.]+) ms over (\d+) runs")
BUILT_LINE = re.compile(r"^(//\S+): (\S+)$", re.MULTILINE)


# -- workspace ----------------------------------------------------------------------


def sync_workspace(workspace: Path, models: list[str]) -> None:
    """Copy what the examples read into ``workspace`` (sources replaced, with
    their modification times, so the kept etsb-out rebuilds only what changed)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    workspace.mkdir(parents=True, exist_ok=True)
    for name in ("MODULE.bazel", "BUILD"):
        shutil.copy2(REPO / name, workspace / name)
    parts = ["rules", "runtime", "yaml", "kernels", "tools/runner", "tools/selective_build",
             *(f"examples/{m}" for m in models), *(f"tests/models/{m}" for m in models)]
    for part in parts:
        destination = workspace / part
        if destination.exists():
            shutil.rmtree(destination)
        shutil.copytree(REPO / part, destination, ignore=ignore)
    shutil.copy2(MODELS_DIR / "BUILD", workspace / "tests" / "models" / "BUILD")
    package = workspace / "bench_et"
    package.mkdir(exist_ok=True)
    for name, text in (("BUILD", ET_BUILD), ("no_registration.cpp", ET_ENTRY)):
        path = package / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


def build(workspace: Path, labels: list[str]) -> dict[str, Path]:
    """`etsb build -j 2 LABELS` in the copy; the path of each label's output."""
    env = dict(os.environ, ETSB_STARLARK=STARLARK)
    start = time.perf_counter()
    run = subprocess.run([ETSB, "build", "-j", "2", *labels], cwd=workspace, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        raise SystemExit(f"etsb build failed in {workspace} (exit {run.returncode}):\n{run.stdout[-5000:]}")
    actions = len(re.findall(r"^\[\d+/\d+\] ", run.stdout, re.MULTILINE))
    print(f"built {len(labels)} targets in {workspace} ({actions} actions, "
          f"{time.perf_counter() - start:.0f} s)", flush=True)
    return {label: workspace / path for label, path in BUILT_LINE.findall(run.stdout)}


def check_setup() -> str:
    """The executorch wheel's directory, once the set-up's evaluator and the
    wheel's prebuilt optimized kernels are known to be there (exit otherwise)."""
    if not os.access(STARLARK, os.X_OK):
        raise SystemExit(f"{STARLARK} is missing: run scripts/setup.sh")
    et_root = executorch_runtime()
    if et_root is None or not os.path.exists(os.path.join(et_root, "lib", OPTIMIZED_LIB)):
        raise SystemExit(f"{OPTIMIZED_LIB} not found in the executorch wheel: run scripts/setup.sh")
    return et_root


def check_et_runner(binary: Path) -> str:
    """ldd of the ExecuTorch runner: every dependency resolved and the
    optimized library among them. Returns the library's path."""
    out = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
    missing = [line.strip() for line in out.splitlines() if "not found" in line]
    if missing:
        raise SystemExit(f"{binary}: unresolved libraries: {missing}")
    for line in out.splitlines():
        if OPTIMIZED_LIB in line:
            return line.split("=>")[1].split("(")[0].strip()
    raise SystemExit(f"{binary} does not load {OPTIMIZED_LIB}:\n{out}")


# -- running --------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One method of one corpus model, with its inputs and torch's outputs."""

    model: str
    method: str
    pte: Path
    inputs: tuple[Path, ...]
    outputs: tuple[Path, ...]
    kernel_calls: int

    @property
    def name(self) -> str:
        return self.model if self.method == "forward" else f"{self.model}.{self.method}"


def cases(manifest: dict) -> list[Case]:
    result = []
    for model in sorted(manifest["models"]):
        meta = manifest["models"][model]
        for method, info in meta["methods"].items():
            result.append(Case(model, method, MODELS_DIR / meta["pte"],
                               tuple(MODELS_DIR / model / i["file"] for i in info["inputs"]),
                               tuple(MODELS_DIR / model / o["file"] for o in info["outputs"]),
                               info.get("kernel_calls", 0)))
    return result


def run_binary(binary: Path, case: Case, out: Path, iterations: int = 0) -> tuple[float | None, str | None]:
    """Run ``case`` in ``binary``; (median ms or None, a problem or None). The
    outputs are compared with torch's every time."""
    if out.exists():
        shutil.rmtree(out)
    command = [str(binary), "--model", str(case.pte), "--method", case.method,
               "--inputs", ",".join(str(p) for p in case.inputs), "--output-dir", str(out)]
    if iterations:
        command += ["--iterations", str(iterations)]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        first = (run.stderr.strip() or f"exit {run.returncode}").splitlines()
        return None, "fails: " + " / ".join(first[:3])
    problem = compare(case, out)
    if problem:
        return None, "wrong output: " + problem
    if not iterations:
        return None, None
    match = LATENCY_LINE.search(run.stdout)
    if not match:
        return None, f"no latency line in {run.stdout!r}"
    return float(match.group(1)), None


def compare(case: Case, out: Path) -> str | None:
    for index, expected_path in enumerate(case.outputs):
        got_path = out / f"output_{index}.npy"
        if not got_path.exists():
            return f"output {index} missing"
        expected, got = np.load(expected_path), np.load(got_path)
        if got.dtype != expected.dtype or got.shape != expected.shape:
            return f"output {index}: {got.dtype}{list(got.shape)}, torch {expected.dtype}{list(expected.shape)}"
        if np.issubdtype(expected.dtype, np.floating):
            if not np.allclose(got, expected, rtol=1e-5, atol=1e-6):
                worst = float(np.max(np.abs(got.astype(np.float64) - expected)))
                return f"output {index}: max abs difference {worst:.3g}"
        elif not np.array_equal(got, expected):
            return f"output {index}: {int(np.sum(got != expected))} elements differ"
    return None


def bench_latency(all_cases: list[Case], binaries: dict[str, dict[str, Path]], iterations: int, rounds: int,
                  tmp: Path) -> tuple[list[list[str]], list[str], list[str], list[tuple[str, float]]]:
    """The latency table's rows, problems with our binaries (a failure or a
    wrong output), notes on the peer, and (case, worse ratio of ours) per case."""
    rows, problems, notes, ratios = [], [], [], []
    for case in all_cases:
        usable = {}
        for variant in VARIANTS:
            _, problem = run_binary(binaries[variant][case.model], case, tmp / "check")
            if problem and variant == VARIANTS[-1]:
                notes.append(f"{case.name}: ExecuTorch's optimized kernels cannot serve it ({problem}); not timed")
            elif problem:
                problems.append(f"{case.name}, {variant}: {problem}")
            else:
                usable[variant] = binaries[variant][case.model]
        samples: dict[str, list[float]] = {v: [] for v in usable}
        for _ in range(rounds):
            for variant, binary in usable.items():
                ms, problem = run_binary(binary, case, tmp / "timed", iterations)
                if problem:
                    problems.append(f"{case.name}, {variant}, timed run: {problem}")
                    samples[variant] = []
                    break
                samples[variant].append(ms)
        us = {v: statistics.median(s) * 1000 for v, s in samples.items() if s}
        et = us.get("ExecuTorch optimized")
        cells = [case.name, str(case.kernel_calls)]
        cells += [f"{us[v]:.2f}" if v in us else "-" for v in VARIANTS]
        worst = None
        for variant in VARIANTS[:2]:
            if et and variant in us:
                ratio = us[variant] / et
                cells.append(f"{ratio:.2f}x")
                worst = ratio if worst is None else max(worst, ratio)
            else:
                cells.append("-")
        if worst is None:
            cells.append("not measured")
        else:
            cells.append("met" if worst <= LATENCY_GOAL else "NOT MET")
            ratios.append((case.name, worst))
        rows.append(cells)
    return rows, problems, notes, ratios


# -- sizes ------------------------------------------------------------------------------


def kernel_code(measured: size_mod.BinarySize) -> int:
    """Bytes of kernel and registration code: the kernels (op_* objects), the
    kernel utilities and the generated registration, as `etsb size` splits them."""
    parts = measured.parts
    return (parts.get(size_mod.PART_KERNELS, 0) + parts.get(size_mod.PART_KERNEL_SUPPORT, 0)
            + parts.get(size_mod.PART_REGISTRATION, 0))


def kb(size: int) -> str:
    return f"{size / 1024:.1f}"


def bench_sizes(models: list[str], workspace: Path,
                outputs: dict[str, Path]) -> tuple[list, list, list[str], list[str]]:
    """Rows of the two size tables, and the misses of each size goal."""
    stripped_rows, code_rows, share_failures, dtype_failures = [], [], [], []
    for model in models:
        def measure(label: str, path: Path | None = None) -> size_mod.BinarySize:
            path = path or outputs[label]
            return size_mod.measure(str(workspace), str(path.relative_to(workspace)), label)

        op = measure(f"//examples/{model}:bin")
        dtype = measure(f"//examples/{model}:bin_dtype_selective")
        candidate = measure(f"//examples/{model}:bin_dtype_selective_dtype_selective",
                            workspace / "etsb-out" / "bin" / "examples" / model / "bin_dtype_selective_dtype_selective")
        every = measure(f"//examples/{model}:bin_all_kernels")
        dtype_ok = dtype.stripped <= op.stripped
        stripped_rows.append([model, kb(op.stripped), kb(dtype.stripped), kb(candidate.stripped),
                              "dtype" if dtype.stripped == candidate.stripped else "op",
                              kb(every.stripped), "met" if dtype_ok else "NOT MET"])
        if not dtype_ok:
            dtype_failures.append(f"{model}: dtype-selective {dtype.stripped:,} B > op-selective {op.stripped:,} B")
        shares = []
        for name, measured in (("op-selective", op), ("dtype-selective", dtype)):
            share = kernel_code(measured) / kernel_code(every)
            shares.append(share)
            if share > KERNEL_SHARE_GOAL:
                share_failures.append(f"{model}, {name}: kernel + registration code {share:.1%} of the all-kernels "
                                f"binary's (goal <= {KERNEL_SHARE_GOAL:.0%})")
        code_rows.append([model, f"{len(op.operators)}/{len(every.operators)}", kb(kernel_code(op)),
                          kb(kernel_code(dtype)), kb(kernel_code(every)),
                          *(f"{s:.2f}" for s in shares),
                          " / ".join("met" if s <= KERNEL_SHARE_GOAL else "NOT MET" for s in shares)])
    return stripped_rows, code_rows, share_failures, dtype_failures


# -- main -------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1000, help="in-process runs per timed process (default 1000)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved timed processes per binary (default 7)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help="where the workspace copy is built (default etsb-out/bench/kernels)")
    options = parser.parse_args()
    check_setup()

    started = time.perf_counter()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    manifest = json.loads((MODELS_DIR / "manifest.json").read_text())
    all_cases = cases(manifest)
    models = sorted({c.model for c in all_cases})
    missing = [m for m in models if not (REPO / "examples" / m / "BUILD").exists()]
    if missing:
        raise SystemExit(f"corpus models without an example: {missing}")

    workspace = options.workspace.resolve()
    sync_workspace(workspace, models)
    et_label = "//bench_et:runner_et_optimized"
    labels = [f"//examples/{m}:{n}" for m in models for n in ("bin", "bin_dtype_selective", "bin_all_kernels")]
    outputs = build(workspace, labels + [et_label])
    optimized = check_et_runner(outputs[et_label])
    binaries = {
        "op-selective": {m: outputs[f"//examples/{m}:bin"] for m in models},
        "dtype-selective": {m: outputs[f"//examples/{m}:bin_dtype_selective"] for m in models},
        "ExecuTorch optimized": {m: outputs[et_label] for m in models},
    }

    with tempfile.TemporaryDirectory(prefix="etsb_bench_kernels_") as tmp:
        rows, problems, notes, ratios = bench_latency(all_cases, binaries, options.iterations, options.rounds,
                                                      Path(tmp))
    print(f"\n1. Latency (us, median over {options.rounds} interleaved processes of the median of "
          f"{options.iterations} in-process runs; outputs checked against torch's first)")
    print(table(["model", "kernel calls", "ours op-sel us", "ours dtype-sel us", "ET optimized us", "op-sel/ET",
                 "dtype-sel/ET", f"goal <= {LATENCY_GOAL}x"], rows))
    print(f"ExecuTorch runner: //tools/runner:runner + {optimized} "
          f"({os.path.getsize(optimized) / 2**20:.1f} MB, registers its kernels at load)")

    stripped_rows, code_rows, share_failures, dtype_failures = bench_sizes(models, workspace, outputs)
    print("\n2. Stripped binaries (KB)")
    print(table(["model", "op-selective", "dtype-selective (kept)", "dtype-restricted candidate", "kept form",
                 "all kernels", "dtype <= op"], stripped_rows))
    print("\n   Kernel + registration code (KB, from the link map as `etsb size` splits it)")
    print(table(["model", "operators", "op-selective", "dtype-selective", "all kernels", "op-sel/all",
                 "dtype-sel/all", f"goal <= {KERNEL_SHARE_GOAL:.2f} (op / dtype)"], code_rows))

    print("\nGoals:")
    slow = [(name, r) for name, r in ratios if r > LATENCY_GOAL]
    worst = max(ratios, key=lambda item: item[1]) if ratios else None
    print(f"- latency <= {LATENCY_GOAL}x ExecuTorch optimized on every model: "
          + ("met" if not slow else "NOT MET")
          + (f" (worst {worst[0]} {worst[1]:.2f}x)" if worst else "")
          + ("; over: " + ", ".join(f"{n} {r:.2f}x" for n, r in slow) if slow else "")
          + ("; not measured (see NOTE): " + ", ".join(sorted({c.name for c in all_cases} - {n for n, _ in ratios}))
             if len(ratios) < len(all_cases) else ""))
    print(f"- kernel + registration code <= {KERNEL_SHARE_GOAL:.0%} of all-kernels: "
          + ("met" if not share_failures else f"NOT MET in {len(share_failures)} of {2 * len(models)} binaries"))
    print("- dtype-selective never larger than op-selective: " + ("met" if not dtype_failures else "NOT MET"))
    for line in share_failures + dtype_failures:
        print(f"  {line}")
    for line in notes:
        print(f"NOTE: {line}")
    for line in problems:
        print(f"PROBLEM: {line}")
    print(f"\n(bench took {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f} at the end)")
    return 1 if share_failures or dtype_failures or problems else 0


if __name__ == "__main__":
    sys.exit(main())
