"""Build driver benchmark: BUILD-file evaluation at scale and the MLP example's
cold, no-op and incremental builds with `etsb build`, in one run.

    .venv/bin/python bench/bench_build.py [--quick]

Everything runs in temporary workspaces (never in the repository's own
etsb-out, which other builds may be using), with the evaluator the set-up
built (etsb-out/tools/etsb-starlark, passed as $ETSB_STARLARK).

1. Evaluation: generated trees of 1,000 and 10,000 targets (100 and 1,000
   packages of 10 targets; each BUILD file either calls the primitive rules
   directly or calls a small macro built on rules/private/shim.bzl; each
   package's library depends on the previous package's). `etsb query //...`
   end to end (process start included) beside the evaluator alone
   (`etsb-starlark --root W PKG...`), medians of interleaved runs, and where
   the Python side's time goes in the 10,000-target trees. Goal: 10,000
   targets in under 1 s.
2. The MLP example (`//examples/mlp:bin`) in a copy of the workspace, -j 2:
   cold build from an empty etsb-out; no-op rebuild (median of 20); a BUILD
   file touched (re-evaluation, nothing to compile); one kernel yaml edited
   (a comment appended), with the actions that re-ran (ninja's "[n/m]" lines).
   Goal: no-op under 50 ms. Bazel's numbers are quoted from NOTES (Bazel is
   not installed here), not measured in this run.
"""

from __future__ import annotations

import argparse
import json
import marshal
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, VENV_PYTHON, table  # noqa: E402

sys.path.insert(0, str(REPO / "tools"))
from selective_build.driver import state  # noqa: E402

ETSB = str(REPO / ".venv" / "bin" / "etsb")
STARLARK = str(REPO / "etsb-out" / "tools" / "etsb-starlark")
MLP = "//examples/mlp:bin"

# ../shared/NOTES.md, "Bazel": measured on a small genrule -> cc_library ->
# cc_binary with Bazel 7.7.1 (not this build; Bazel is not installed here).
BAZEL_NOOP_MS = (200, 500)
BAZEL_COLD_S = (5, 11)

EVAL_GOAL_MS = 1000   # 10,000 targets, `etsb query //...` end to end
NOOP_GOAL_MS = 50     # no-op `etsb build` of the MLP example

ACTION_LINE = re.compile(r"^\[\d+/\d+\] (.*)$", re.MULTILINE)


# -- timing ----------------------------------------------------------------------


def median_ms(commands: Mapping[str, Sequence[str]], runs: int, cwd: str, env: Mapping[str, str]) -> dict[str, float]:
    """Median wall time in ms of each command, run interleaved in ``cwd``.
    A failing command raises."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            samples[name].append((time.perf_counter() - start) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def run_build(workspace: str, env: Mapping[str, str], jobs: str = "2") -> tuple[float, list[str]]:
    """`etsb build -j 2 //examples/mlp:bin` in ``workspace``: wall ms and the
    descriptions of the actions ninja ran."""
    start = time.perf_counter()
    run = subprocess.run([ETSB, "build", *(["-j", jobs] if jobs else []), MLP], cwd=workspace, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if run.returncode != 0:
        raise SystemExit(f"etsb build failed in {workspace} (exit {run.returncode}):\n{run.stdout}")
    return elapsed, ACTION_LINE.findall(run.stdout)


def fmt_ms(value: float) -> str:
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def verdict(measured: float, goal: float) -> str:
    return f"{measured / goal:.2f}x of budget: {'met' if measured < goal else 'not met'}"


# -- 1. evaluation of generated trees --------------------------------------------

MACRO_BZL = '''"""A small macro: the ten targets of a library package, on etsb's primitives."""

load("//rules:private/shim.bzl", "etsb_cxx_binary", "etsb_cxx_library", "etsb_export_file", "etsb_filegroup", "etsb_genrule")

def ten_targets(name, dep = None):
    """A data file, a filegroup, three generated files, three libraries, a binary and a config setting.

    Args:
      name: the prefix of every target.
      dep: a library in another package that the main library depends on.
    """
    etsb_export_file(name + ".txt")
    etsb_filegroup(name = name + "_data", srcs = [":" + name + ".txt"])
    for kind in ["h", "cpp", "yaml"]:
        etsb_genrule(name = name + "_gen_" + kind, srcs = [":" + name + "_data"], outs = [name + "." + kind],
                     cmd = "cp $(location :" + name + "_data) $@")
    native.config_setting(name = name + "_opt", define_values = {"mode": "opt"})
    etsb_cxx_library(name = name + "_lib", srcs = [name + "_a.cpp", ":" + name + "_gen_cpp"], hdrs = [":" + name + "_gen_h"],
                     deps = [dep] if dep else [], defines = ["LIB_" + name.upper()])
    etsb_cxx_library(name = name + "_extra", srcs = [name + "_b.cpp"], deps = [":" + name + "_lib"],
                     copts = ["-O2"] + select({":" + name + "_opt": ["-O3"], "//conditions:default": []}))
    etsb_cxx_library(name = name + "_all", deps = [":" + name + "_lib", ":" + name + "_extra"], link_whole = True)
    etsb_cxx_binary(name = name + "_bin", srcs = [name + "_main.cpp"], deps = [":" + name + "_all"])
'''

PRIMITIVES_BUILD = '''# Ten primitive rule calls: the shape of a small library package.
export_file(name = "m.txt", src = "m.txt")
filegroup(name = "m_data", srcs = [":m.txt"])
genrule(name = "m_gen_h", srcs = [":m_data"], outs = ["m.h"], cmd = "cp $(location :m_data) $@")
genrule(name = "m_gen_cpp", srcs = [":m_data"], outs = ["m.cpp"], cmd = "cp $(location :m_data) $@")
genrule(name = "m_gen_yaml", srcs = [":m_data"], outs = ["m.yaml"], cmd = "cp $(location :m_data) $@")
config_setting(name = "m_opt", define_values = {{"mode": "opt"}})
cxx_library(name = "m_lib", srcs = ["m_a.cpp", ":m_gen_cpp"], hdrs = [":m_gen_h"], deps = {deps}, copts = ["-std=c++17"], defines = ["LIB_M"])
cxx_library(name = "m_extra", srcs = ["m_b.cpp"], deps = [":m_lib"], copts = ["-std=c++17", "-O2"] + select({{":m_opt": ["-O3"], "//conditions:default": []}}))
cxx_library(name = "m_all", deps = [":m_lib", ":m_extra"], link_whole = True)
cxx_binary(name = "m_bin", srcs = ["m_main.cpp"], deps = [":m_all"], copts = ["-std=c++17"])
'''

MACRO_BUILD = '''load("//macros:ten.bzl", "ten_targets")

ten_targets(name = "m", dep = {dep})
'''


def package_path(i: int) -> str:
    return f"src/g{i // 100:02d}/p{i:04d}"


def make_tree(root: Path, packages: int, form: str) -> None:
    """A workspace of ``packages`` generated packages of 10 targets each."""
    root.mkdir()
    (root / "MODULE.bazel").write_text('module(name = "bench_tree")\n')
    shutil.copytree(REPO / "rules", root / "rules", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "macros").mkdir()
    (root / "macros" / "BUILD").write_text("# The generated packages' macro.\n")
    (root / "macros" / "ten.bzl").write_text(MACRO_BZL)
    for i in range(packages):
        directory = root / package_path(i)
        directory.mkdir(parents=True)
        dep = f"//{package_path(i - 1)}:m_lib" if i else None
        if form == "primitives":
            text = PRIMITIVES_BUILD.format(deps=json.dumps([dep] if dep else []))
        else:
            text = MACRO_BUILD.format(dep=json.dumps(dep) if dep else "None")
        (directory / "BUILD").write_text(text)


# The steps of `etsb query //...`, timed inside one fresh process (as the
# command runs them, collector and all). argv: root, evaluator, pause the
# collector around the JSON steps (0/1). Prints the times in ms as JSON.
SPLIT_PROBE = r"""
import time
t0 = time.perf_counter()
import gc, json, re, subprocess, sys
import selective_build.__main__, selective_build.arguments, selective_build.commands
from selective_build.driver import analysis, evaluate, graph, state, workspace
from selective_build.driver.labels import parse_pattern
root, starlark, pause = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
t = [t0, time.perf_counter()]
pkgs = state.discover_packages(root); t.append(time.perf_counter())
out = subprocess.run([starlark, "--root", root, *pkgs], check=True, capture_output=True).stdout
t.append(time.perf_counter())
if pause:
    gc.disable()
document = json.loads(out); t.append(time.perf_counter())
packages = {e["package"]: evaluate._package(e) for e in document["packages"]}; t.append(time.perf_counter())
gc.enable()
for p in packages.values():
    analysis.referenced_packages(p)
t.append(time.perf_counter())
labels = workspace.Workspace.matching(packages, [parse_pattern("//...", "")]); t.append(time.perf_counter())
text = "\n".join(str(label) for label in labels); t.append(time.perf_counter())
print(json.dumps({"steps": [(b - a) * 1000 for a, b in zip(t, t[1:])], "json_bytes": len(out)}))
"""
SPLIT_STEPS = ["imports (command line, driver, evaluate, graph)", "find packages", "etsb-starlark (process)", "JSON parse",
               "JSON -> Package/Target objects", "referenced packages", "match //... and sort", "format the labels"]


def python_split(root: str, runs: int, pause_collector: bool) -> tuple[list[float], int]:
    """Median ms of each step of SPLIT_PROBE over ``runs`` fresh processes, and the evaluator's output size."""
    samples, size = [], 0
    for _ in range(runs):
        out = subprocess.run([str(VENV_PYTHON), "-c", SPLIT_PROBE, root, STARLARK, "1" if pause_collector else "0"],
                             check=True, capture_output=True, text=True, cwd=root).stdout
        result = json.loads(out)
        samples.append(result["steps"])
        size = result["json_bytes"]
    return [statistics.median(column) for column in zip(*samples)], size


def bench_evaluation(tmp: Path, runs: int, env: Mapping[str, str]) -> None:
    rows, splits, checks = [], {}, []
    python_start = median_ms({"start": [str(VENV_PYTHON), "-c", "pass"]}, runs, str(tmp), env)["start"]
    for packages in (100, 1000):
        for form in ("primitives", "macro"):
            root = tmp / f"tree_{packages}_{form}"
            make_tree(root, packages, form)
            listed = subprocess.run([ETSB, "query", "//..."], cwd=root, env=env, check=True,
                                    capture_output=True, text=True).stdout.split()
            if len(listed) != packages * 10:
                checks.append(f"{packages * 10} targets expected from {root.name}, etsb query listed {len(listed)}")
            pkgs = state.discover_packages(str(root))
            times = median_ms({"query": [ETSB, "query", "//..."],
                               "evaluator": [STARLARK, "--root", str(root), *pkgs]}, runs, str(root), env)
            targets = packages * 10
            python_ms = times["query"] - times["evaluator"]
            rows.append([f"{targets:,}", str(len(pkgs)), form, fmt_ms(times["query"]), fmt_ms(times["evaluator"]),
                         fmt_ms(python_ms), f"{times['evaluator'] / times['query'] * 100:.0f}%",
                         f"{times['query'] / targets * 1000:.0f}",
                         verdict(times["query"], EVAL_GOAL_MS) if targets == 10000 else ""])
            if targets == 10000:
                splits[form] = (times, python_split(str(root), runs, False), python_split(str(root), runs, True))
    print("1. BUILD-file evaluation: `etsb query //...` end to end beside the evaluator alone "
          f"(median ms of {runs} interleaved runs)")
    print(table(["targets", "packages", "BUILD files", "etsb query ms", "etsb-starlark ms", "Python ms",
                 "Go share", "us/target", f"goal < {EVAL_GOAL_MS} ms (10,000)"], rows))
    for line in checks:
        print(f"CHECK FAILED: {line}")

    forms = list(splits)
    split_rows = [["Python start (python -c pass)", *[fmt_ms(python_start) for _ in forms]]]
    for i, name in enumerate(SPLIT_STEPS):
        split_rows.append([name, *[fmt_ms(splits[f][1][0][i]) for f in forms]])
    split_rows.append(["sum", *[fmt_ms(python_start + sum(splits[f][1][0])) for f in forms]])
    split_rows.append(["etsb query, measured above", *[fmt_ms(splits[f][0]["query"]) for f in forms]])
    split_rows.append(["evaluator output (JSON)", *[f"{splits[f][1][1] / 2**20:.1f} MB" for f in forms]])
    split_rows.append(["what if: JSON parse + objects, collector paused",
                       *[fmt_ms(splits[f][2][0][3] + splits[f][2][0][4]) for f in forms]])
    print(f"\nWhere the time goes, 10,000 targets (ms; each step timed inside a fresh process "
          f"that does what etsb query does, median of {runs})")
    print(table(["step", *[f"{f} ms" for f in forms]], split_rows))


# -- 2. the MLP example ------------------------------------------------------------

def copy_workspace(destination: Path) -> None:
    """The parts of this workspace that //examples/mlp:bin reads (no tools/starlark, no etsb-out)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    destination.mkdir()
    for name in ("MODULE.bazel", "BUILD"):
        shutil.copy2(REPO / name, destination / name)
    for name in ("rules", "runtime", "kernels", "tools/runner", "tools/selective_build",
                 "examples/mlp", "tests/models/mlp"):
        shutil.copytree(REPO / name, destination / name, ignore=ignore)
    shutil.copy2(REPO / "tests/models/BUILD", destination / "tests/models/BUILD")


def actions_summary(actions: Sequence[str]) -> str:
    if not actions:
        return "none"
    kinds: dict[str, int] = {}
    for action in actions:
        kind = action.split(" ", 1)[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{count} {kind}" for kind, count in kinds.items())


def bench_mlp(tmp: Path, noop_runs: int, edit_runs: int, env: Mapping[str, str]) -> None:
    workspace = tmp / "workspace"
    copy_workspace(workspace)
    ws = str(workspace)
    notes = []

    cold_ms, cold_actions = run_build(ws, env)
    binary = workspace / "etsb-out" / "bin" / "examples" / "mlp" / "bin"
    model_dir = workspace / "tests" / "models" / "mlp"
    run = subprocess.run([str(binary), "--model", str(model_dir / "mlp.pte"), "--inputs",
                          str(model_dir / "forward.input_0.npy"), "--output-dir", str(tmp / "mlp_out")],
                         capture_output=True, text=True)
    if run.returncode != 0:
        notes.append(f"the built binary failed (exit {run.returncode}): {run.stderr.strip()[:300]}")

    _, first_noop = run_build(ws, env)
    if first_noop:
        notes.append(f"the build right after the cold one re-ran: {first_noop}")

    ninja = shutil.which("ninja", path=env.get("PATH")) or "ninja"
    plan = marshal.loads((workspace / "etsb-out" / ".etsb" / "state.marshal").read_bytes())["plan"]
    fast_imports = [str(VENV_PYTHON), "-c", "import re, selective_build.driver.fast"]
    noop = median_ms({
        "etsb build -j 2": [ETSB, "build", "-j", "2", MLP],
        "etsb build -j2": [ETSB, "build", "-j2", MLP],
        "python -c pass": [str(VENV_PYTHON), "-c", "pass"],
        "python, fast-path imports": fast_imports,
        "ninja alone": [ninja, "-f", "etsb-out/build.ninja", "-j", "2", *plan[0]],
    }, noop_runs, ws, env)

    # A BUILD file touched: the plan is made again (evaluation, analysis, build.ninja), nothing compiles.
    build_file = workspace / "examples" / "mlp" / "BUILD"
    replans, replan_actions = [], []
    for _ in range(edit_runs):
        os.utime(build_file, ns=(time.time_ns(), time.time_ns()))
        elapsed, replan_actions = run_build(ws, env)
        replans.append(elapsed)

    # One kernel yaml edited: a comment appended (the generated code does not change).
    yaml_file = workspace / "kernels" / "portable" / "functions.yaml"
    edits, edit_actions = [], []
    for i in range(edit_runs):
        with open(yaml_file, "a") as handle:
            handle.write(f"# bench_build.py edit {i}\n")
        elapsed, edit_actions = run_build(ws, env)
        edits.append(elapsed)
    _, after_edit = run_build(ws, env)
    if after_edit:
        notes.append(f"the build after the yaml edit re-ran: {after_edit}")

    rows = [
        ["cold, empty etsb-out", f"{cold_ms / 1000:.1f} s", str(len(cold_actions)), actions_summary(cold_actions)],
        [f"no-op (median of {noop_runs})", f"{noop['etsb build -j 2']:.1f} ms", "0", "none"],
        [f"no-op spelled -j2 (median of {noop_runs})", f"{noop['etsb build -j2']:.1f} ms", "0", "none"],
        [f"BUILD file touched (median of {edit_runs})", f"{statistics.median(replans):.0f} ms",
         str(len(replan_actions)), actions_summary(replan_actions)],
        [f"functions.yaml: comment appended (median of {edit_runs})", f"{statistics.median(edits):.0f} ms",
         str(len(edit_actions)), actions_summary(edit_actions) + (": " + "; ".join(edit_actions) if edit_actions else "")],
    ]
    print(f"\n2. {MLP} in a copy of the workspace, etsb build -j 2")
    print(table(["case", "wall", "actions run", "which"], rows))

    print(f"\nNo-op, where the time goes (median ms of {noop_runs} interleaved runs)")
    print(table(["command", "ms"], [
        ["python -c pass (interpreter start)", f"{noop['python -c pass']:.1f}"],
        ["python -c 'import re, selective_build.driver.fast'", f"{noop['python, fast-path imports']:.1f}"],
        ["ninja -f etsb-out/build.ninja -j 2 TARGETS (ninja's own no-op)", f"{noop['ninja alone']:.1f}"],
        ["etsb build -j 2 //examples/mlp:bin", f"{noop['etsb build -j 2']:.1f}"],
        ["etsb build -j2 //examples/mlp:bin", f"{noop['etsb build -j2']:.1f}"],
    ]))

    noop_ms = noop["etsb build -j 2"]
    print("\nAgainst Bazel (quoted from NOTES: Bazel 7.7.1 on a small genrule -> cc_library -> cc_binary, "
          "not measured in this run)")
    print(table(["case", "etsb", "Bazel (NOTES)", "ratio"], [
        ["no-op rebuild", f"{noop_ms:.1f} ms", f"{BAZEL_NOOP_MS[0]}-{BAZEL_NOOP_MS[1]} ms",
         f"etsb {BAZEL_NOOP_MS[0] / noop_ms:.1f}-{BAZEL_NOOP_MS[1] / noop_ms:.1f}x faster"],
        ["cold build", f"{cold_ms / 1000:.1f} s ({len(cold_actions)} actions)",
         f"{BAZEL_COLD_S[0]}-{BAZEL_COLD_S[1]} s (a 3-target build)", "not comparable: different builds"],
    ]))
    print(f"\nGoal: no-op < {NOOP_GOAL_MS} ms: {noop_ms:.1f} ms, {verdict(noop_ms, NOOP_GOAL_MS)}")
    for line in notes:
        print(f"NOTE: {line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (for a smoke run)")
    options = parser.parse_args()
    if not os.access(STARLARK, os.X_OK):
        raise SystemExit(f"{STARLARK} is missing: run scripts/setup.sh")
    env = dict(os.environ, ETSB_STARLARK=STARLARK)
    eval_runs, noop_runs, edit_runs = (3, 5, 1) if options.quick else (7, 20, 3)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="etsb_bench_build_") as tmp:
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start\n")
        bench_evaluation(Path(tmp), eval_runs, env)
        bench_mlp(Path(tmp), noop_runs, edit_runs, env)
    print(f"\n(bench took {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f} at the end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
