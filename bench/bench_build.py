"""Build driver benchmark: BUILD-file evaluation at scale, the MLP example's
cold, no-op and incremental builds with `etsb build`, and the no-op and
start-up figures in this checkout, in one run.

    .venv/bin/python bench/bench_build.py [--runs N] [--quick] [--no-examples]   (writes bench/results/bench_build.md)

In temporary workspaces: 1. `etsb query //...` end to end beside the
evaluator alone on generated trees of 1,000 and 10,000 targets (packages of 10,
calling the primitive rules or a macro; each library depending on the previous
package's), and where the Python side's time goes (goal: 10,000 targets < 1 s);
2. //examples/mlp:bin, -j 2: cold, no-op (goal < 50 ms), a BUILD file touched,
a kernel yaml edited (bench_bazel.py times the same target under both Bazels).
In this checkout (its own etsb-out, as a user's): 3. no-op builds of
//examples/mlp:bin (goal <= 25 ms) and of //examples/... (goal <= 100 ms;
the first run builds what is missing, which takes minutes on a fresh checkout;
--no-examples leaves it out), selection from one .pte and a merge beside
ExecuTorch's gen_oplist.py and merge_yaml.py (goal: >= 2x each).
"""

from __future__ import annotations

import json
import marshal
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping

from lib.env import ETSB, EXPORT_PYTHON, FILES, MLP, MODELS_DIR, REPO, STARLARK, VENV_PYTHON, executorch_runtime, \
    starlark_env
from lib.results import finish, markdown, ms_cell
from lib.timing import gen_oplist, instructions_of, parser, probes, python, time_commands
from lib.workspace import actions_summary, copy_mlp_workspace, copy_parts, etsb_build
from selective_build.driver import state
from selective_build.driver.layout import ninja_file, state_file
from selective_build.driver.platforms import output_dir
from selective_build.driver.workspace import Workspace

# The output folder of the builds here (no --platform or --config).
HOST_OUT = output_dir({})

EVAL_GOAL_MS, NOOP_GOAL_MS = 1000, 50   # 10,000 targets, `etsb query //...`; a no-op `etsb build` of the MLP
# In the checkout: a no-op build of one binary and of every example (ms); selection and merge against their peers.
CHECKOUT_NOOP_GOAL_MS, EXAMPLES_NOOP_GOAL_MS, PEER_GOAL = 25, 100, 2.0
EXAMPLES = "//examples/..."
# What a no-op `etsb build` imports (tools/etsb, the launcher, imports nothing else).
NOOP_IMPORTS = "import selective_build.__main__, selective_build.argv, selective_build.commands, " \
               "selective_build.driver.fast"
# The steps of `etsb query //...`, timed inside one fresh process (as the command runs them, collector and
# all). argv: root, evaluator, pause the collector around the JSON steps (0/1), the evaluator's repository
# options (JSON). Prints the times in ms as JSON.
SPLIT_PROBE = r"""
import time
t0 = time.perf_counter()
import gc, json, re, subprocess, sys
import selective_build.__main__, selective_build.arguments, selective_build.commands
from selective_build.driver import analysis, attr_values, evaluate, graph, state, workspace
from selective_build.driver.labels import parse_pattern
root, starlark, pause, flags = sys.argv[1], sys.argv[2], sys.argv[3] == "1", json.loads(sys.argv[4])
t = [t0, time.perf_counter()]
pkgs = state.discover_packages(root); t.append(time.perf_counter())
out = subprocess.run([starlark, "--root", root, *flags, *pkgs], check=True, capture_output=True).stdout
t.append(time.perf_counter())
if pause:
    gc.disable()
document = json.loads(out); t.append(time.perf_counter())
packages = {e["package"]: evaluate._package(e) for e in document["packages"]}; t.append(time.perf_counter())
gc.enable()
for p in packages.values():
    attr_values.referenced_packages(p)
t.append(time.perf_counter())
labels = workspace.Workspace.matching(packages, [parse_pattern("//...", "")]); t.append(time.perf_counter())
text = "\n".join(str(label) for label in labels); t.append(time.perf_counter())
print(json.dumps({"steps": [(b - a) * 1000 for a, b in zip(t, t[1:])], "json_bytes": len(out)}))
"""
SPLIT_STEPS = ["imports (command line, driver, evaluate, graph)", "find packages", "etsb-starlark (process)", "JSON parse",
               "JSON -> Package/Target objects", "referenced packages", "match //... and sort", "format the labels"]


def verdict(measured: float, goal: float) -> str:
    """The share of the budget used, and whether the goal is met."""
    return f"{measured / goal:.2f}x of budget: {'met' if measured < goal else 'not met'}"


def make_tree(root: Path, packages: int, form: str) -> None:
    """A workspace of ``packages`` generated packages of 10 targets each (files/*.in: the BUILD files, the
    macro), each library depending on the previous package's."""
    primitives, macro = (FILES / "primitives.BUILD.in").read_text(), (FILES / "macro.BUILD.in").read_text()
    copy_parts(root, ["rules"])
    (root / "MODULE.bazel").write_text('module(name = "bench_tree")\n')
    (root / "macros").mkdir()
    (root / "macros" / "BUILD").write_text("# The generated packages' macro.\n")
    shutil.copyfile(FILES / "ten.bzl.in", root / "macros" / "ten.bzl")
    for i in range(packages):
        (directory := root / f"src/g{i // 100:02d}/p{i:04d}").mkdir(parents=True)
        dep = f"//src/g{(i - 1) // 100:02d}/p{i - 1:04d}:m_lib" if i else None
        (directory / "BUILD").write_text(primitives.format(deps=json.dumps([dep] if dep else [])) if form ==
                                         "primitives" else macro.format(dep=json.dumps(dep) if dep else "None"))


def python_split(root: Path, flags: list[str], runs: int, pause: bool, env: Mapping[str, str]) -> tuple[list, int]:
    """Median ms of each step of SPLIT_PROBE over ``runs`` fresh processes, and the evaluator's output size."""
    found = probes(python(SPLIT_PROBE) + [str(root), STARLARK, str(int(pause)), json.dumps(flags)], runs,
                   cwd=root, env=env)
    return [statistics.median(column) for column in zip(*(r["steps"] for r in found))], found[-1]["json_bytes"]


def evaluation_rows(tmp: Path, runs: int, env: Mapping[str, str]) -> tuple[list, dict, list[str]]:
    """Per tree: the table's row; the 10,000-target trees' timings and splits; failed checks."""
    rows, splits, checks = [], {}, []
    for packages, form in ((p, f) for p in (100, 1000) for f in ("primitives", "macro")):
        make_tree(root := tmp / f"tree_{packages}_{form}", packages, form)
        listed = subprocess.run([ETSB, "query", "//..."], cwd=root, env=env, check=True, capture_output=True,
                                text=True).stdout.split()
        # The evaluator's options as `etsb query` gives them (etsb's rules load the driver's shim through
        # `@etsb_shim`, linked by the query just run), less the prelude.
        flags, targets = [f for f in Workspace(str(root), "", {}).evaluator_flags() if not f.startswith("--prelude")], \
            packages * 10
        # The tree's own packages only: the copied rules/ has settings, and primitives' references to @etsb//.
        if (count := sum(label.startswith("//src/") for label in listed)) != targets:
            checks.append(f"{targets} targets expected under //src in {root.name}, etsb query listed {count}")
        pkgs = state.discover_packages(str(root))
        times = time_commands({"query": [ETSB, "query", "//..."],
                               "evaluator": [STARLARK, "--root", str(root), *flags, *pkgs]}, runs, str(root), env,
                              False)
        rows.append([f"{targets:,}", str(len(pkgs)), form, ms_cell(times["query"]), ms_cell(times["evaluator"]),
                     ms_cell(times["query"] - times["evaluator"]), f"{times['evaluator'] / times['query'] * 100:.0f}%",
                     f"{times['query'] / targets * 1000:.0f}",
                     verdict(times["query"], EVAL_GOAL_MS) if targets == 10000 else ""])
        if targets == 10000:
            splits[form] = (times, *(python_split(root, flags, runs, pause, env) for pause in (False, True)))
    return rows, splits, checks


def bench_evaluation(tmp: Path, runs: int, env: Mapping[str, str]) -> list[str]:
    """Section 1 of the report."""
    start = time_commands({"start": "pass"}, runs, str(tmp), env, False)["start"]
    rows, splits, checks = evaluation_rows(tmp, runs, env)
    columns = splits.values()
    split_rows = [["Python start (python -c pass)", *[ms_cell(start) for _ in columns]],
                  *([name, *[ms_cell(s[1][0][i]) for s in columns]] for i, name in enumerate(SPLIT_STEPS)),
                  ["sum", *[ms_cell(start + sum(s[1][0])) for s in columns]],
                  ["etsb query, measured above", *[ms_cell(s[0]["query"]) for s in columns]],
                  ["evaluator output (JSON)", *[f"{s[1][1] / 2**20:.1f} MB" for s in columns]],
                  ["what if: JSON parse + objects, collector paused", *[ms_cell(s[2][0][3] + s[2][0][4]) for s in columns]]]
    return ["1. BUILD-file evaluation: `etsb query //...` end to end beside the evaluator alone "
            f"(median ms of {runs} interleaved runs)", "",
            markdown(["targets", "packages", "BUILD files", "etsb query ms", "etsb-starlark ms", "Python ms",
                      "Go share", "us/target", f"goal < {EVAL_GOAL_MS} ms (10,000)"], rows),
            "", *(f"CHECK FAILED: {line}" for line in checks), "",
            f"Where the time goes, 10,000 targets (ms; each step timed inside a fresh process "
            f"that does what etsb query does, median of {runs})", "",
            markdown(["step", *[f"{f} ms" for f in splits]], split_rows)]


def mlp_builds(tmp: Path, noop_runs: int, edit_runs: int, env: Mapping[str, str]) -> tuple[dict, list[str]]:
    """The builds of section 2: each case's (ms, actions of the last build) and the no-op's times; notes."""
    workspace, notes = tmp / "workspace", []
    copy_mlp_workspace(workspace)

    def edited(runs: int, edit) -> tuple[float, list[str]]:
        builds = [(edit(i), etsb_build(workspace, [MLP], env))[1] for i in range(runs)]
        return statistics.median(b.seconds * 1000 for b in builds), list(builds[-1].actions)

    def append_comment(path: Path, i: int) -> None:
        with open(path, "a") as handle:   # a comment: the generated code does not change
            handle.write(f"# bench_build.py edit {i}\n")

    cases, models = {"cold": edited(1, lambda i: None)}, workspace / "tests" / "models" / "mlp"
    run = subprocess.run([str(workspace / HOST_OUT / "bin" / "examples" / "mlp" / "bin"), "--model",
                          str(models / "mlp.pte"), "--inputs", str(models / "forward.input_0.npy"),
                          "--output-dir", str(tmp / "mlp_out")], capture_output=True, text=True)
    notes += [f"the built binary failed (exit {run.returncode}): {run.stderr.strip()[:300]}"] if run.returncode else []
    if first_noop := etsb_build(workspace, [MLP], env).actions:
        notes.append(f"the build right after the cold one re-ran: {list(first_noop)}")
    plan = marshal.loads((workspace / state_file(HOST_OUT)).read_bytes())["plan"]
    cases["noop"] = time_commands({
        "etsb build -j 2": [ETSB, "build", "-j", "2", MLP], "etsb build -j2": [ETSB, "build", "-j2", MLP],
        "python -c pass": "pass", "python, fast-path imports": NOOP_IMPORTS,
        "ninja alone": [shutil.which("ninja", path=env.get("PATH")) or "ninja", "-f", ninja_file(HOST_OUT), "-j",
                        "2", *plan[0]]}, noop_runs, str(workspace), env, False)
    # A BUILD file touched: the plan is made again (evaluation, analysis, build.ninja), nothing compiles.
    build_file = workspace / "examples" / "mlp" / "BUILD"
    cases["replan"] = edited(edit_runs, lambda i: os.utime(build_file, ns=(time.time_ns(), time.time_ns())))
    cases["edit"] = edited(edit_runs, lambda i: append_comment(workspace / "kernels/portable/functions.yaml", i))
    if after_edit := etsb_build(workspace, [MLP], env).actions:
        notes.append(f"the build after the yaml edit re-ran: {list(after_edit)}")
    return cases, notes


def bench_mlp(tmp: Path, noop_runs: int, edit_runs: int, env: Mapping[str, str]) -> list[str]:
    """Section 2 of the report."""
    cases, notes = mlp_builds(tmp, noop_runs, edit_runs, env)
    (cold_ms, cold), noop = cases["cold"], cases["noop"]
    (replan_ms, replan), (edit_ms, edit), noop_ms = cases["replan"], cases["edit"], noop["etsb build -j 2"]
    return [
        f"2. {MLP} in a copy of the workspace, etsb build -j 2", "",
        markdown(["case", "wall", "actions run", "which"], [
            ["cold, empty etsb-out", f"{cold_ms / 1000:.1f} s", str(len(cold)), actions_summary(cold)],
            [f"no-op (median of {noop_runs})", f"{noop_ms:.1f} ms", "0", "none"],
            [f"no-op spelled -j2 (median of {noop_runs})", f"{noop['etsb build -j2']:.1f} ms", "0", "none"],
            [f"BUILD file touched (median of {edit_runs})", f"{replan_ms:.0f} ms", str(len(replan)),
             actions_summary(replan)],
            [f"functions.yaml: comment appended (median of {edit_runs})", f"{edit_ms:.0f} ms", str(len(edit)),
             actions_summary(edit) + (": " + "; ".join(edit) if edit else "")]]),
        "", f"No-op, where the time goes (median ms of {noop_runs} interleaved runs)", "",
        markdown(["command", "ms"], [[command, f"{noop[key]:.1f}"] for command, key in (
            ("python -c pass (interpreter start)", "python -c pass"),
            (f"python -c '{NOOP_IMPORTS}'", "python, fast-path imports"),
            (f"ninja -f {ninja_file(HOST_OUT)} -j 2 TARGETS (ninja's own no-op)", "ninja alone"),
            ("etsb build -j 2 //examples/mlp:bin", "etsb build -j 2"),
            ("etsb build -j2 //examples/mlp:bin", "etsb build -j2"))]),
        "", f"Goal: no-op < {NOOP_GOAL_MS} ms: {noop_ms:.1f} ms, {verdict(noop_ms, NOOP_GOAL_MS)}",
        *(f"NOTE: {line}" for line in notes)]


def checkout_noops(runs: int, examples: bool, env: Mapping[str, str]) -> dict[str, dict[str, object]]:
    """No-op builds in the checkout itself (built first, as often as it takes to have nothing to do), each
    pattern's runs together (the kept plan is one: alternating patterns would plan again each time); the
    median ms of etsb, python -c pass and ninja's own no-op, and the instructions of etsb's processes."""
    found = {}
    for pattern in [MLP, *([EXAMPLES] if examples else [])]:
        for _ in range(3):   # the first build may plan and build; the next ones must find nothing to do
            if not etsb_build(REPO, [pattern], env).actions:
                break
        else:
            raise SystemExit(f"etsb build {pattern} in the checkout still ran actions on its third build")
        plan = marshal.loads((REPO / state_file(HOST_OUT)).read_bytes())["plan"]
        ninja = shutil.which("ninja", path=env.get("PATH")) or "ninja"
        command = [ETSB, "build", pattern]
        found[pattern] = {**time_commands({"etsb": command, "start": "pass",
                                           "ninja": [ninja, "-f", ninja_file(HOST_OUT), *plan[0]]}, runs,
                                          str(REPO), env),
                          "instructions": instructions_of(command, str(REPO), env)}
    return found


def checkout_startups(tmp: Path, runs: int) -> dict[str, dict[str, object]]:
    """Selection from one .pte and a merge of the wheel's yamls, each beside its ExecuTorch peer (interleaved):
    median ms, and each command's instructions."""
    et = executorch_runtime()
    portable, custom = et / "kernels/portable/functions.yaml", et / "kernels/portable/custom_ops.yaml"
    merging = ["--functions_yaml_path", str(custom), "--fallback_yaml_path", str(portable)]
    for name in ("etsb", "peer"):
        (tmp / name).mkdir()
    model = MODELS_DIR / "mlp" / "mlp.pte"
    commands = {"selection": {"etsb": gen_oplist(tmp / "etsb/a.yaml", model),
                              "peer": gen_oplist(tmp / "peer/a.yaml", model, peer=True)},
                "merge": {"etsb": [ETSB, "merge-yaml", *merging, "--output_dir", str(tmp / "etsb")],
                          "peer": [str(VENV_PYTHON), str(et / "codegen/tools/merge_yaml.py"), *merging,
                                   "--output_dir", str(tmp / "peer")]}}
    return {case: {**time_commands(pair, runs), **{f"{tool} instructions": sum(instructions_of(argv))
                                                    for tool, argv in pair.items()}}
            for case, pair in commands.items()}


def _millions(count: int) -> str:
    return f"{count / 1e6:.0f}M"


def bench_checkout(tmp: Path, runs: int, examples: bool, env: Mapping[str, str]) -> list[str]:
    """Section 3 of the report."""
    noops, startups = checkout_noops(runs, examples, env), checkout_startups(tmp, runs)
    start = _millions(sum(instructions_of(python("pass"))))
    rows = [[f"etsb build {pattern}, no-op", ms_cell(times["etsb"]), ms_cell(times["start"]), ms_cell(times["ninja"]),
             f"{' + '.join(_millions(c) for c in times['instructions'])} (python -c pass {start})", "",
             f"<= {goal} ms: {'met' if times['etsb'] <= goal else 'not met'}"]
            for (pattern, times), goal in zip(noops.items(), (CHECKOUT_NOOP_GOAL_MS, EXAMPLES_NOOP_GOAL_MS))]
    for name, command, peer in (("selection", "etsb gen-oplist --model_file_path mlp.pte", "gen_oplist.py"),
                                ("merge", "etsb merge-yaml (custom_ops.yaml over functions.yaml)", "merge_yaml.py")):
        found = startups[name]
        ratio, counted = found["peer"] / found["etsb"], found["peer instructions"] / found["etsb instructions"]
        rows.append([command, ms_cell(found["etsb"]), "", "",
                     f"{_millions(found['etsb instructions'])} (peer {_millions(found['peer instructions'])}: "
                     f"{counted:.2f}x)", f"{ms_cell(found['peer'])} ({peer}): {ratio:.2f}x",
                     f">= {PEER_GOAL:.0f}x: {'met' if ratio >= PEER_GOAL else 'not met'}"])
    return [f"3. In this checkout ({REPO.name}, its own etsb-out; median ms of {runs} interleaved runs, bytecode "
            f"cached; the no-ops beside python -c pass, the tools beside ExecuTorch's, gen_oplist.py run from "
            f"{EXPORT_PYTHON.parent.parent.name}; instructions counted by callgrind, which other load does not "
            "change: etsb's process, + ninja's when it runs; a no-op whose files are unchanged since ninja last "
            "had nothing to do does not run it, ninja's own no-op is beside it for comparison)", "",
            markdown(["command", "etsb ms", "python -c pass ms", "ninja's own no-op ms", "instructions",
                      "peer ms: speed-up", "goal"], rows),
            *([] if examples else ["", f"({EXAMPLES} left out: --no-examples)"])]


def main() -> int:
    """Time evaluation and the MLP's builds in temporary workspaces, and the checkout's own; write the report."""
    options = parser(__doc__, runs=20, runs_help="timed runs of each no-op and start-up (median)",
                     quick=(bool, False, "fewer repetitions (for a smoke run)"),
                     no_examples=(bool, False, f"leave out the checkout's no-op of {EXAMPLES}")).parse_args()
    env = starlark_env()
    eval_runs, noop_runs, edit_runs = (3, 5, 1) if options.quick else (7, options.runs, 3)
    with tempfile.TemporaryDirectory(prefix="etsb_bench_build_") as tmp:
        lines = bench_evaluation(Path(tmp), eval_runs, env) + [""] + bench_mlp(Path(tmp), noop_runs, edit_runs, env)
        lines += [""] + bench_checkout(Path(tmp), noop_runs, not options.no_examples, env)
    return finish("bench_build", "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
