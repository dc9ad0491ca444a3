"""Int8 programs lowered by ExecuTorch's Cortex-M flow (tests/models/cortex_m)
under Bazel 4 (Debian's 4.2.3, WORKSPACE), from a project of their own whose
BUILD files have two lines: etsb_repositories(executorch_root = ...) gives
`@executorch`, and `@cmsis_nn` is the CMSIS-NN beside it, so the catalogue
takes ExecuTorch's Cortex-M kernels (`@executorch//backends/cortex_m:kernels`)
for the programs' `cortex_m::` operators, as test_cortex_m_kernels.py's driver
builds do. Programs lowered for CMSIS-NN's plain C run on the host, one
lowered for Helium on the Cortex-M55 (`--config=size --config=cortex_m55`)
and one lowered for the DSP extension on the Cortex-M33 (`--config=cortex_m33`),
each within one quantization step of its reference; only the kernels called
and the CMSIS-NN functions they reach are in a binary (`nm`: Bazel writes no
link map). Then `--repo_env=CMSIS_NN_ROOT` naming no CMSIS-NN tree: the
catalogue leaves the library out, and naming it fails saying which path."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, TREE
from front_end_helpers import BAZEL_DISK_CACHE
from helpers import BAZEL_BUILD, BAZEL_STARTUP, deploy_outputs, symbols
from selective_build.driver.platforms import PLATFORMS
from test_cortex_m_kernels import CORPUS, within_one_step

pytestmark = [pytest.mark.build, pytest.mark.tree]

WORKSPACE = """workspace(name = "cortex_m_user")

local_repository(
    name = "etsb",
    path = "{etsb}",
)

load("@etsb//bazel:repositories.bzl", "etsb_repositories")

etsb_repositories(executorch_root = "{tree}")
"""
BAZELRC = f"build --nosandbox_debug\nbuild --compilation_mode=opt\nimport {REPO}/bazel/etsb.bazelrc\n"
LOAD = 'load("@etsb//rules:executorch.bzl", "et_model_binary")\n\n'
TWO_LINES = LOAD + 'et_model_binary(name = "{name}", model = "{name}.pte")\n'
EMBEDDED = LOAD + ('et_model_binary(\n    name = "{name}",\n    model = "{name}.pte",\n    runtime = "static",\n'
                   '    embed_model = True,\n    inputs = ["forward.input_0.npy"],\n)\n')
NAMED = LOAD + ('et_model_binary(\n    name = "{name}",\n    model = "{name}.pte",\n'
                '    custom_ops_yaml_target = "@executorch//backends/cortex_m:operators.yaml",\n'
                '    kernel_deps = ["@executorch//backends/cortex_m:kernels", "@executorch//kernels/portable:kernels"],\n)\n')
HOST_PROGRAMS = ("ds_cnn", "fc_autoencoder")
LIBRARY = "@executorch//backends/cortex_m:kernels"


class Project:
    """A Bazel project of its own in ``root`` on a private output base."""

    def __init__(self, root: Path) -> None:
        self.root = root / "project"
        self.output_base = root / "output_base"
        self.root.mkdir(parents=True)
        (self.root / "WORKSPACE").write_text(WORKSPACE.format(etsb=REPO, tree=TREE))
        (self.root / ".bazelrc").write_text(BAZELRC)
        (self.root / "BUILD").write_text("")

    def package(self, isa: str, name: str, build: str, into: str) -> None:
        shutil.copytree(CORPUS / isa / name, self.root / into)
        (self.root / into / "BUILD").write_text(build.format(name=name))

    def bazel(self, command: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([shutil.which("bazel"), f"--output_base={self.output_base}", *BAZEL_STARTUP,
                               command, *argv], cwd=self.root, capture_output=True, text=True, timeout=1500)

    def bin(self, *flags: str) -> Path:
        info = self.bazel("info", *BAZEL_BUILD, *flags, "bazel-bin")
        assert info.returncode == 0, info.stderr[-3000:]
        return Path(info.stdout.strip())


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The host's programs (CMSIS-NN's plain C), the Cortex-M55's (Helium) and the Cortex-M33's (DSP), built."""
    assert shutil.which("bazel"), "no bazel on PATH: scripts/setup.sh installs Debian's bazel-bootstrap"
    built = Project(tmp_path_factory.mktemp("bazel_cortex_m"))
    for name in HOST_PROGRAMS:
        built.package("scalar", name, TWO_LINES, name)
        built.package("scalar", name, NAMED, f"{name}_named")
    built.package("mve", "ds_cnn", EMBEDDED, "m55")
    built.package("dsp", "ds_cnn", EMBEDDED, "m33")
    try:
        # Bazel's actions cached across runs in the checkout's etsb-out (front_end_helpers.BAZEL_DISK_CACHE):
        # only the first run compiles the runtime and CMSIS-NN.
        host = built.bazel("build", *BAZEL_BUILD, BAZEL_DISK_CACHE, *(f"//{name}:{name}" for name in HOST_PROGRAMS))
        assert host.returncode == 0, host.stderr[-5000:]
        board = built.bazel("build", *BAZEL_BUILD, BAZEL_DISK_CACHE, "--config=size", "--config=cortex_m55",
                            "//m55:ds_cnn")
        assert board.returncode == 0, board.stderr[-5000:]
        dsp = built.bazel("build", *BAZEL_BUILD, BAZEL_DISK_CACHE, "--config=size", "--config=cortex_m33",
                          "//m33:ds_cnn")
        assert dsp.returncode == 0, dsp.stderr[-5000:]
        built.printed = host.stderr
        yield built
    finally:
        if built.bazel("clean", "--expunge").returncode != 0:
            built.bazel("shutdown")


@pytest.mark.parametrize("name", HOST_PROGRAMS)
def test_each_host_program_builds_from_two_lines_and_matches_its_reference(project, name, tmp_path):
    source = project.root / name
    result = subprocess.run([str(project.bin() / name / name), "--model", str(source / f"{name}.pte"),
                             "--inputs", str(source / "forward.input_0.npy"), "--output-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    within_one_step(f"scalar/{name}", np.load(tmp_path / "output_0.npy"))


def test_the_build_names_the_library_each_model_chose(project):
    lines = [line for line in project.printed.splitlines() if f"etsb: {LIBRARY} serves" in line]
    assert len(lines) == len(HOST_PROGRAMS), project.printed[-3000:]
    assert all(line.endswith("(chosen from the model)") and "cortex_m::quantized_linear.out" in line
               for line in lines)


def test_only_the_kernels_called_and_the_cmsis_nn_functions_they_reach_are_linked(project):
    table = symbols(project.bin() / "fc_autoencoder" / "fc_autoencoder")
    assert "quantized_linear_out" in table and "arm_fully_connected_s8" in table
    # The autoencoder calls no convolution, pooling or addition: neither their kernels nor CMSIS-NN's.
    for absent in ("quantized_conv2d_out", "quantized_add_out", "quantized_avg_pool2d_out",
                   "arm_convolve_s8", "arm_avgpool_s8", "arm_elementwise_add_s8", "arm_softmax_s8"):
        assert absent not in table, absent
    assert "arm_convolve_s8" in symbols(project.bin() / "ds_cnn" / "ds_cnn")


@pytest.mark.parametrize("platform, isa, package", [("cortex-m55", "mve", "m55"), ("cortex-m33", "dsp", "m33")])
def test_each_board_runs_the_program_lowered_for_its_core(project, platform, isa, package):
    binary = project.bin("--config=size", "--config=" + platform.replace("-", "_")) / package / "ds_cnn"
    result = subprocess.run([*PLATFORMS[platform].emulator, str(binary)], capture_output=True, text=True,
                            timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    within_one_step(f"{isa}/ds_cnn", deploy_outputs(result.stdout)[0])


# Last: another CMSIS_NN_ROOT fetches the repositories again.

def test_a_cmsis_nn_root_naming_no_tree_leaves_the_library_out_and_naming_it_fails(project, tmp_path):
    nowhere = f"--repo_env=CMSIS_NN_ROOT={tmp_path / 'nowhere'}"
    two_lines = project.bazel("build", *BAZEL_BUILD, nowhere, "//fc_autoencoder:fc_autoencoder")
    assert two_lines.returncode != 0
    assert "cortex_m::quantized_linear.out: no kernel yaml entry for this operator" in two_lines.stderr, \
        two_lines.stderr[-3000:]
    assert "@executorch//backends/cortex_m:kernels, taken by itself" in two_lines.stderr
    named = project.bazel("build", *BAZEL_BUILD, nowhere, "//fc_autoencoder_named:fc_autoencoder")
    assert named.returncode != 0
    assert (f"@cmsis_nn: the CMSIS-NN source tree given ({tmp_path / 'nowhere'}, from $CMSIS_NN_ROOT) has no "
            "Include/arm_nnfunctions.h") in named.stderr, named.stderr[-3000:]
