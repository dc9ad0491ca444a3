"""Deployable binaries: etsb's size configuration against ExecuTorch's size test, in one run.

    .venv/bin/python bench/bench_deploy.py [--platforms host,aarch64-linux,cortex-m55] [options]
    (a few minutes, the first run ~20 more; writes bench/results/bench_deploy.md)

Per platform: ExecuTorch's size test (`@executorch//test:size_test`) built from the tree with
etsb's size flags and with ExecuTorch's CI flags (on the host also with all its portable
operators), and each corpus model shipped (static runtime, embedded, dtype-selective), run under
the platform's emulator and checked against torch: sizes whole and by part (the report says
how); on x86-64 the shipped binary's latency against the development one's. Goals: the MLP
<= 48 KB on x86-64, <= 100 KB of flash on a Cortex-M; shipped at most 1.5x slower.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from lib.env import REPO, TREE, starlark_env
from lib.models import Model, corpus_methods, runner_command
from lib.results import finish, markdown, ms_cell
from lib.sizes import parts_by_map, stripped, yaml_operators
from lib.timing import choose, instructions_in, listed, parser, time_commands, wait
from lib.workspace import BuildFailed, etsb_build, model_target, new_workspace, write_model_package
from selective_build.driver import size as size_mod
from selective_build.driver.platforms import EXECUTORCH_CI_CONFIG, HOST, PLATFORMS, SIZE_CONFIG
from selective_build.readers.deploy_output import read_deploy_output

MODELS = ("mlp", "cnn", "attention", "embedding", "mixed_dtypes")
# ExecuTorch's CI thresholds for its size test (test/build_size_test.sh and its CI jobs), in bytes.
SIZE_TEST_THRESHOLDS = {"host": 52_168, "cortex-m55": 115_868}
GOALS = {"host": 48 * 1024, "cortex-m55": 100 * 1024}
SLOWDOWN_GOAL = 1.5   # size mode must not make a model more than this much slower
SIZE_TEST, ALL_OPS = "@executorch//test:size_test", "@executorch//test:size_test_all_ops"
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
EXECUTE = "executorch::runtime::Method::execute()"   # what runs a program's method (once, in both runners)
SIZES = ("Bytes: stripped file (hosted platforms), flash = text + data (bare metal). etsb's size flags are `--config "
         "size`'s; ExecuTorch's CI flags `--config executorch-ci`'s (its test/build_size_test.sh and its CMake's "
         "Release with EXECUTORCH_OPTIMIZE_SIZE: `-fno-exceptions -fno-rtti -DET_HAVE_PREAD=0 -Os "
         "-ffunction-sections -fdata-sections -DNDEBUG -DET_LOG_ENABLED=0 -DET_ENABLE_PROGRAM_VERIFICATION=0`, "
         "`--gc-sections`, a position-independent executable). 'CI threshold' is ExecuTorch's own figure for the "
         "test (x86-64 GCC 9; bare-metal Arm GCC).\n")
SHIPPED = ("Each corpus model with `--config size`, the static runtime, embedded with its inputs, "
           "`dtype_selective_build = True`: both forms linked, the smaller kept ('dtype-selective / op-selective' "
           "gives both; the two-line default links the dtype-selective form alone); 'x size test' against the size test without operators built here with the same flags, and with "
           "ExecuTorch's CI flags; 'development': the model's binary in the default configuration (wheel runtime, "
           ".npy runner; the 437 KB libexecutorch.so it loads not counted).\n")
PARTS = ("Bytes of each part, from the link map as `etsb size` splits it: 'runtime core' ExecuTorch's runtime from "
         "the tree, 'prim ops' those the program calls, 'kernels' the kernels and their utilities, 'registration' "
         "the generated code registering them, 'runner' the main, 'model' the embedded program and inputs, 'C/C++ "
         "libraries, start-up' what the toolchain and the board's start-up code link in, 'other' what no object "
         "holds (ELF headers, dynamic linking, padding).\n")
LATENCY = ("Each corpus model's shipped binary (its input embedded) against its development binary (the same "
           "input, from .npy). 'wall': the median process wall time of {runs} interleaved runs each (start-up, "
           "loading, one run of the method, the output); 'method': the instructions executed in `{execute}` and what "
           "it calls (valgrind's callgrind), a count other load does not change (the method takes microseconds: the "
           "wall times are mostly start-up). Goal: size mode makes a model at most {goal}x slower.\n")


def prepare(models: dict[str, Model]) -> None:
    """The bench's workspaces: etsb's parts in each, and in the size one a package per model
    (its folder's files) with the shipped binary and the development one."""
    for workspace in WORKSPACES.values():
        new_workspace(workspace)
    for name, model in models.items():
        inputs = ", ".join(f'"{path.name}"' for path in model.inputs)
        write_model_package(WORKSPACES[SIZE_CONFIG] / name, [(p.name, p) for p in model.pte.parent.iterdir()], "", [
            model_target("ship", f"{name}.pte", 'runtime = "static",', "embed_model = True,", f"inputs = [{inputs}],",
                         "dtype_selective_build = True,"), model_target("dev", f"{name}.pte")])


def binary_bytes(platform: str, binary: Path, tmp: Path) -> int:
    """A binary's size: stripped bytes on a hosted platform, else flash (text + data)."""
    if PLATFORMS[platform].hosted:
        return stripped(binary, tmp)
    out = subprocess.run([PLATFORMS[platform].size, str(binary)], capture_output=True, text=True, check=True)
    return sum(int(field) for field in out.stdout.split("\n")[1].split()[:2])


def measure(platform: str, name: str, binary: Path, tmp: Path) -> tuple[int, list[object]]:
    """A binary's size (stripped bytes hosted, else flash: text + data), and its row of the per-part table."""
    size = binary_bytes(platform, binary, tmp)
    parts = parts_by_map(binary, size)
    return size, [platform, name, f"{size:,}", *(f"{sum(parts.get(p, 0) for p in names):,}" for _, names in PART_COLUMNS)]


def check_output(platform: str, binary: Path, model: Model) -> str:
    """Run a shipped binary (under the platform's emulator) and compare with torch: "ok" or what differs."""
    try:
        run = subprocess.run([*PLATFORMS[platform].emulator, str(binary)], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"did not run: {error}"
    if run.returncode != 0:
        return f"exit {run.returncode}: {run.stderr.strip()[-200:]}"
    got, expected = read_deploy_output(run.stdout, str(binary)), [np.load(path) for path in model.outputs]
    if len(got) != len(expected):
        return f"{len(got)} outputs, torch {len(expected)}"
    worst = max((float(np.max(np.abs(np.frombuffer(g.data, e.dtype).reshape(g.sizes).astype(np.float64)
                                      - e.astype(np.float64)))) if e.size else 0.0) for g, e in zip(got, expected))
    return "ok" if worst <= 1e-5 else f"max difference {worst:.2g}"


def build(config: str, platform: str | None, labels: list[str]) -> dict[str, Path]:
    """Build ``labels`` in ``config``'s workspace for ``platform`` (None: the default configuration): outputs."""
    flags = ("--executorch-root", str(TREE), f"--config={config}", f"--platform={platform}") if platform else ()
    built = etsb_build(WORKSPACES[config], labels, starlark_env(), *flags).outputs
    # The evaluator's outputs of an external repository's package (BUILT_LINE names the main one's).
    tests = WORKSPACES[config] / "etsb-out" / "bin" / "external" / "executorch" / "test"
    return {**built, SIZE_TEST: tests / "size_test", ALL_OPS: tests / "size_test_all_ops"}


def size_tests(platform: str, tmp: Path) -> tuple[dict[str, int], list[list[object]], list[list[object]]]:
    """ExecuTorch's size test on ``platform`` with each flag set (and all operators on the host):
    the sizes by config, the size-test table's rows, per-part rows."""
    sizes, parts = {}, []
    for config, flags in ((SIZE_CONFIG, "etsb's size flags"), (EXECUTORCH_CI_CONFIG, "ExecuTorch's CI flags")):
        sizes[config], row = measure(platform, f"size test, no operators, {flags}",
                                     build(config, platform, [SIZE_TEST])[SIZE_TEST], tmp)
        parts.append(row)
    threshold = SIZE_TEST_THRESHOLDS.get(platform)
    rows = [[platform, "none", f"{sizes[SIZE_CONFIG]:,}", f"{sizes[EXECUTORCH_CI_CONFIG]:,}",
             f"{threshold:,}" if threshold else "-"]]
    if platform == HOST:
        everything, row = measure(platform, "size test, all portable operators, ExecuTorch's CI flags",
                                  build(EXECUTORCH_CI_CONFIG, platform, [ALL_OPS])[ALL_OPS], tmp)
        operators = yaml_operators(TREE / "kernels" / "portable" / "functions.yaml")
        parts, rows = parts + [row], rows + [[platform, f"all {operators} portable operators", "-", f"{everything:,}", "-"]]
    return sizes, rows, parts


def shipped(platform: str, models: dict[str, Model], tests: dict[str, int], tmp: Path) -> tuple[list, list, dict, list]:
    """The shipped binaries on ``platform``: their table's rows, per-part rows, binaries (and on the host
    the development ones, "NAME:dev") by model, problems."""
    forms = ("dtype_selective", "op_selective")  # the two links `dtype_selective_build` keeps the smaller of
    built = build(SIZE_CONFIG, platform, [f"//{m}:ship{suffix}" for m in models
                                          for suffix in ("", *(f"_{form}" for form in forms))])
    dev = build(SIZE_CONFIG, None, [f"//{m}:dev" for m in models]) if platform == HOST else {}
    binaries = {f"{m}:dev": dev[f"//{m}:dev"] for m in models if dev}
    threshold, rows, parts, problems = SIZE_TEST_THRESHOLDS.get(platform), [], [], []
    for name, model in models.items():
        binary = binaries[name] = built[f"//{name}:ship"]
        size, part_row = measure(platform, f"{name}, shipped", binary, tmp)
        parts.append(part_row)
        if (verdict := check_output(platform, binary, model)) != "ok":
            problems.append(f"{platform} {name}: {verdict}")
        goal = GOALS.get(platform) if name == "mlp" else None
        note = "" if goal is None else f"<= {goal:,}: met" if size <= goal else f"<= {goal:,}: not met by {size - goal:,}"
        candidates = [binary_bytes(platform, built[f"//{name}:ship_{form}"], tmp) for form in forms]
        rows.append([platform, name, f"{size:,}", " / ".join(f"{c:,}" for c in candidates),
                     f"{size / tests[SIZE_CONFIG]:.2f}x",
                     f"{size / tests[EXECUTORCH_CI_CONFIG]:.2f}x", f"{threshold:,}" if threshold else "-", note,
                     f"{stripped(binaries[f'{name}:dev'], tmp):,}" if dev else "-", verdict])
    return rows, parts, binaries, problems


def with_symbols(binary: Path, tmp: Path) -> Path:
    """The linked binary a shipped (stripped) one was copied from, for callgrind to find the method in: the
    variant beside its folder whose stripped bytes are its (``binary`` itself when none is)."""
    for variant in sorted(binary.parent.parent.glob(f"{binary.name}_*_selective")):
        stripped(variant, tmp)
        if (tmp / f"{variant.name}.stripped").read_bytes() == binary.read_bytes():
            return variant
    return binary


def latency(models: dict[str, Model], binaries: dict[str, Path], runs: int, tmp: Path) -> list[list[object]]:
    """Per model on the host, shipped and development binaries: the median process wall ms (interleaved
    runs) and the instructions of the method's execution, each with its ratio and the goal's verdict."""
    def goal(ratio: float) -> str:
        return (f"met ({ratio:.2f}x)" if ratio <= SLOWDOWN_GOAL
                else f"not met: {ratio:.2f}x, {ratio / SLOWDOWN_GOAL - 1:.0%} over")
    rows = []
    for name, model in models.items():
        commands = {"ship": [str(binaries[name])], "dev": runner_command(binaries[f"{name}:dev"], model, tmp)}
        timed = time_commands(commands, runs)
        counted = {side: instructions_in(command, EXECUTE)
                   for side, command in {**commands, "ship": [str(with_symbols(binaries[name], tmp))]}.items()}
        wall, work = timed["ship"] / timed["dev"], counted["ship"] / counted["dev"]
        rows.append([name, ms_cell(timed["ship"]), ms_cell(timed["dev"]), f"{wall:.2f}x", goal(wall),
                     f"{counted['ship']:,}", f"{counted['dev']:,}", f"{work:.2f}x", goal(work)])
    return rows


def report(tests: list, ships: list, parts: list, timings: list, runs: int) -> str:
    """The results: the size tests, the shipped binaries, both by part, latency on the host."""
    goal = f"goal <= {SLOWDOWN_GOAL}x"
    return "\n".join([
        "## ExecuTorch's size test, built here\n", SIZES,
        markdown(["platform", "operators", "etsb's size flags", "ExecuTorch's CI flags", "CI threshold"], tests),
        "\n## Shipped binaries\n", SHIPPED,
        markdown(["platform", "model", "bytes", "dtype-selective / op-selective", "x size test (same flags)", "x size test (CI flags)", "CI threshold",
                  "goal", "development", "matches torch"], ships),
        "\n## By part\n", PARTS, markdown(["platform", "binary", "total", *(h for h, _ in PART_COLUMNS)], parts),
        *(["\n## Latency on x86-64\n", LATENCY.format(runs=runs, execute=EXECUTE, goal=SLOWDOWN_GOAL),
           markdown(["model", "wall: shipped (ms)", "wall: development (ms)", "shipped / development", goal,
                     "method: shipped (instructions)", "method: development (instructions)", "shipped / development",
                     goal], timings)] if timings else [])])


def main() -> int:
    """Build, run and measure each platform's binaries; time the host's; write the results file."""
    options = parser(__doc__, wait=True, runs=20, runs_help="timed runs of each binary on the host",
                     platforms=(listed, ["host"], f"of {', '.join(PLATFORMS)} (default host)"),
                     models=(listed, None, f"corpus models (default: {', '.join(MODELS)})")).parse_args()
    if not (TREE / "runtime").is_dir():
        raise SystemExit(f"no ExecuTorch tree at {TREE}: set ETSB_EXECUTORCH_TREE")
    platforms, forward = choose("platform", options.platforms, PLATFORMS), {m.name: m for m in corpus_methods()}
    models = {name: forward[name] for name in choose("model", options.models, MODELS)}
    prepare(models)
    tests, ships, parts, timings, problems = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for platform in platforms:
            try:
                sizes, test_rows, test_parts = size_tests(platform, Path(tmp))
                ship_rows, ship_parts, binaries, found = shipped(platform, models, sizes, Path(tmp))
            except BuildFailed as failure:
                problems.append(f"{platform}: {str(failure)[-1500:]}")
                continue
            tests, ships, parts, problems = tests + test_rows, ships + ship_rows, parts + test_parts + ship_parts, \
                problems + found
            if platform == HOST:
                wait("timing the host's binaries", options)
                timings = latency(models, binaries, options.runs, Path(tmp))
    return finish("bench_deploy", report(tests, ships, parts, timings, options.runs), problems)


if __name__ == "__main__":
    sys.exit(main())
