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
from selective_build.__main__ import main

from helpers import ET, cxx
KERNELS = REPO / "tests" / "data" / "kernels"
CXX = cxx("-O1")


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


def build(objects, out: Path, runner: str, flags=(), drop_operator: str | None = None) -> Path:
    """Select the MLP's operators, generate bindings for the test kernels, link a binary.
    ``drop_operator`` removes that operator's rows from the generated table."""
    selection = out / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(MLP)]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "mlp.yaml"), "--op-selection-yaml-path",
                 str(selection), "--output-dir", str(out), "--lib-name", "mlp", *flags]) == 0
    source = out / "register_kernels.cpp"
    if drop_operator:
        source.write_text("\n".join(line for line in source.read_text().splitlines()
                                     if f'Kernel("{drop_operator}"' not in line))
    binary = out / "mlp_bin"
    subprocess.run([*CXX, "-I", str(out), str(source), str(objects["kernels"]), str(objects[runner]),
                    f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)], check=True)
    return binary


def run(binary: Path, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *map(str, argv)], capture_output=True, text=True)


MLP = MODELS_DIR / "mlp/mlp.pte"
MLP_INPUT = MODELS_DIR / "mlp/forward.input_0.npy"


@pytest.mark.parametrize("way, runner, flags", [
    ("static initialiser", "runner", []),
    ("explicit register_mlp_kernels()", "runner_register", ["--manual-registration"]),
    ("kernel table for load_method", "runner_table", ["--manual-registration"]),
])
def test_mlp_runs_with_generated_registration(way, runner, flags, objects, tmp_path):
    binary = build(objects, tmp_path, runner, flags)
    out = tmp_path / "out"
    out.mkdir()
    result = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", out)
    assert result.returncode == 0, result.stderr
    expected = np.load(MODELS_DIR / "mlp/forward.output_0.npy")
    actual = np.load(out / "output_0.npy")
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_a_binary_without_a_kernel_fails_at_load_with_missing_operator(objects, tmp_path):
    """What the build-time coverage check prevents: registering only part of the
    selection gives the runtime's OperatorMissing at load."""
    binary = build(objects, tmp_path, "runner", drop_operator="aten::relu.out")
    result = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path)
    assert result.returncode == 1
    assert "needs kernels this binary lacks" in result.stderr
    # The runner names the operator and the exact key it lacks, readably.
    assert "aten::relu.out  key v1/6;0,1|6;0,1|6;0,1  (Float 2-D contiguous, Float 2-D contiguous, " \
           "Float 2-D contiguous)" in result.stderr


def test_runner_bad_input_is_named_and_writes_nothing(objects, tmp_path):
    binary = build(objects, tmp_path, "runner")
    out = tmp_path / "out"
    out.mkdir()
    good = np.load(MLP_INPUT)
    np.save(tmp_path / "shape.npy", np.zeros((good.shape[0] + 1,) + good.shape[1:], dtype=good.dtype))
    np.save(tmp_path / "dtype.npy", good.astype(np.float64))
    (tmp_path / "garbage.npy").write_bytes(b"not numpy at all")
    truncated = MLP_INPUT.read_bytes()
    (tmp_path / "short.npy").write_bytes(truncated[:-4])
    shape = f"({good.shape[0] + 1}, {', '.join(map(str, good.shape[1:]))})"
    cases = [
        (["--inputs", f"{MLP_INPUT},{MLP_INPUT}"], "error: method 'forward' takes 1 inputs, got 2"),
        (["--inputs", tmp_path / "shape.npy"], f"error: input 0 ({tmp_path}/shape.npy): shape {shape}, the method "
                                              f"expects {tuple(good.shape)}"),
        (["--inputs", tmp_path / "dtype.npy"], f"error: input 0 ({tmp_path}/dtype.npy): dtype Double, the method "
                                              "expects Float"),
        (["--inputs", tmp_path / "garbage.npy"], f"error: input 0 ({tmp_path}/garbage.npy): not a .npy file"),
        (["--inputs", tmp_path / "short.npy"], f"error: input 0 ({tmp_path}/short.npy): holds"),
        (["--inputs", MLP_INPUT, "--method", "backward"], f"error: {MLP}: no method 'backward'"),
        (["--inputs", MLP_INPUT, "--colour", "red"], "error: unknown flag --colour"),
    ]
    for argv, message in cases:
        result = run(binary, "--model", MLP, "--output-dir", out, *argv)
        assert result.returncode == 1, argv
        # Our message is the last line; the runtime may log before it.
        assert result.stderr.splitlines()[-1].startswith(message), (argv, result.stderr)
    assert list(out.iterdir()) == []
