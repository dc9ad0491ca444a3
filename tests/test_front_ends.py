"""What every front end must do alike, checked on each: etsb's own driver,
real Bazel (Debian's 4.2.3, WORKSPACE) and CMake (rules/etsb.cmake) build the
MLP example's op-selective and dtype-selective binaries and the
vendor-over-portable one from the same rules; each binary runs the model like
torch; nothing in a binary's run path is absolute, and the dtype-selective
binary's directory, holding the runtime too, runs wherever it is copied; the
dtype-selective binary is the smaller of its two candidates; the vendor kernel
serves relu while the portable fallback serves the rest; and a second build
runs nothing. What only one front end does is tested in
test_examples.py / test_build_driver.py, test_bazel.py and test_cmake.py."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from front_end_helpers import FrontEnd
from helpers import assert_matches_torch, run_model, stripped_size, symbols

pytestmark = pytest.mark.build

MLP = "mlp"
KINDS = ("op_selective", "dtype_selective", "vendor")


@pytest.fixture(params=["driver", "bazel", "cmake"])
def front_end(request) -> FrontEnd:
    """The example binaries built by one front end (each built once per session, see conftest.py)."""
    return request.getfixturevalue(f"{request.param}_examples")


@pytest.mark.parametrize("kind", KINDS)
def test_each_binary_runs_the_model_like_torch(front_end, kind, tmp_path):
    result = run_model(front_end.binary(kind), MLP, tmp_path)
    assert result.returncode == 0, result.stderr
    assert_matches_torch(MLP, tmp_path)


@pytest.mark.parametrize("kind", KINDS)
def test_run_paths_are_relative(front_end, kind):
    """Relative to the binary ($ORIGIN) only: the binary is the same in any
    checkout, and a build's actions can be cached and run on other machines."""
    dynamic = subprocess.run(["readelf", "-d", str(front_end.binary(kind))], capture_output=True, text=True,
                             check=True).stdout
    (run_path,) = [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "RUNPATH" in line]
    assert all(entry.startswith("$ORIGIN") for entry in run_path.split(":")), run_path


def test_the_dtype_selective_binarys_directory_runs_anywhere(front_end, tmp_path):
    binary = front_end.binary("dtype_selective")
    assert (binary.parent / "libexecutorch.so").is_file()
    moved = tmp_path / "elsewhere"
    shutil.copytree(binary.parent, moved)
    result = run_model(moved / binary.name, MLP, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    assert_matches_torch(MLP, tmp_path / "out")


def test_the_dtype_selective_binary_is_the_smaller_candidate(front_end, tmp_path):
    chosen = front_end.binary("dtype_selective")
    sizes = [stripped_size(candidate, tmp_path) for candidate in front_end.candidates()]
    assert stripped_size(chosen, tmp_path) == min(sizes)
    assert Path(f"{chosen}.map").exists() == front_end.link_maps


def test_the_vendor_kernel_serves_relu_and_the_portable_fallback_the_rest(front_end, tmp_path):
    binary = front_end.binary("vendor")
    result = run_model(binary, MLP, tmp_path, "--log")
    assert result.returncode == 0, result.stderr
    assert "vendor::relu_out_float_2d ran" in result.stderr
    assert_matches_torch(MLP, tmp_path)
    table = symbols(binary)
    assert "torch::executor::native::addmm_out" in table  # from the portable fallback
    assert "vendor::native::relu_out_float_2d" in table
    assert "torch::executor::native::relu_out" not in table


def test_the_op_selective_binary_holds_only_the_models_kernels(front_end):
    table = symbols(front_end.binary("op_selective"))
    for kernel in ("addmm_out", "permute_copy_out", "relu_out"):
        assert f"torch::executor::native::{kernel}(" in table, kernel
    assert "torch::executor::native::convolution_out" not in table


def test_a_second_build_runs_nothing(front_end):
    assert front_end.rebuild_ran_nothing()
