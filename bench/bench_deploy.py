"""Deployable binaries: etsb's size configuration against ExecuTorch's size test, in one run.

    .venv/bin/python bench/bench_deploy.py [--platforms host,aarch64-linux,cortex-m55] [--models mlp,cnn]
                                           [--runs N] [--no-wait] [--max-wait MINUTES]
                                           (a few minutes; the first run with the host's
                                           all-operators size test about 20 more; writes
                                           bench/results/bench_deploy.md)

For each platform: ExecuTorch's own size test (`@executorch//test:size_test`:
the runtime, a file data loader and a main, no operators), built from the
ExecuTorch tree by `etsb build --platform P` twice, with etsb's size flags
(`--config size`) and with ExecuTorch's CI flags (`--config executorch-ci`,
driver/platforms.py: its test/build_size_test.sh and CMake Release with
EXECUTORCH_OPTIMIZE_SIZE), and on the host also with every operator of
ExecuTorch's portable kernels registered (`size_test_all_ops`, CI flags); each
corpus model as a shipped binary (`et_model_binary` with `runtime = "static"`,
`embed_model = True`, its inputs embedded, `dtype_selective_build`, `--config
size`), run (directly, or under the platform's emulator) and its printed
outputs checked against torch's; on the host also the development binary of
each model (default configuration, wheel runtime, .npy runner).

Sizes: stripped file bytes for hosted platforms, flash (text + data) for bare
metal, against ExecuTorch's CI thresholds for its size test (52,168 bytes on
x86-64 GCC, 115,868 on bare-metal Arm GCC) and against the size test built
here; each binary by part, as `etsb size` splits it from its link map.
Latency on x86-64, the shipped binary (its input embedded) against the
development binary on the same input: the median process wall time of N runs
(interleaved), and the instructions executed in the method's execution
(valgrind's callgrind: the deploy runner has no clock), each ratio against
the goal "size mode makes a model at most 1.5x slower".
Goals (issue 29): the MLP <= 48 KB on x86-64 and <= 100 KB of flash on a Cortex-M.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from lib.cli import choose, parser, wait
from lib.env import MODELS_DIR, REPO, starlark_env
from lib.processes import BuildFailed, etsb_build, instructions_in
from lib.results import finish, markdown, ms_cell
from lib.sizes import parts_by_map, stripped, yaml_operators
from lib.timing import time_commands
from lib.workspace import new_workspace, write_if_changed

from selective_build.driver import size as size_mod
from selective_build.driver.platforms import EXECUTORCH_CI_CONFIG, HOST, PLATFORMS, SIZE_CONFIG
from selective_build.readers.deploy_output import read_deploy_output

MODELS = ("mlp", "cnn", "attention", "embedding", "mixed_dtypes")
# ExecuTorch's CI thresholds for its size test (test/build_size_test.sh and its CI jobs), in bytes.
SIZE_TEST_THRESHOLDS = {"host": 52_168, "cortex-m55": 115_868}
GOALS = {"host": 48 * 1024, "cortex-m55": 100 * 1024}
SLOWDOWN_GOAL = 1.5   # size mode must not make a model more than this much slower
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE") or REPO.parent / "shared" / "third_party" / "executorch")
SIZE_TEST, ALL_OPS = "@executorch//test:size_test", "@executorch//test:size_test_all_ops"
ALL_OPS_PLATFORMS = (HOST,)
# One workspace per configuration: the other's objects are never rebuilt (ExecuTorch's
# portable kernels, for the all-operators size test, take minutes to compile).
WORKSPACES = {SIZE_CONFIG: REPO / "etsb-out" / "bench" / "deploy-size",
              EXECUTORCH_CI_CONFIG: REPO / "etsb-out" / "bench" / "deploy"}
# The columns of the per-part table: (heading, etsb size's parts summed in it).
PART_COLUMNS = (("runtime core", (size_mod.PART_RUNTIME,)), ("prim ops", (size_mod.PART_PRIM_OPS,)),
                ("kernels", (size_mod.PART_KERNELS, size_mod.PART_KERNEL_SUPPORT)),
                ("registration", (size_mod.PART_REGISTRATION,)), ("runner", (size_mod.PART_RUNNER,)),
                ("model", (size_mod.PART_MODEL,)), ("C/C++ libraries, start-up", (size_mod.PART_CXX,)),
                ("other", (size_mod.PART_OTHER,)))
# What runs a program's method (the deploy and development runners alike call it once).
EXECUTE = "executorch::runtime::Method::execute()"


def method_meta(model: str) -> dict:
    """The corpus manifest's record of ``model``'s forward method: its input and output files."""
    return json.loads((MODELS_DIR / "manifest.json").read_text())["models"][model]["methods"]["forward"]


def package_build(model: str) -> str:
    """The BUILD file of one model's package: the shipped binary and the development one."""
    inputs = ", ".join(f'"{i["file"]}"' for i in method_meta(model)["inputs"])
    return (f'load("//rules:executorch.bzl", "et_model_binary")\n\n'
            f'et_model_binary(\n    name = "ship",\n    model = "{model}.pte",\n    runtime = "static",\n'
            f'    embed_model = True,\n    inputs = [{inputs}],\n    dtype_selective_build = True,\n)\n\n'
            f'et_model_binary(\n    name = "dev",\n    model = "{model}.pte",\n)\n')


def prepare(models: list[str]) -> None:
    """The bench's workspaces: etsb's parts in each, and one package per model in the size one."""
    for workspace in WORKSPACES.values():
        new_workspace(workspace)
    for model in models:
        package = WORKSPACES[SIZE_CONFIG] / model
        package.mkdir(exist_ok=True)
        for path in (MODELS_DIR / model).iterdir():
            if not (package / path.name).exists():
                shutil.copy2(path, package / path.name)
        write_if_changed(package / "BUILD", package_build(model))


def size_of(platform: str, binary: Path, tmp: Path) -> int:
    """Stripped bytes (hosted), or flash bytes: text + data (bare metal)."""
    if PLATFORMS[platform].hosted:
        return stripped(binary, tmp)
    fields = subprocess.run([PLATFORMS[platform].size, str(binary)], capture_output=True, text=True, check=True).stdout.split("\n")[1]
    text, data = fields.split()[:2]
    return int(text) + int(data)


def check_output(platform: str, binary: Path, model: str) -> str:
    """Run a shipped binary (under the platform's emulator) and compare with torch: "ok" or what differs."""
    command = [*PLATFORMS[platform].emulator, str(binary)]
    try:
        run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"did not run: {error}"
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.strip()[-200:]}"
    got = read_deploy_output(run.stdout, str(binary))
    expected = [np.load(MODELS_DIR / model / o["file"]) for o in method_meta(model)["outputs"]]
    if len(got) != len(expected):
        return f"{len(got)} outputs, torch {len(expected)}"
    arrays = [np.frombuffer(g.data, e.dtype).reshape(g.sizes).astype(np.float64) for g, e in zip(got, expected)]
    worst = max((float(np.max(np.abs(a - e.astype(np.float64)))) if e.size else 0.0) for a, e in zip(arrays, expected))
    return "ok" if worst <= 1e-5 else f"max difference {worst:.2g}"


def measure(platform: str, name: str, binary: Path, tmp: Path) -> tuple[int, list[object]]:
    """A binary's size, and its row of the per-part table (platform, name, total, each part's bytes)."""
    size = size_of(platform, binary, tmp)
    parts = parts_by_map(binary, size)
    return size, [platform, name, f"{size:,}",
                  *(f"{sum(parts.get(p, 0) for p in names):,}" for _, names in PART_COLUMNS)]


def build(config: str, platform: str, labels: list[str]) -> dict[str, Path]:
    """Build ``labels`` in ``config``'s workspace for ``platform``: each label's binary."""
    flags = ("--executorch-root", str(TREE), f"--config={config}", f"--platform={platform}")
    built = etsb_build(WORKSPACES[config], labels, starlark_env(), *flags).outputs
    # The evaluator's outputs of an external repository's package (BUILT_LINE names the main one's).
    tests = WORKSPACES[config] / "etsb-out" / "bin" / "external" / "executorch" / "test"
    return {**built, SIZE_TEST: tests / "size_test", ALL_OPS: tests / "size_test_all_ops"}


def size_tests(platform: str, tmp: Path) -> tuple[dict[str, int], list[list[object]], list[list[object]]]:
    """ExecuTorch's size test on ``platform`` with each flag set (and all operators where
    ALL_OPS_PLATFORMS says): the sizes by config, the size-test table's rows, per-part rows."""
    sizes, parts = {}, []
    for config, flags in ((SIZE_CONFIG, "etsb's size flags"), (EXECUTORCH_CI_CONFIG, "ExecuTorch's CI flags")):
        built = build(config, platform, [SIZE_TEST])
        sizes[config], row = measure(platform, f"size test, no operators, {flags}", built[SIZE_TEST], tmp)
        parts.append(row)
    threshold = SIZE_TEST_THRESHOLDS.get(platform)
    rows: list[list[object]] = [[platform, "none", f"{sizes[SIZE_CONFIG]:,}", f"{sizes[EXECUTORCH_CI_CONFIG]:,}",
                                 f"{threshold:,}" if threshold else "-"]]
    if platform in ALL_OPS_PLATFORMS:
        built = build(EXECUTORCH_CI_CONFIG, platform, [ALL_OPS])
        everything, row = measure(platform, "size test, all portable operators, ExecuTorch's CI flags",
                                  built[ALL_OPS], tmp)
        parts.append(row)
        operators = yaml_operators(TREE / "kernels" / "portable" / "functions.yaml")
        rows.append([platform, f"all {operators} portable operators", "-", f"{everything:,}", "-"])
    return sizes, rows, parts


def shipped(platform: str, models: list[str], tests: dict[str, int], tmp: Path) -> tuple[list, list, dict, list]:
    """The shipped binaries on ``platform``: their table's rows, per-part rows, binaries by model, problems."""
    built = build(SIZE_CONFIG, platform, [f"//{m}:ship" for m in models])
    dev = {}
    if platform == HOST:
        dev = etsb_build(WORKSPACES[SIZE_CONFIG], [f"//{m}:dev" for m in models], starlark_env()).outputs
    threshold = SIZE_TEST_THRESHOLDS.get(platform)
    rows, parts, binaries, problems = [], [], {}, []
    for model in models:
        binary = binaries[model] = built[f"//{model}:ship"]
        size, part_row = measure(platform, f"{model}, shipped", binary, tmp)
        parts.append(part_row)
        verdict = check_output(platform, binary, model)
        if verdict != "ok":
            problems.append(f"{platform} {model}: {verdict}")
        goal = GOALS.get(platform) if model == "mlp" else None
        note = "" if goal is None else (f"<= {goal:,}: met" if size <= goal else
                                        f"<= {goal:,}: not met by {size - goal:,}")
        development = f"{stripped(dev[f'//{model}:dev'], tmp):,}" if dev else "-"
        rows.append([platform, model, f"{size:,}", f"{size / tests[SIZE_CONFIG]:.2f}x",
                     f"{size / tests[EXECUTORCH_CI_CONFIG]:.2f}x", f"{threshold:,}" if threshold else "-", note,
                     development, verdict])
    if dev:
        binaries.update({f"{m}:dev": dev[f"//{m}:dev"] for m in models})
    return rows, parts, binaries, problems


def dev_command(model: str, binary: Path, out: Path) -> list[str]:
    """The development binary's command line on the model's recorded inputs."""
    package = WORKSPACES[SIZE_CONFIG] / model
    inputs = ",".join(str(package / i["file"]) for i in method_meta(model)["inputs"])
    return [str(binary), "--model", str(package / f"{model}.pte"), "--inputs", inputs, "--output-dir", str(out)]


def goal_cell(ratio: float) -> str:
    """The slowdown goal's verdict on a shipped / development ratio."""
    return (f"met ({ratio:.2f}x)" if ratio <= SLOWDOWN_GOAL
            else f"not met: {ratio:.2f}x, {ratio / SLOWDOWN_GOAL - 1:.0%} over")


def latency(models: list[str], binaries: dict[str, Path], runs: int, tmp: Path) -> list[list[object]]:
    """Per model on the host, shipped and development binaries: the median process wall ms
    (interleaved runs) and the instructions of the method's execution, each with its
    ratio and SLOWDOWN_GOAL's verdict."""
    rows = []
    for model in models:
        commands = {"ship": [str(binaries[model])], "dev": dev_command(model, binaries[f"{model}:dev"], tmp)}
        timed = time_commands(commands, runs)
        counted = {side: instructions_in(command, EXECUTE) for side, command in commands.items()}
        wall, work = timed["ship"] / timed["dev"], counted["ship"] / counted["dev"]
        rows.append([model, ms_cell(timed["ship"]), ms_cell(timed["dev"]), f"{wall:.2f}x", goal_cell(wall),
                     f"{counted['ship']:,}", f"{counted['dev']:,}", f"{work:.2f}x", goal_cell(work)])
    return rows


def report(tests: list, ships: list, parts: list, timings: list, runs: int) -> str:
    """The results: the size tests, the shipped binaries, both by part, latency on the host."""
    text = ["## ExecuTorch's size test, built here\n",
            "Bytes: stripped file (hosted platforms), flash = text + data (bare metal). etsb's size flags are "
            "`--config size`'s; ExecuTorch's CI flags `--config executorch-ci`'s (its test/build_size_test.sh: "
            "`-fno-exceptions -fno-rtti -DET_HAVE_PREAD=0`, and its CMake's Release with "
            "EXECUTORCH_OPTIMIZE_SIZE: `-Os -ffunction-sections -fdata-sections -DNDEBUG -DET_LOG_ENABLED=0 "
            "-DET_ENABLE_PROGRAM_VERIFICATION=0`, linked with `--gc-sections`, a position-independent "
            "executable; here the size test's main takes them too, where CMake compiles it at Release's -O3). "
            "'CI threshold' is ExecuTorch's own figure for the test (x86-64 GCC 9; bare-metal Arm GCC).\n",
            markdown(["platform", "operators", "etsb's size flags", "ExecuTorch's CI flags", "CI threshold"], tests),
            "\n## Shipped binaries\n",
            "Each corpus model with `--config size`, the static runtime, embedded with its inputs, "
            "dtype-selective; 'x size test' against the size test without operators built here with the same "
            "flags, and with ExecuTorch's CI flags; 'development' is the same model's binary in the default "
            "configuration (wheel runtime, .npy runner; the 437 KB libexecutorch.so it loads not counted).\n",
            markdown(["platform", "model", "bytes", "x size test (same flags)", "x size test (CI flags)",
                      "CI threshold", "goal", "development", "matches torch"], ships),
            "\n## By part\n",
            "Bytes of each part, from the link map as `etsb size` splits it: 'runtime core' is ExecuTorch's "
            "runtime from the tree (with its data loader and kernel registry), 'prim ops' its prim ops (only "
            "those the program calls in a shipped binary), 'kernels' the operators' kernels and their "
            "utilities, 'registration' the generated code registering them, 'runner' the main (etsb's deploy "
            "runner, the size test's own), 'model' the embedded program and inputs, 'C/C++ libraries, "
            "start-up' what the toolchain links in (start-up files; on bare metal newlib, libstdc++, libgcc) and "
            "the board's start-up code and platform layer, 'other' what no object holds (ELF headers, "
            "dynamic linking and relocations, padding).\n",
            markdown(["platform", "binary", "total", *(heading for heading, _ in PART_COLUMNS)], parts)]
    if timings:
        text += ["\n## Latency on x86-64\n",
                 f"Each corpus model's shipped binary (its input embedded) against its development binary (the "
                 f"same input, from .npy; its outputs written). 'wall': the median process wall time of {runs} "
                 "runs each, interleaved: start-up, loading, one run of the method, the output. 'method': the "
                 f"instructions executed in `{EXECUTE}` and what it calls (valgrind's callgrind), a count other "
                 "load does not change: the deploy runner has no clock, and the method takes microseconds here "
                 "(tens of thousands of instructions), so the wall times are mostly the processes' start-up. "
                 f"Goal: size mode makes a model at most {SLOWDOWN_GOAL}x slower.\n",
                 markdown(["model", "wall: shipped (ms)", "wall: development (ms)", "shipped / development",
                           f"goal <= {SLOWDOWN_GOAL}x", "method: shipped (instructions)",
                           "method: development (instructions)", "shipped / development",
                           f"goal <= {SLOWDOWN_GOAL}x"], timings)]
    return "\n".join(text)


def main() -> int:
    """Build, run and measure each platform's binaries; time the host's; write the results file."""
    options = _options()
    started = time.perf_counter()
    if not (TREE / "runtime").is_dir():
        raise SystemExit(f"no ExecuTorch tree at {TREE}: set ETSB_EXECUTORCH_TREE")
    platforms = choose("platform", options.platforms, PLATFORMS)
    models = choose("model", options.models, MODELS)
    prepare(models)
    tests, ships, parts, timings, problems = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for platform in platforms:
            try:
                sizes, test_rows, test_parts = size_tests(platform, Path(tmp))
                ship_rows, ship_parts, binaries, platform_problems = shipped(platform, models, sizes, Path(tmp))
            except BuildFailed as failure:
                problems.append(f"{platform}: {str(failure)[-1500:]}")
                continue
            tests, ships, parts, problems = tests + test_rows, ships + ship_rows, parts + test_parts + ship_parts, \
                problems + platform_problems
            if platform == HOST:
                wait("timing the host's binaries", options)
                timings = latency(models, binaries, options.runs, Path(tmp))
    return finish("bench_deploy", report(tests, ships, parts, timings, options.runs), started, problems)


def _options():
    """The command line: which platforms and models, how many timed runs."""
    cli = parser(__doc__, wait=True)
    cli.add_argument("--platforms", type=lambda text: text.split(","), default=["host"],
                     help=f"comma-separated platforms ({', '.join(PLATFORMS)}; default host)")
    cli.add_argument("--models", type=lambda text: text.split(","), default=None,
                     help=f"comma-separated corpus models (default: {', '.join(MODELS)})")
    cli.add_argument("--runs", type=int, default=20, help="timed runs of each binary on the host (default 20)")
    return cli.parse_args()


if __name__ == "__main__":
    sys.exit(main())
