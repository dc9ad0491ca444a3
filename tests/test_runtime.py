"""Generated registration code through the real ExecuTorch runtime: compile it
with hand-written kernels and the runner, link libexecutorch.so, run a corpus
model, and compare with torch's outputs, for each of the three ways of
registering kernels."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS_DIR, REPO
from selective_build.cli import main

import executorch

ET = Path(executorch.__path__[0])
KERNELS = REPO / "tests" / "data" / "kernels"
CXX = ["g++", "-std=c++17", "-O1", f"-I{ET / 'include'}",
       f"-I{ET / 'include/executorch/runtime/core/portable_type/c10'}", "-DC10_USING_CUSTOM_GENERATED_MACROS"]


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    """The runner and the test kernels, compiled once for every way."""
    out = tmp_path_factory.mktemp("objects")
    built = {}
    for name, source, defines in (("kernels", KERNELS / "mlp_kernels.cpp", []),
                                  ("runner", REPO / "tools/runner/runner.cpp", []),
                                  ("runner_register", REPO / "tools/runner/runner.cpp", ["-DETSB_REGISTER_LIB=mlp"]),
                                  ("runner_table", REPO / "tools/runner/runner.cpp", ["-DETSB_KERNEL_TABLE_LIB=mlp"])):
        built[name] = out / f"{name}.o"
        subprocess.run([*CXX, *defines, "-c", str(source), "-o", str(built[name])], check=True)
    return built


@pytest.mark.parametrize("way, runner, flags", [
    ("static initialiser", "runner", []),
    ("explicit register_mlp_kernels()", "runner_register", ["--manual-registration"]),
    ("kernel table for load_method", "runner_table", ["--manual-registration"]),
])
def test_mlp_runs_with_generated_registration(way, runner, flags, objects, tmp_path):
    selection = tmp_path / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(MODELS_DIR / "mlp/mlp.pte")]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "mlp.yaml"), "--op-selection-yaml-path",
                 str(selection), "--output-dir", str(tmp_path), "--lib-name", "mlp", *flags]) == 0
    binary = tmp_path / "mlp_bin"
    subprocess.run([*CXX, "-I", str(tmp_path), str(tmp_path / "register_kernels.cpp"), str(objects["kernels"]),
                    str(objects[runner]), f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}",
                    "-o", str(binary)], check=True)
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run([binary, "--model", MODELS_DIR / "mlp/mlp.pte", "--inputs",
                             MODELS_DIR / "mlp/forward.input_0.npy", "--output-dir", out],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected = np.load(MODELS_DIR / "mlp/forward.output_0.npy")
    actual = np.load(out / "output_0.npy")
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_a_binary_without_a_kernel_fails_at_load_with_missing_operator(objects, tmp_path):
    """What the build-time coverage check prevents: registering only part of the
    selection gives the runtime's OperatorMissing at load."""
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "mlp.yaml"), "--output-dir", str(tmp_path),
                 "--lib-name", "mlp"]) == 0
    source = (tmp_path / "register_kernels.cpp").read_text()
    partial = "\n".join(line for line in source.splitlines() if 'Kernel("aten::relu.out"' not in line)
    (tmp_path / "register_kernels.cpp").write_text(partial)
    binary = tmp_path / "partial_bin"
    subprocess.run([*CXX, "-I", str(tmp_path), str(tmp_path / "register_kernels.cpp"), str(objects["kernels"]),
                    str(objects["runner"]), f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}",
                    "-o", str(binary)], check=True)
    result = subprocess.run([binary, "--model", MODELS_DIR / "mlp/mlp.pte", "--inputs",
                             MODELS_DIR / "mlp/forward.input_0.npy", "--output-dir", tmp_path],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert "Missing operator" in result.stderr and "aten::relu.out" in result.stderr
    assert "needs kernels this binary lacks" in result.stderr
