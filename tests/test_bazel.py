"""etsb's rules under real Bazel (Debian's bazel-bootstrap, Bazel 4.2.3, read
through the WORKSPACE file): the MLP example's op- and dtype-selective binaries
and the vendor-over-portable example, built by Bazel from the same BUILD and
.bzl files that etsb's driver reads, run on the corpus inputs and compared with
torch's outputs; and mistakes in a BUILD file failing Bazel's loading at the
BUILD line.

Bazel runs with an output base of its own under pytest's temporary directory,
two jobs at a time and a 1 GB server heap; the server is shut down and the
output base removed when the module ends. scripts/setup.sh installs Bazel: a
machine without it fails these tests rather than skipping them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from helpers import assert_matches_torch, run_model, stripped_size

BAZEL = shutil.which("bazel")
STARTUP = ("--host_jvm_args=-Xmx1g", "--max_idle_secs=600")
# Every command gets the same build options, so none discards the analysis cache.
# No convenience symlinks (bazel-*) in the repository.
BUILD = ("--jobs=2", "--symlink_prefix=/", "--color=no", "--curses=no")
MLP = "mlp"

# label -> the binary under bazel-bin (a dtype-selective binary is the smaller
# of its two candidates, copied by the pick-smaller genrule)
BINARIES = {
    "//examples/mlp:bin": "examples/mlp/bin",
    "//examples/mlp:bin_dtype_selective": "examples/mlp/bin_dtype_selective_smallest/bin_dtype_selective",
    "//examples/vendor_over_portable:bin": "examples/vendor_over_portable/bin",
}


class Bazel:
    """Bazel commands in the repository, on a private output base."""

    def __init__(self, output_base: Path) -> None:
        self.output_base = output_base

    def __call__(self, command: str, *argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([BAZEL, f"--output_base={self.output_base}", *STARTUP, command, *argv],
                              cwd=REPO, capture_output=True, text=True, timeout=1200)


@pytest.fixture(scope="module")
def bazel(tmp_path_factory) -> Bazel:
    assert BAZEL, "no bazel on PATH: scripts/setup.sh installs Debian's bazel-bootstrap"
    runner = Bazel(tmp_path_factory.mktemp("bazel") / "output_base")
    yield runner
    # Removes the output base and stops the server.
    if runner("clean", "--expunge").returncode != 0:
        runner("shutdown")


@pytest.fixture(scope="module")
def bazel_bin(bazel) -> Path:
    """The three example binaries, built once; returns bazel-bin."""
    result = bazel("build", *BUILD, *BINARIES)
    assert result.returncode == 0, result.stderr[-5000:]
    info = bazel("info", *BUILD, "bazel-bin")
    assert info.returncode == 0, info.stderr
    return Path(info.stdout.strip())


@pytest.mark.parametrize("label", sorted(BINARIES))
def test_each_bazel_built_binary_runs_the_model_like_torch(bazel_bin, manifest, label, tmp_path):
    assert set(manifest["models"][MLP]["methods"]) == {"forward"}
    result = run_model(bazel_bin / BINARIES[label], MLP, tmp_path)
    assert result.returncode == 0, result.stderr
    assert_matches_torch(MLP, tmp_path)


def test_the_dtype_selective_binary_is_the_smaller_candidate_and_runs_from_a_copy(bazel_bin, tmp_path):
    """pick-smaller copies the chosen binary one directory down; without link maps
    under Bazel it writes the binary alone. The copy finds libexecutorch.so
    through the absolute run path, so it runs from anywhere on this machine."""
    chosen = bazel_bin / BINARIES["//examples/mlp:bin_dtype_selective"]
    candidates = [bazel_bin / "examples/mlp" / f"bin_dtype_selective_{form}" for form in ("dtype_selective", "op_selective")]
    sizes = [stripped_size(c, tmp_path) for c in candidates]
    assert stripped_size(chosen, tmp_path) == min(sizes)
    assert not Path(str(chosen) + ".map").exists()
    moved = tmp_path / "elsewhere" / "bin"
    moved.parent.mkdir()
    shutil.copy(chosen, moved)
    result = run_model(moved, MLP, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert_matches_torch(MLP, tmp_path / "out")


def test_the_vendor_kernel_serves_relu_under_bazel(bazel_bin, tmp_path):
    binary = bazel_bin / BINARIES["//examples/vendor_over_portable:bin"]
    result = run_model(binary, MLP, tmp_path, "--log")
    assert result.returncode == 0, result.stderr
    assert "vendor::relu_out_float_2d ran" in result.stderr
    symbols = subprocess.run(["nm", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "torch::executor::native::addmm_out" in symbols
    assert "torch::executor::native::relu_out" not in symbols


BAD_PACKAGES = {
    # A misspelt attribute: Bazel's own check of the macro's signature.
    "bad_attribute": """\
load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(
    name = "bin",
    model = "//tests/models:mlp/mlp.pte",
    dtype_selectiv_build = True,
)
""",
    # A model that is not a .pte: the macro's own check (rules/private/checks.bzl).
    "bad_model": """\
load("//rules:executorch.bzl", "et_model_binary")

# not a program
et_model_binary(name = "bin", model = "mlp.onnx")
""",
}


def test_bad_build_files_fail_bazels_loading_at_the_build_line(bazel, tmp_path):
    """The packages live outside the repository, on a second package path root
    (the same server; nothing is written into the workspace)."""
    for package, text in BAD_PACKAGES.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "BUILD").write_text(text)
    result = bazel("build", *BUILD, "--keep_going", f"--package_path=%workspace%:{tmp_path}",
                   *(f"//{package}:bin" for package in BAD_PACKAGES))
    assert result.returncode != 0
    errors = result.stderr
    assert f'File "{tmp_path}/bad_attribute/BUILD", line 3, column 16, in <toplevel>' in errors, errors
    assert "et_model_binary() got unexpected keyword argument: dtype_selectiv_build" in errors, errors
    assert f'File "{tmp_path}/bad_model/BUILD", line 4, column 16, in <toplevel>' in errors, errors
    assert "et_model_binary 'bin': attribute 'model' must name a .pte program, got 'mlp.onnx'" in errors, errors
    assert "Build did NOT complete successfully" in errors
