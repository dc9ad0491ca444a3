"""Which kernel serves which kernel key, observed at run time.

The mixed_dtypes corpus model calls aten::add.out twice: once on Float tensors
(key ``v1/6;0,1|6;0,1|6;0,1|6;0,1``) and once on Long tensors with a 0-dim
Long (``v1/4;0,1|4;|4;0,1|4;0,1``). tests/data/kernels/mixed_dtypes.yaml
gives add.out a Float-specialised kernel and a default one; both are correct
and each reports its calls on stderr. Built with the generated registration
code and run through libexecutorch.so, the Float add must reach the
specialised kernel and the Long add the default; with the specialised entry
removed, the default must serve both. Every run's outputs must equal torch's.
"""

from __future__ import annotations

import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import MODELS_DIR, REPO
from selective_build.__main__ import main

from helpers import ET, cxx

pytestmark = pytest.mark.build
KERNELS = REPO / "tests" / "data" / "kernels"
KERNEL_YAML = KERNELS / "mixed_dtypes.yaml"
CXX = cxx("-O1")
MODEL = MODELS_DIR / "mixed_dtypes"
PTE = MODEL / "mixed_dtypes.pte"
INPUTS = ",".join(str(MODEL / f"forward.input_{i}.npy") for i in range(2))
FLOAT_KEY = "v1/6;0,1|6;0,1|6;0,1|6;0,1"
LONG_KEY = "v1/4;0,1|4;|4;0,1|4;0,1"
TRACE = "etsb-trace: "


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    """The test kernels and the runner, compiled once."""
    out = tmp_path_factory.mktemp("objects")
    built = {}
    for name, source in (("kernels", KERNELS / "mixed_dtypes.cpp"), ("runner", REPO / "tools/runner/runner.cpp")):
        built[name] = out / f"{name}.o"
        subprocess.run([*CXX, "-c", str(source), "-o", str(built[name])], check=True)
    return built


@pytest.fixture(scope="module")
def selection(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("selection") / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(path), "--model_file_path", str(PTE)]) == 0
    return path


def without_specialised_add(path: Path) -> Path:
    """A copy of the kernel yaml whose add.out keeps only its default kernel."""
    entries = yaml.safe_load(KERNEL_YAML.read_text())
    for entry in entries:
        if entry.get("op") == "add.out":
            entry["kernels"] = [k for k in entry["kernels"] if k["arg_meta"] is None]
            del entry["type_alias"], entry["dim_order_alias"]
    path.write_text(yaml.safe_dump(entries, sort_keys=False))
    return path


def build(objects, selection: Path, kernel_yaml: Path, out: Path) -> tuple[Path, str]:
    """Generate bindings for ``kernel_yaml``, link the model binary; (binary, registration source)."""
    assert main(["gen-bindings", "--functions-yaml-path", str(kernel_yaml), "--op-selection-yaml-path",
                 str(selection), "--output-dir", str(out), "--lib-name", "mixed_dtypes"]) == 0
    source = out / "register_kernels.cpp"
    binary = out / "mixed_dtypes_bin"
    subprocess.run([*CXX, "-I", str(out), str(source), str(objects["kernels"]), str(objects["runner"]),
                    f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)], check=True)
    return binary, source.read_text()


def run_model(binary: Path, out: Path) -> Counter:
    """Run the model, check every output against torch's, and count the kernels' trace lines."""
    out.mkdir()
    result = subprocess.run([binary, "--model", PTE, "--inputs", INPUTS, "--output-dir", out],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    for i in range(4):
        expected = np.load(MODEL / f"forward.output_{i}.npy")
        actual = np.load(out / f"output_{i}.npy")
        assert actual.dtype == expected.dtype and actual.shape == expected.shape, i
        np.testing.assert_array_equal(actual, expected, err_msg=f"output {i}")
    return Counter(line[len(TRACE):] for line in result.stderr.splitlines() if line.startswith(TRACE))


def table_rows(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if line.strip().startswith('Kernel("aten::add.out"')]


def test_float_add_reaches_the_specialised_kernel_and_long_add_the_default(objects, selection, tmp_path):
    binary, source = build(objects, selection, KERNEL_YAML, tmp_path / "gen")
    # The table: the specialised kernel under the Float key, the default without a key.
    rows = table_rows(source)
    assert len(rows) == 2
    assert f'"{FLOAT_KEY}"' in rows[0] and "add_out_float" in rows[0]
    assert rows[1].count('"') == 2 and "add_out)" in rows[1]
    traces = run_model(binary, tmp_path / "out")
    assert traces == Counter({"add_out_float Float": 1, "add_out Long": 1})


def test_without_the_specialised_kernel_the_default_serves_both_dtypes(objects, selection, tmp_path):
    binary, source = build(objects, selection, without_specialised_add(tmp_path / "default_only.yaml"),
                           tmp_path / "gen")
    assert "add_out_float" not in source
    assert len(table_rows(source)) == 1
    traces = run_model(binary, tmp_path / "out")
    assert traces == Counter({"add_out Float": 1, "add_out Long": 1})


def test_each_execution_calls_the_chosen_kernels_once(objects, selection, tmp_path):
    """The traces count calls, not registrations: three executions, three calls each."""
    binary, _ = build(objects, selection, KERNEL_YAML, tmp_path / "gen")
    (tmp_path / "out").mkdir()
    result = subprocess.run([binary, "--model", PTE, "--inputs", INPUTS, "--output-dir", tmp_path / "out",
                             "--iterations", "3"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    traces = Counter(line[len(TRACE):] for line in result.stderr.splitlines() if line.startswith(TRACE))
    assert traces == Counter({"add_out_float Float": 3, "add_out Long": 3})


def test_only_the_specialised_kernel_leaves_the_long_key_uncovered(selection, tmp_path, capsys):
    """Without a default, the Long add has no kernel: a build-time error naming its key."""
    entries = yaml.safe_load(KERNEL_YAML.read_text())
    for entry in entries:
        if entry.get("op") == "add.out":
            entry["kernels"] = [k for k in entry["kernels"] if k["arg_meta"] is not None]
    only = tmp_path / "specialised_only.yaml"
    only.write_text(yaml.safe_dump(entries, sort_keys=False))
    assert main(["gen-bindings", "--functions-yaml-path", str(only), "--op-selection-yaml-path", str(selection),
                 "--output-dir", str(tmp_path / "gen"), "--lib-name", "mixed_dtypes"]) == 2
    error = capsys.readouterr().err
    assert f"aten::add.out: no kernel for key {LONG_KEY}" in error
    assert FLOAT_KEY not in error
    assert not (tmp_path / "gen" / "register_kernels.cpp").exists()
