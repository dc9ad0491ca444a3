"""Tree benchmark: real models built by etsb's driver with ExecuTorch's OWN
portable kernels (compiled from an ExecuTorch source tree), measured side by
side in one run: size against every kernel of the tree, speed against
ExecuTorch's prebuilt optimized kernel library, and the cold build against
etsb's own kernels.

    .venv/bin/python bench/bench_tree.py [--models a,b,...] [--runs N] [--rounds R]
        [--cold-runs N] [--no-wait] [--output FILE] [--workspace DIR] [--executorch-root DIR]

Models: the 18 architectures of tests/models/real (manifest.json) and the
corpus models mlp, cnn and attention (tests/models), by default all 21.

Builds: everything is built by `etsb build -j 2 --executorch-root TREE` in a
workspace of its own (default /tmp/bench_tree_ws, kept between runs so that a
second run only re-links what changed; never the repository's etsb-out, which
other builds may be using), made as tests/helpers.py:new_workspace makes one:
copies of rules, runtime, tools and kernels, plus a package //models holding
copies of the .pte files and, per model M, the BUILD form of
examples/real_models:

    et_model_binary(name = "M", model = "M.pte",
                    functions_yaml_target = "@executorch//kernels/portable:functions.yaml",
                    kernel_deps = ["@executorch//kernels/portable:kernels"])
    et_model_binary(name = "M_dts", ..., dtype_selective_build = True)
    et_model_binary(name = "M_ours", ..., functions_yaml_target = "//kernels/portable:functions.yaml",
                    fallback_yaml_target = <the tree's yaml>,
                    kernel_deps = ["//kernels/portable:kernels", <the tree's kernels>])

and a package //bench_et with bench_kernels.py's `runner_et_optimized`: the
same //tools/runner:runner library linked with the wheel's prebuilt
`libexecutorch_kernels_optimized.so` (it registers its kernels when loaded)
instead of a generated registration library.

1. Size (stripped bytes: `strip -o TMP BIN`, then the file's size), per model:
   the op-selective binary (`M`), the dtype-selective one (`M_dts_dtype_selective`,
   the true dtype-restricted link; `M_dts` keeps the smaller of it and the
   op-selective form) and the every-kernel companion (`M_all_kernels`, all
   the operators of the tree's portable yaml; tagged manual, built
   explicitly). The runtime, `libexecutorch.so`, is shared by all and not in
   these sizes: one row of its own (and one for the peer's kernel library).
   And `M_ours`, etsb's portable kernels merged over the tree's (op-selective).
2. Latency, per model: the op-selective binary and `M_ours` against the
   ExecuTorch-optimized runner, on the recorded inputs. Each binary's outputs are
   first compared with torch's (max abs difference, and within tolerance:
   real models as tests/test_real_models.py holds them, rtol 1e-4 and atol
   10x the larger of the model's recorded float32-vs-float64 and
   eager-vs-runtime spreads; corpus models rtol 1e-5, atol 1e-6), then R
   interleaved processes (default 3) of
   `--iterations 1+N` (default N = 5): the first in-process run is the
   warm-up; the runner prints the median of its runs; the table shows the
   median over the R processes.
3. Cold build: the MLP example built from scratch (fresh workspace, fresh
   etsb-out) with the tree's portable kernels and with etsb's own
   (//kernels/portable): wall time of `etsb build -j 2`, median of
   --cold-runs (default 3) interleaved pairs. Goal: the tree at most 1.5x ours.

Before each timed part the script waits (up to 20 minutes) until the 1-minute
load average is below 0.8, and reports the load average it timed at. Output:
Markdown tables, printed and (with --output) written to FILE. Exits 1 when a
binary fails or disagrees with torch (a missed goal is only reported).
"""

from __future__ import annotations

import argparse
import datetime
import filecmp
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
from bench_kernels import ET_BUILD, ET_ENTRY, OPTIMIZED_LIB, check_et_runner, check_setup
from common import REPO, finish

ETSB = str(REPO / ".venv" / "bin" / "etsb")
STARLARK = str(REPO / "etsb-out" / "tools" / "etsb-starlark")
MODELS_DIR = REPO / "tests" / "models"
REAL_DIR = MODELS_DIR / "real"
CORPUS = ("mlp", "cnn", "attention")
DEFAULT_TREE = Path("/work/shared/third_party/executorch")
DEFAULT_WORKSPACE = Path("/tmp/bench_tree_ws")
COLD_ROOT = Path("/tmp/bench_tree_cold")
PACKAGE = "models"

QUIET_LOAD = 0.8          # 1-minute load average to wait for before timing
QUIET_WAIT_S = 20 * 60    # at most
COLD_GOAL = 1.5           # tree cold build / ours, at most

TREE_YAML = "@executorch//kernels/portable:functions.yaml"
TREE_KERNELS = "@executorch//kernels/portable:kernels"
MODEL_BUILD = '''et_model_binary(
    name = "{name}",
    model = "{name}.pte",
    functions_yaml_target = "{yaml}",
    kernel_deps = ["{kernels}"],
)

et_model_binary(
    name = "{name}_dts",
    model = "{name}.pte",
    functions_yaml_target = "{yaml}",
    kernel_deps = ["{kernels}"],
    dtype_selective_build = True,
)

et_model_binary(
    name = "{name}_ours",
    model = "{name}.pte",
    functions_yaml_target = "//kernels/portable:functions.yaml",
    fallback_yaml_target = "{yaml}",
    kernel_deps = ["//kernels/portable:kernels", "{kernels}"],
)
'''
# The cold-build package: the MLP with the tree's kernels, and with etsb's own (the default).
COLD_BUILD = f'''load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(
    name = "tree",
    model = "mlp.pte",
    functions_yaml_target = "{TREE_YAML}",
    kernel_deps = ["{TREE_KERNELS}"],
)

et_model_binary(
    name = "ours",
    model = "mlp.pte",
)
'''

LATENCY_LINE = re.compile(r"median latency: ([0-9.]+) ms over (\d+) runs")
ACTION_LINE = re.compile(r"^\[\d+/\d+\] ", re.MULTILINE)


# -- models ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """One model's program, its forward inputs, torch's outputs, and the tolerance they are held to."""

    name: str
    pte: Path
    inputs: tuple[Path, ...]
    outputs: tuple[Path, ...]
    operators: int
    atol: float
    rtol: float


def load_models(names: list[str] | None) -> list[Model]:
    """The real models (tolerance as tests/test_real_models.py) and the
    corpus models (as tests/helpers.py), in that order, or only ``names``."""
    found: dict[str, Model] = {}
    real = json.loads((REAL_DIR / "manifest.json").read_text())["models"]
    for name in sorted(real):
        info = real[name]
        atol = 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)
        found[name] = Model(name, REAL_DIR / info["pte"],
                            tuple(REAL_DIR / name / i["file"] for i in info["inputs"]),
                            tuple(REAL_DIR / name / o["file"] for o in info["outputs"]),
                            len(info["operators"]), atol, 1e-4)
    corpus = json.loads((MODELS_DIR / "manifest.json").read_text())["models"]
    for name in CORPUS:
        info = corpus[name]
        forward = info["methods"]["forward"]
        found[name] = Model(name, MODELS_DIR / info["pte"],
                            tuple(MODELS_DIR / name / i["file"] for i in forward["inputs"]),
                            tuple(MODELS_DIR / name / o["file"] for o in forward["outputs"]),
                            len(info["operators"]), 1e-6, 1e-5)
    if not names:
        return list(found.values())
    unknown = [n for n in names if n not in found]
    if unknown:
        raise SystemExit(f"unknown models {unknown}; known: {', '.join(found)}")
    return [found[n] for n in names]


# -- load ------------------------------------------------------------------------------


def wait_for_quiet(what: str, wait: bool = True) -> float:
    """Wait until the 1-minute load average is below QUIET_LOAD (polling every
    15 s, at most QUIET_WAIT_S); the load average timing starts at."""
    start = time.monotonic()
    load = os.getloadavg()[0]
    while wait and load >= QUIET_LOAD and time.monotonic() - start < QUIET_WAIT_S:
        print(f"  waiting for a quiet machine before {what}: load average {load:.2f}", flush=True)
        time.sleep(15)
        load = os.getloadavg()[0]
    note = "" if load < QUIET_LOAD else (f" (still >= {QUIET_LOAD} after {QUIET_WAIT_S // 60} minutes: timing anyway)"
                                         if wait else " (--no-wait: timing at once)")
    print(f"{what}: load average {load:.2f}{note}", flush=True)
    return load


# -- workspace and builds ---------------------------------------------------------------


def new_workspace(root: Path) -> None:
    """Make ``root`` a workspace as tests/helpers.py:new_workspace does:
    MODULE.bazel and copies of rules, runtime, tools (no starlark, no
    bytecode) and kernels. Sources are replaced with their modification
    times, so a kept etsb-out rebuilds only what changed."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "MODULE.bazel").write_text("")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "starlark")
    for part in ("rules", "runtime", "tools", "kernels"):
        if (root / part).exists():
            shutil.rmtree(root / part)
        shutil.copytree(REPO / part, root / part, ignore=ignore)


def write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def sync_workspace(workspace: Path, models: list[Model]) -> None:
    """The bench workspace: etsb's parts, //models (the .pte copies and two
    targets per model) and //bench_et (the runner on ExecuTorch's optimized kernels)."""
    new_workspace(workspace)
    package = workspace / PACKAGE
    package.mkdir(exist_ok=True)
    build = ['# bench/bench_tree.py: each model with ExecuTorch\'s portable kernels from the tree.',
             'load("//rules:executorch.bzl", "et_model_binary")', '']
    for model in models:
        copy = package / f"{model.name}.pte"
        if not copy.exists() or copy.stat().st_size != model.pte.stat().st_size:
            shutil.copy2(model.pte, copy)
        build.append(MODEL_BUILD.format(name=model.name, yaml=TREE_YAML, kernels=TREE_KERNELS))
    write_if_changed(package / "BUILD", "\n".join(build))
    et_package = workspace / "bench_et"
    et_package.mkdir(exist_ok=True)
    write_if_changed(et_package / "BUILD", ET_BUILD)
    write_if_changed(et_package / "no_registration.cpp", ET_ENTRY)


def etsb_build(workspace: Path, tree: Path, labels: list[str]) -> tuple[float, int]:
    """`etsb build -j 2 --executorch-root TREE LABELS` in ``workspace``: its
    wall time in s and the number of actions it ran (ninja's "[n/m]" lines)."""
    env = dict(os.environ, ETSB_STARLARK=STARLARK)
    start = time.perf_counter()
    run = subprocess.run([ETSB, "build", "-j", "2", "--executorch-root", str(tree), *labels], cwd=workspace,
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"etsb build failed in {workspace} (exit {run.returncode}):\n{run.stdout[-5000:]}")
    return seconds, len(ACTION_LINE.findall(run.stdout))


@dataclass(frozen=True)
class Binaries:
    """One model's binaries, by variant."""

    op_selective: Path
    dtype_selective: Path   # the dtype-restricted link itself
    kept: Path              # what M_dts keeps: the smaller of the two
    all_kernels: Path
    ours_over_tree: Path    # etsb's portable kernels merged over the tree's


def binaries(workspace: Path, name: str) -> Binaries:
    out = workspace / "etsb-out" / "bin" / PACKAGE
    return Binaries(out / name, out / f"{name}_dts_dtype_selective", out / f"{name}_dts_smallest" / f"{name}_dts",
                    out / f"{name}_all_kernels", out / f"{name}_ours")


def labels_of(models: list[Model]) -> list[str]:
    return [f"//{PACKAGE}:{m.name}{suffix}" for m in models for suffix in ("", "_dts", "_all_kernels", "_ours")]


# -- sizes ------------------------------------------------------------------------------


def stripped(path: Path, tmp: Path) -> int:
    """Bytes of ``path`` once stripped (a stripped copy in ``tmp``)."""
    copy = tmp / (path.name + ".stripped")
    subprocess.run(["strip", "-o", str(copy), str(path)], check=True)
    return os.stat(copy).st_size


def runtime_library(binary: Path) -> Path:
    """The libexecutorch.so ``binary`` loads (ldd)."""
    out = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.strip().startswith("libexecutorch.so") and "=>" in line:
            return Path(line.split("=>")[1].split("(")[0].strip()).resolve()
    raise SystemExit(f"{binary} does not load libexecutorch.so:\n{out}")


def kb(size: int) -> str:
    return f"{size / 1024:,.1f}"


def tree_operator_count(tree: Path) -> int:
    """Operators of the tree's portable yaml (every one is in the all-kernels binary)."""
    text = (tree / "kernels" / "portable" / "functions.yaml").read_text()
    return len(re.findall(r"^- (?:op|func):", text, re.MULTILINE))


def bench_sizes(models: list[Model], workspace: Path, tree_ops: int, optimized: Path,
                tmp: Path) -> tuple[list[list[str]], Path]:
    """The size table's rows (the last two: the runtime library, and the
    peer's kernel library for scale), and the runtime library."""
    rows = []
    for model in models:
        b = binaries(workspace, model.name)
        op, dtype, kept, every, ours = (stripped(p, tmp) for p in (b.op_selective, b.dtype_selective, b.kept,
                                                                    b.all_kernels, b.ours_over_tree))
        rows.append([model.name, f"{model.operators}/{tree_ops}", kb(op), kb(dtype), kb(kept), kb(every),
                     f"{op / every:.2f}", f"{dtype / op:.2f}", kb(ours), f"{ours / op:.2f}"])
    runtime = runtime_library(binaries(workspace, models[0].name).op_selective)
    blank = [""] * 7
    rows.append(["libexecutorch.so (the runtime: shared by all, not in the sizes above)", "", kb(stripped(runtime, tmp)),
                 *blank])
    rows.append([f"{OPTIMIZED_LIB} (the latency peer's kernels, for scale)", "", kb(stripped(optimized, tmp)), *blank])
    return rows, runtime


# -- latency ----------------------------------------------------------------------------


def run_binary(binary: Path, model: Model, out: Path, iterations: int = 0) -> tuple[float | None, str | None]:
    """Run ``model`` in ``binary``; (the runner's median ms, or None; a failure, or None)."""
    if out.exists():
        shutil.rmtree(out)
    command = [str(binary), "--model", str(model.pte), "--inputs", ",".join(str(p) for p in model.inputs),
               "--output-dir", str(out)]
    if iterations:
        command += ["--iterations", str(iterations)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        first = (run.stderr.strip() or f"exit {run.returncode}").splitlines()
        return None, "fails: " + " / ".join(first[:2])
    if not iterations:
        return None, None
    match = LATENCY_LINE.search(run.stdout)
    return (float(match.group(1)), None) if match else (None, f"no latency line in {run.stdout!r}")


def difference(model: Model, out: Path) -> tuple[float, bool]:
    """(max abs difference from torch's outputs over all outputs, within tolerance)."""
    worst, ok = 0.0, True
    for index, expected_path in enumerate(model.outputs):
        expected = np.load(expected_path)
        got_path = out / f"output_{index}.npy"
        if not got_path.exists():
            return float("inf"), False
        got = np.load(got_path)
        if got.dtype != expected.dtype or got.shape != expected.shape:
            return float("inf"), False
        if np.issubdtype(expected.dtype, np.floating):
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - expected), initial=0.0)))
            ok = ok and bool(np.allclose(got, expected, rtol=model.rtol, atol=model.atol))
        else:
            differs = got != expected
            ok = ok and not differs.any()
            if differs.any():
                worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))))
    return worst, ok


def ms_cell(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}" if value < 1 else f"{value:.2f}" if value < 100 else f"{value:,.0f}"


def diff_cell(result: tuple[float, bool] | None) -> str:
    if result is None:
        return "-"
    worst, ok = result
    return f"{worst:.1e}" + ("" if ok else " (OUT OF TOLERANCE)")


def bench_latency(models: list[Model], workspace: Path, et_runner: Path, runs: int, rounds: int,
                  tmp: Path) -> tuple[list[list[str]], list[str], list[float]]:
    """The latency table's rows, problems, and the ratios ours / ET measured."""
    rows, problems, ratios = [], [], []
    for model in models:
        built = binaries(workspace, model.name)
        sides = {"ours": built.op_selective, "ours over tree": built.ours_over_tree, "ET": et_runner}
        diffs, usable = {}, {}
        for side, binary in sides.items():   # the correctness run, also a warm-up (page cache)
            _, problem = run_binary(binary, model, tmp / "check")
            if problem:
                problems.append(f"{model.name}, {side}: {problem}")
                continue
            diffs[side] = difference(model, tmp / "check")
            if not diffs[side][1]:
                problems.append(f"{model.name}, {side}: outputs out of tolerance (max abs diff {diffs[side][0]:.3g})")
            usable[side] = binary
        samples: dict[str, list[float]] = {side: [] for side in usable}
        for _ in range(rounds):
            for side, binary in usable.items():
                ms, problem = run_binary(binary, model, tmp / "timed", 1 + runs)
                if problem:
                    problems.append(f"{model.name}, {side}, timed: {problem}")
                else:
                    samples[side].append(ms)
        ms = {side: statistics.median(s) for side, s in samples.items() if s}
        ratio = ms["ours"] / ms["ET"] if "ours" in ms and "ET" in ms else None
        if ratio is not None:
            ratios.append(ratio)
        merged = ms["ours over tree"] / ms["ET"] if "ours over tree" in ms and "ET" in ms else None
        rows.append([model.name, ms_cell(ms.get("ours")), ms_cell(ms.get("ours over tree")), ms_cell(ms.get("ET")),
                     f"{ratio:.2f}x" if ratio else "-", f"{merged:.2f}x" if merged else "-",
                     diff_cell(diffs.get("ours")), diff_cell(diffs.get("ours over tree")), diff_cell(diffs.get("ET"))])
        print(f"  {model.name}: " + ", ".join(f"{side} {ms_cell(v)} ms" for side, v in ms.items()), flush=True)
    return rows, problems, ratios


# -- cold build --------------------------------------------------------------------------


def cold_build(tree: Path, target: str, index: int) -> tuple[float, int]:
    """Seconds and actions of `etsb build -j 2 //mlp:TARGET` in a fresh workspace (fresh etsb-out)."""
    workspace = COLD_ROOT / f"{target}_{index}"
    if workspace.exists():
        shutil.rmtree(workspace)
    new_workspace(workspace)
    package = workspace / "mlp"
    package.mkdir()
    shutil.copy2(MODELS_DIR / "mlp" / "mlp.pte", package / "mlp.pte")
    (package / "BUILD").write_text(COLD_BUILD)
    seconds, actions = etsb_build(workspace, tree, [f"//mlp:{target}"])
    print(f"  cold {target}: {seconds:.1f} s ({actions} actions)", flush=True)
    shutil.rmtree(workspace)
    return seconds, actions


def bench_cold(tree: Path, runs: int) -> list[list[str]]:
    """Rows of the cold-build table, from interleaved builds (tree, ours, tree, ours ...)."""
    samples: dict[str, list[float]] = {"tree": [], "ours": []}
    actions: dict[str, int] = {}
    for index in range(runs):
        for target, values in samples.items():
            seconds, actions[target] = cold_build(tree, target, index)
            values.append(seconds)
    tree_s, ours_s = statistics.median(samples["tree"]), statistics.median(samples["ours"])
    ratio = tree_s / ours_s

    def each(values: list[float]) -> str:
        return ", ".join(f"{v:.1f}" for v in values)
    return [["ExecuTorch's portable kernels (tree)", f"{tree_s:.1f}", each(samples["tree"]), str(actions["tree"])],
            ["etsb's portable kernels (//kernels/portable)", f"{ours_s:.1f}", each(samples["ours"]),
             str(actions["ours"])],
            [f"ratio tree / ours (goal <= {COLD_GOAL}x)", f"{ratio:.2f}x", "met" if ratio <= COLD_GOAL else "NOT MET", ""]]


# -- output ------------------------------------------------------------------------------


def markdown(headers: list[str], rows: list[list[str]]) -> str:
    """A Markdown table, numeric columns right-aligned."""
    def numeric(cell: str) -> bool:
        return bool(re.fullmatch(r"[0-9.,/e+-]+x?( \(.*\))?|-|", cell))
    right = [all(numeric(str(row[i])) for row in rows) for i in range(len(headers))]
    lines = ["| " + " | ".join(headers) + " |",
             "| " + " | ".join("---:" if r else "---" for r in right) + " |"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def report(options: argparse.Namespace, tree: Path, count: int, size_rows: list, latency_rows: list,
           ratios: list[float], latency_load: float, cold_rows: list, cold_load: float | None, runtime: Path,
           wheel: Path, optimized: Path, problems: list[str]) -> str:
    """The Markdown report: the three tables, each with what it measured."""
    lines = [f"{datetime.date.today().isoformat()}, {os.cpu_count()} cores; ExecuTorch tree {tree}; {count} models",
             "", ("Size (stripped KB; all kernels = every operator of the tree's portable yaml; dtype-selective = "
                  "the dtype-restricted link, kept = what `M_dts` keeps, the smaller form; ours over tree = "
                  "etsb's portable kernels merged over the tree's, op-selective)"), ""]
    lines.append(markdown(["model", "ops (model/yaml)", "op-selective KB", "dtype-selective KB", "kept KB",
                           "all-kernels KB", "op-sel/all", "dtype-sel/op-sel", "ours over tree KB",
                           "ours-over/op-sel"], size_rows))
    lines += ["", (f"Latency (ms: median over {options.rounds} interleaved processes of the runner's median of "
                   f"1 warm-up + {options.runs} runs; load average {latency_load:.2f} at start; "
                   "max abs diff from torch's recorded outputs)"), ""]
    lines.append(markdown(["model", "ours (ET portable) ms", "ours over tree ms", "ET prebuilt optimized ms",
                           "ours/ET", "ours-over/ET", "max diff ours", "max diff ours over", "max diff ET"],
                          latency_rows))
    if ratios:
        lines += ["", (f"ours/ET: median {statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x "
                       f"over {len(ratios)} models; ours faster on {sum(r < 1 for r in ratios)}")]
    if cold_rows:
        lines += ["", (f"Cold build of the MLP (`etsb build -j 2`, fresh workspace and etsb-out; median of "
                       f"{options.cold_runs} interleaved; load average {cold_load:.2f} at start)"), ""]
        lines.append(markdown(["kernels", "median s", "each run s", "actions"], cold_rows))
    copied = filecmp.cmp(runtime, wheel / "lib" / "libexecutorch.so", shallow=False)
    lines += ["", f"Runtime: {runtime}" + (" (a copy of the wheel's lib/libexecutorch.so)" if copied else "")
              + f". ExecuTorch runner: //tools/runner:runner + {optimized} "
              f"({optimized.stat().st_size / 2**20:.1f} MB unstripped, registers its kernels at load)."]
    lines += [f"PROBLEM: {line}" for line in problems]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated model names (default: the 18 real models, mlp, cnn, attention)")
    parser.add_argument("--runs", type=int, default=5, help="timed in-process runs after one warm-up (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timed processes per binary (default 3)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold builds of each side (default 3; 0 skips)")
    parser.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
    parser.add_argument("--output", type=Path, help="also write the Markdown report here")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help=f"where the models are built (default {DEFAULT_WORKSPACE}, kept between runs)")
    parser.add_argument("--executorch-root", type=Path, default=DEFAULT_TREE,
                        help=f"the ExecuTorch source tree (default {DEFAULT_TREE})")
    options = parser.parse_args()
    wheel = check_setup()
    tree = options.executorch_root.resolve()
    models = load_models(options.models.split(",") if options.models else None)

    started = time.perf_counter()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start", flush=True)
    workspace = options.workspace.resolve()
    sync_workspace(workspace, models)
    et_label = "//bench_et:runner_et_optimized"
    seconds, actions = etsb_build(workspace, tree, labels_of(models) + [et_label])
    print(f"built {4 * len(models) + 1} targets in {workspace} ({actions} actions, {seconds:.0f} s)", flush=True)
    et_runner = workspace / "etsb-out" / "bin" / "bench_et" / "runner_et_optimized"
    optimized = check_et_runner(et_runner)

    with tempfile.TemporaryDirectory(prefix="bench_tree_") as tmp:
        tree_ops = tree_operator_count(tree)
        size_rows, runtime = bench_sizes(models, workspace, tree_ops, Path(optimized), Path(tmp))
        latency_load = wait_for_quiet("latency", not options.no_wait)
        latency_rows, problems, ratios = bench_latency(models, workspace, et_runner, options.runs, options.rounds,
                                                       Path(tmp))
    cold_rows, cold_load = [], None
    if options.cold_runs:
        cold_load = wait_for_quiet("cold builds", not options.no_wait)
        cold_rows = bench_cold(tree, options.cold_runs)

    text = report(options, tree, len(models), size_rows, latency_rows, ratios, latency_load, cold_rows, cold_load,
                  runtime, Path(wheel), Path(optimized), problems)
    return finish(text, options.output, started, problems)


if __name__ == "__main__":
    sys.exit(main())
