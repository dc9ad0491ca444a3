"""What the build driver's tests share: a workspace with a package `m` (the
MLP model and hand-written test kernels), etsb run in it, scratch packages,
the steps ninja ran, where a build put its outputs, and running the MLP binary."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path

from conftest import MODELS_DIR
from helpers import TEST_KERNELS as KERNELS
from helpers import assert_matches_torch, new_workspace, run_model
from helpers import etsb as run_etsb

MLP = MODELS_DIR / "mlp"


def etsb(workspace: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run etsb in ``workspace`` (or ``cwd``)."""
    return run_etsb(*argv, cwd=cwd or workspace)


def make_workspace(root: Path) -> Path:
    """A workspace with etsb's rules, tools and runtime, and a package `m`
    holding the MLP model and hand-written test kernels (quick to compile)."""
    new_workspace(root)
    package = root / "m"
    package.mkdir()
    shutil.copy(KERNELS / "mlp.yaml", package / "kernels.yaml")
    shutil.copy(KERNELS / "mlp_kernels.cpp", package / "kernels.cpp")
    shutil.copy(MLP / "mlp.pte", package / "m.pte")
    (package / "BUILD").write_text(MODEL_BUILD)
    return root


MODEL_BUILD = """\
load("//rules:executorch.bzl", "et_kernel_library", "et_model_binary")

et_kernel_library(name = "kernels", srcs = ["kernels.cpp"])

et_model_binary(
    name = "bin",
    model = "m.pte",
    functions_yaml_target = "kernels.yaml",
    kernel_deps = [":kernels"],
)
"""


@contextlib.contextmanager
def scratch_package(path: Path):
    """A package directory for one test, removed afterwards (the workspace is shared)."""
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(path)


def steps(output: str) -> list[str]:
    """The descriptions of the actions ninja ran."""
    return [line.split("] ", 1)[1] for line in output.splitlines() if line.startswith("[")]


def run_mlp(binary: Path, out: Path) -> None:
    """Run an MLP binary into ``out`` and compare its outputs with torch's."""
    result = run_model(binary, "mlp", out)
    assert result.returncode == 0, result.stderr
    assert_matches_torch("mlp", out)


def built_outputs(stdout: str) -> dict[str, str]:
    """What a build's last lines name: each binary's label -> its path,
    relative to the workspace root (``//m:bin: etsb-out/host-default/bin/m/bin``,
    a shipped binary's followed by its size: `` (54,088 bytes stripped; ...)``)."""
    found = dict(line.split(": ", 1) for line in stdout.splitlines() if line.startswith(("//", "@")) and ": " in line)
    return {label: path.split(" (", 1)[0] for label, path in found.items()}


def output_of(root: Path, label: str, *flags: str) -> Path:
    """The first file ``etsb query --output outputs LABEL`` names with ``flags``
    (--platform, --config...) in the workspace ``root``: where that build puts it."""
    result = run_etsb("query", "--output", "outputs", *flags, label, cwd=root)
    assert result.returncode == 0, result.stderr
    return root / result.stdout.splitlines()[0].split(": ", 1)[1]
