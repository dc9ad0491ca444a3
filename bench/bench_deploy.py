"""Deployable binaries: etsb's size configuration against ExecuTorch's size test, in one run.

    .venv/bin/python bench/bench_deploy.py [--platforms host,aarch64-linux,cortex-m55] [--models mlp,cnn]
                                           (a few minutes; writes bench/results/bench_deploy.md)

For each platform, in one workspace: ExecuTorch's own size test
(`@executorch//test:size_test`: the runtime, a file data loader and a main,
no operators) and each corpus model as a shipped binary (`et_model_binary`
with `runtime = "static"`, `embed_model = True`, its inputs embedded,
`dtype_selective_build`), both built by `etsb build --config size
--platform P` from the ExecuTorch tree; on the host also the development
binary of each model (default configuration, wheel runtime, .npy runner) for
contrast. Each shipped binary is run (directly, or under the platform's
emulator) and its printed outputs checked against torch's.

Sizes: stripped file bytes for hosted platforms, flash (text + data) for bare
metal, against ExecuTorch's CI thresholds for its size test (52,168 bytes on
x86-64 GCC, 115,868 on bare-metal Arm GCC) and against the size test built
here with the same flags. Goals (issue 29): the MLP <= 48 KB on x86-64 and
<= 100 KB of flash on a Cortex-M.
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

from lib.cli import choose, parser
from lib.env import MODELS_DIR, REPO, starlark_env
from lib.processes import BuildFailed, etsb_build
from lib.results import finish, table
from lib.sizes import stripped
from lib.workspace import new_workspace, write_if_changed

from selective_build.driver.platforms import PLATFORMS
from selective_build.readers.deploy_output import read_deploy_output

MODELS = ("mlp", "cnn", "attention", "embedding", "mixed_dtypes")
# ExecuTorch's CI thresholds for its size test (test/build_size_test.sh and its CI jobs), in bytes.
SIZE_TEST_THRESHOLDS = {"host": 52_168, "cortex-m55": 115_868}
GOALS = {"host": 48 * 1024, "cortex-m55": 100 * 1024}
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE") or REPO.parent / "shared" / "third_party" / "executorch")
WORKSPACE = REPO / "etsb-out" / "bench" / "deploy"


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


def prepare(models: list[str]) -> Path:
    """The bench's workspace: etsb's parts and one package per model."""
    new_workspace(WORKSPACE)
    for model in models:
        package = WORKSPACE / model
        package.mkdir(exist_ok=True)
        for path in (MODELS_DIR / model).iterdir():
            if not (package / path.name).exists():
                shutil.copy2(path, package / path.name)
        write_if_changed(package / "BUILD", package_build(model))
    return WORKSPACE


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


def bench_platform(platform: str, models: list[str], tmp: Path) -> tuple[list[list[object]], list[str]]:
    """The rows of one platform (size test first), and its problems."""
    env = starlark_env()
    flags = ("--executorch-root", str(TREE), "--config=size", f"--platform={platform}")
    labels = ["@executorch//test:size_test", *(f"//{m}:ship" for m in models)]
    try:
        built = etsb_build(WORKSPACE, labels, env, *flags).outputs
    except BuildFailed as failure:
        return [], [f"{platform}: {str(failure)[-1500:]}"]
    # The evaluator's outputs of an external repository's package (BUILT_LINE names the main one's).
    size_test = size_of(platform, WORKSPACE / "etsb-out" / "bin" / "external" / "executorch" / "test" / "size_test",
                        tmp)
    threshold = SIZE_TEST_THRESHOLDS.get(platform)
    rows: list[list[object]] = [[platform, "ExecuTorch size test (no operators)", f"{size_test:,}", "1.00x",
                                 f"{threshold:,}" if threshold else "-", "", "-", "-"]]
    problems = []
    dev = {}
    if platform == "host":
        dev = etsb_build(WORKSPACE, [f"//{m}:dev" for m in models], env).outputs
    for model in models:
        binary = built[f"//{model}:ship"]
        size = size_of(platform, binary, tmp)
        verdict = check_output(platform, binary, model)
        if verdict != "ok":
            problems.append(f"{platform} {model}: {verdict}")
        goal = GOALS.get(platform) if model == "mlp" else None
        note = "" if goal is None else (f"<= {goal:,}: met" if size <= goal else f"<= {goal:,}: not met")
        development = f"{stripped(dev[f'//{model}:dev'], tmp):,}" if dev else "-"
        rows.append([platform, f"{model}, shipped", f"{size:,}", f"{size / size_test:.2f}x",
                     f"{threshold:,}" if threshold else "-", note, development, verdict])
    return rows, problems


def main() -> int:
    """Build, run and measure each platform's binaries; write the results file."""
    options = _options()
    started = time.perf_counter()
    if not (TREE / "runtime").is_dir():
        raise SystemExit(f"no ExecuTorch tree at {TREE}: set ETSB_EXECUTORCH_TREE")
    platforms = choose("platform", options.platforms, PLATFORMS)
    models = choose("model", options.models, MODELS)
    prepare(models)
    rows, problems = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for platform in platforms:
            platform_rows, platform_problems = bench_platform(platform, models, Path(tmp))
            rows += platform_rows
            problems += platform_problems
    text = ("Sizes in bytes: stripped file (hosted platforms), flash = text + data (bare metal). 'x size test' "
            "is against ExecuTorch's size test built here with the same flags; 'CI threshold' is ExecuTorch's "
            "own figure for that test; 'development' is the same model's binary in the default configuration "
            "(wheel runtime, .npy runner, libexecutorch.so beside it, not counted).\n\n"
            + table(["platform", "binary", "size", "x size test", "CI threshold", "goal", "development",
                     "matches torch"], rows))
    return finish("bench_deploy", text, started, problems)


def _options():
    """The command line: which platforms and models."""
    cli = parser(__doc__)
    cli.add_argument("--platforms", type=lambda text: text.split(","), default=["host"],
                     help=f"comma-separated platforms ({', '.join(PLATFORMS)}; default host)")
    cli.add_argument("--models", type=lambda text: text.split(","), default=None,
                     help=f"comma-separated corpus models (default: {', '.join(MODELS)})")
    return cli.parse_args()


if __name__ == "__main__":
    sys.exit(main())
