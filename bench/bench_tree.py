"""Tree benchmark: real models built by etsb's driver with ExecuTorch's OWN
portable kernels (compiled from an ExecuTorch source tree), measured side by
side in one run: size against every kernel of the tree, speed against
ExecuTorch's prebuilt optimized kernel library, and the cold build against
etsb's own kernels.

    .venv/bin/python bench/bench_tree.py [--models a,b,...] [--runs N] [--rounds R]
        [--cold-runs N] [--no-wait] [--workspace DIR] [--executorch-root DIR]
    (builds every model twice over: an hour or more; writes bench/results/bench_tree.md)

Models: the 18 real models and the corpus models mlp, cnn and attention.
Builds: `etsb build -j 2 --executorch-root TREE` in a workspace of its own
(default /tmp/bench_tree_ws, kept between runs), with //models holding per
model M the BUILD form of examples/real_models (MODEL_BUILD: `M` on the
tree's portable kernels, `M_dts` dtype-selective, `M_ours` etsb's kernels
merged over the tree's) and the peer runner of lib/workspace.py, its thread
pool at the library's default size.

1. Size, stripped: op-selective, dtype-restricted, the form `M_dts` keeps,
   the all-kernels companion and `M_ours`; the shared runtime and the peer's
   kernel library on rows of their own.
2. Latency: `M` and `M_ours` against the peer, as lib/models.py times them,
   R interleaved processes (default 3) of `--iterations 1+N` (default N 5);
   tolerance as tests/test_real_models.py (corpus: rtol 1e-5, atol 1e-6).
3. Cold build: the MLP from scratch with the tree's kernels and with etsb's
   own, median of --cold-runs interleaved pairs. Goal: the tree <= 1.5x ours.

Before each timed part the script waits (up to 20 minutes) for a 1-minute
load average below 0.8. Exits 1 when a binary fails or disagrees with torch
(a missed goal is only reported).
"""

from __future__ import annotations

import argparse
import filecmp
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lib.env import MODELS_DIR, OPTIMIZED_LIB, check_setup, starlark_env
from lib.models import Model, Plan, bench_items, load_models
from lib.processes import Build, check_et_runner, etsb_build, ldd, stripped
from lib.results import diff_cell, finish, kb, markdown, ms_cell
from lib.timing import wait_for_quiet
from lib.workspace import ET_LABEL, new_workspace, write_et_package, write_model_package

DEFAULT_TREE = Path("/work/shared/third_party/executorch")
DEFAULT_WORKSPACE = Path("/tmp/bench_tree_ws")
COLD_ROOT = Path("/tmp/bench_tree_cold")
PACKAGE = "models"
COLD_GOAL = 1.5           # tree cold build / ours, at most
SIDES = ("ours", "ours over tree", "ET")

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


def build(workspace: Path, tree: Path, labels: list[str]) -> Build:
    """`etsb build -j 2 --executorch-root TREE LABELS` in ``workspace``."""
    return etsb_build(workspace, labels, starlark_env(), "--executorch-root", str(tree))


def binaries(workspace: Path, name: str) -> dict[str, Path]:
    """One model's binaries: op-selective, dtype-restricted, kept (the smaller
    of the two, what M_dts keeps), all kernels, ours over tree."""
    out = workspace / "etsb-out" / "bin" / PACKAGE
    return {"op": out / name, "dtype": out / f"{name}_dts_dtype_selective", "kept": out / f"{name}_dts_smallest" /
            f"{name}_dts", "all": out / f"{name}_all_kernels", "ours": out / f"{name}_ours"}


def build_models(workspace: Path, tree: Path, models: list[Model]) -> Path:
    """The workspace (//models, //bench_et) built; the ExecuTorch runner."""
    new_workspace(workspace)
    write_model_package(workspace / PACKAGE, [(m.name, m.pte) for m in models],
                        "# bench/bench_tree.py: each model with ExecuTorch's portable kernels from the tree.",
                        [MODEL_BUILD.format(name=m.name, yaml=TREE_YAML, kernels=TREE_KERNELS) for m in models])
    write_et_package(workspace)
    labels = [f"//{PACKAGE}:{m.name}{suffix}" for m in models for suffix in ("", "_dts", "_all_kernels", "_ours")]
    done = build(workspace, tree, labels + [ET_LABEL])
    print(f"built {len(labels) + 1} targets in {workspace} ({len(done.actions)} actions, {done.seconds:.0f} s)",
          flush=True)
    return workspace / "etsb-out" / "bin" / "bench_et" / "runner_et_optimized"


def bench_sizes(models: list[Model], workspace: Path, tree_ops: int, optimized: Path,
                tmp: Path) -> tuple[list[list[str]], Path]:
    """The size table's rows (the last two: the runtime library, and the
    peer's kernel library for scale), and the runtime library."""
    rows = []
    for model in models:
        size = {key: stripped(path, tmp) for key, path in binaries(workspace, model.name).items()}
        op, dtype, every, ours = size["op"], size["dtype"], size["all"], size["ours"]
        rows.append([model.name, f"{model.operators}/{tree_ops}", kb(op), kb(dtype), kb(size["kept"]), kb(every),
                     f"{op / every:.2f}", f"{dtype / op:.2f}", kb(ours), f"{ours / op:.2f}"])
    runtime = Path(ldd(binaries(workspace, models[0].name)["op"])["libexecutorch.so"]).resolve()
    blank = [""] * 7
    rows.append(["libexecutorch.so (the runtime: shared by all, not in the sizes above)", "", kb(stripped(runtime, tmp)),
                 *blank])
    rows.append([f"{OPTIMIZED_LIB} (the latency peer's kernels, for scale)", "", kb(stripped(optimized, tmp)), *blank])
    return rows, runtime


def bench_latency(models: list[Model], workspace: Path, et_runner: Path, runs: int, rounds: int,
                  tmp: Path) -> tuple[list[list[str]], list[str], list[float]]:
    """The latency table's rows, problems, and the ratios ours / ET measured."""
    sides = {"ours": {m.name: binaries(workspace, m.name)["op"] for m in models},
             "ours over tree": {m.name: binaries(workspace, m.name)["ours"] for m in models},
             "ET": {m.name: et_runner for m in models}}
    results, problems, _ = bench_items(models, sides, Plan(rounds, fixed=1 + runs, et_threads=0), tmp)
    rows, ratios = [], []
    for t in results:
        ratio, merged = t.ratio(), t.ratio("ours over tree")
        if ratio is not None:
            ratios.append(ratio)
        rows.append([t.name, *(ms_cell(t.ms.get(side)) for side in SIDES), f"{ratio:.2f}x" if ratio else "-",
                     f"{merged:.2f}x" if merged else "-", *(diff_cell(t.diffs.get(side)) for side in SIDES)])
    return rows, problems, ratios


def cold_build(tree: Path, target: str, index: int) -> tuple[float, int]:
    """Seconds and actions of `etsb build -j 2 //mlp:TARGET` in a fresh workspace (fresh etsb-out)."""
    workspace = COLD_ROOT / f"{target}_{index}"
    if workspace.exists():
        shutil.rmtree(workspace)
    new_workspace(workspace)
    (workspace / "mlp").mkdir()
    shutil.copy2(MODELS_DIR / "mlp" / "mlp.pte", workspace / "mlp" / "mlp.pte")
    (workspace / "mlp" / "BUILD").write_text(COLD_BUILD)
    done = build(workspace, tree, [f"//mlp:{target}"])
    print(f"  cold {target}: {done.seconds:.1f} s ({len(done.actions)} actions)", flush=True)
    shutil.rmtree(workspace)
    return done.seconds, len(done.actions)


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


def report(options: argparse.Namespace, tree: Path, count: int, tables: dict, loads: dict, ratios: list[float],
           runtime: Path, wheel: Path, optimized: Path) -> str:
    """The Markdown report: the three tables, each with what it measured."""
    lines = [f"ExecuTorch tree {tree}; {count} models", "",
             ("Size (stripped KB; all kernels = every operator of the tree's portable yaml; dtype-selective = "
              "the dtype-restricted link, kept = what `M_dts` keeps, the smaller form; ours over tree = "
              "etsb's portable kernels merged over the tree's, op-selective)"), "",
             markdown(["model", "ops (model/yaml)", "op-selective KB", "dtype-selective KB", "kept KB",
                       "all-kernels KB", "op-sel/all", "dtype-sel/op-sel", "ours over tree KB", "ours-over/op-sel"],
                      tables["size"]), "",
             (f"Latency (ms: median over {options.rounds} interleaved processes of the runner's median of "
              f"1 warm-up + {options.runs} runs; load average {loads['latency']:.2f} at start; "
              "max abs diff from torch's recorded outputs)"), "",
             markdown(["model", "ours (ET portable) ms", "ours over tree ms", "ET prebuilt optimized ms", "ours/ET",
                       "ours-over/ET", "max diff ours", "max diff ours over", "max diff ET"], tables["latency"])]
    if ratios:
        lines += ["", (f"ours/ET: median {statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x "
                       f"over {len(ratios)} models; ours faster on {sum(r < 1 for r in ratios)}")]
    if tables["cold"]:
        lines += ["", (f"Cold build of the MLP (`etsb build -j 2`, fresh workspace and etsb-out; median of "
                       f"{options.cold_runs} interleaved; load average {loads['cold']:.2f} at start)"), "",
                  markdown(["kernels", "median s", "each run s", "actions"], tables["cold"])]
    copied = filecmp.cmp(runtime, wheel / "lib" / "libexecutorch.so", shallow=False)
    lines += ["", f"Runtime: {runtime}" + (" (a copy of the wheel's lib/libexecutorch.so)" if copied else "")
              + f". ExecuTorch runner: //tools/runner:runner + {optimized} "
              f"({optimized.stat().st_size / 2**20:.1f} MB unstripped, registers its kernels at load)."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", help="comma-separated model names (default: the 18 real models, mlp, cnn, attention)")
    parser.add_argument("--runs", type=int, default=5, help="timed in-process runs after one warm-up (default 5)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved timed processes per binary (default 3)")
    parser.add_argument("--cold-runs", type=int, default=3, help="cold builds of each side (default 3; 0 skips)")
    parser.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
    parser.add_argument("--workspace", type=Path, default=DEFAULT_WORKSPACE,
                        help=f"where the models are built (default {DEFAULT_WORKSPACE}, kept between runs)")
    parser.add_argument("--executorch-root", type=Path, default=DEFAULT_TREE,
                        help=f"the ExecuTorch source tree (default {DEFAULT_TREE})")
    options = parser.parse_args()
    wheel = check_setup()
    tree = options.executorch_root.resolve()
    models = load_models(options.models.split(",") if options.models else None)
    started = time.perf_counter()
    workspace = options.workspace.resolve()
    et_runner = build_models(workspace, tree, models)
    optimized = check_et_runner(et_runner, OPTIMIZED_LIB)
    tables, loads = {"cold": []}, {}
    with tempfile.TemporaryDirectory(prefix="bench_tree_") as tmp:
        tree_ops = len(re.findall(r"^- (?:op|func):", (tree / "kernels/portable/functions.yaml").read_text(),
                                  re.MULTILINE))
        tables["size"], runtime = bench_sizes(models, workspace, tree_ops, optimized, Path(tmp))
        loads["latency"] = wait_for_quiet("latency", not options.no_wait)
        tables["latency"], problems, ratios = bench_latency(models, workspace, et_runner, options.runs,
                                                            options.rounds, Path(tmp))
    if options.cold_runs:
        loads["cold"] = wait_for_quiet("cold builds", not options.no_wait)
        tables["cold"] = bench_cold(tree, options.cold_runs)
    text = report(options, tree, len(models), tables, loads, ratios, runtime, wheel, optimized)
    return finish("bench_tree", text, started, problems)


if __name__ == "__main__":
    sys.exit(main())
