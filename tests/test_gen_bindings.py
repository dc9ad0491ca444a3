"""`etsb gen-bindings`: generation from ExecuTorch's own inputs, compiled
against the wheel's headers, and the coverage check at the command line."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, PORTABLE_CUSTOM_OPERATORS, PORTABLE_OPERATORS
from helpers import ET, cxx
from selective_build.__main__ import main

PORTABLE = ET / "kernels/portable/functions.yaml"
CUSTOM = ET / "kernels/portable/custom_ops.yaml"


def generate(out: Path, *argv) -> int:
    return main(["gen-bindings", "--functions-yaml-path", str(PORTABLE), "--output-dir", str(out), *map(str, argv)])


@pytest.mark.build
def test_all_portable_kernels_generate_and_compile(tmp_path):
    assert generate(tmp_path, "--custom-ops-yaml-path", CUSTOM, "--lib-name", "portable") == 0
    source = (tmp_path / "register_kernels.cpp").read_text()
    assert source.count("\nvoid wrap") == PORTABLE_OPERATORS + PORTABLE_CUSTOM_OPERATORS
    (tmp_path / "headers.cpp").write_text('#include "Functions.h"\n')
    for name in ("register_kernels.cpp", "headers.cpp"):
        subprocess.run([*cxx("-O0"), "-c", name, "-o", name + ".o"], cwd=tmp_path, check=True)


def test_executorch_selection_is_accepted_and_output_is_deterministic(tmp_path, export_python):
    selection = tmp_path / "selected_operators.yaml"
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_oplist", "--output_path", selection,
                    "--model_file_path", MODELS_DIR / "mlp" / "mlp.pte"], check=True, capture_output=True)
    assert generate(tmp_path / "a", "--op-selection-yaml-path", selection) == 0
    assert generate(tmp_path / "b", "--op-selection-yaml-path", selection) == 0
    source = (tmp_path / "a" / "register_kernels.cpp").read_text()
    assert source.count("\nvoid wrap") == 3
    for name in ("register_kernels.cpp", "NativeFunctions.h", "CustomOpsNativeFunctions.h", "Functions.h"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_coverage_gap_fails_with_no_output(tmp_path, capsys):
    vendor = tmp_path / "vendor.yaml"
    vendor.write_text("- op: relu.out\n  kernels:\n    - arg_meta: null\n      kernel_name: v::relu_out\n")
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path",
                 str(MODELS_DIR / "mlp" / "mlp.pte")]) == 0
    status = main(["gen-bindings", "--functions-yaml-path", str(vendor), "--op-selection-yaml-path", str(selection),
                   "--output-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert status == 2
    mlp = MODELS_DIR / "mlp" / "mlp.pte"
    lines = err.splitlines()
    assert [line.partition("); ")[0] for line in lines] == [
        f"etsb: error: aten::addmm.out: no kernel yaml entry for this operator (needed by {mlp}; not in {vendor}",
        f"etsb: error: aten::permute_copy.out: no kernel yaml entry for this operator (needed by {mlp}; "
        f"not in {vendor}",
    ]
    # Each says where the kernel is (tests/test_coverage_hints.py has the cases).
    assert all(line.partition("); ")[2].startswith("etsb's portable kernels provide it: ") for line in lines)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("lib", ["1lib", "my-lib"])
def test_lib_name_must_be_a_c_identifier(lib, tmp_path, capsys):
    assert generate(tmp_path, "--lib-name", lib) == 2
    assert f"--lib-name: error: --lib-name '{lib}' is not a C identifier" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["gen-bindings", "validate-yaml"])
def test_unsupported_argument_type_is_located(tmp_path, capsys, command):
    """A type no EValue carries is refused where the yaml is read, by every command alike."""
    custom = tmp_path / "custom.yaml"
    custom.write_text("- func: my::op.out(Tensor self, Scalar[] values, *, Tensor(a!) out) -> Tensor(a!)\n"
                      "  kernels:\n    - arg_meta: null\n      kernel_name: my::op_out\n")
    argv = ([command, "--functions-yaml-path", str(custom), "--output-dir", str(tmp_path / "o")]
            if command == "gen-bindings" else [command, str(custom)])
    assert main(argv) == 2
    assert capsys.readouterr().err.startswith(f"{custom}:1:9: error: my::op.out: argument 'values' has type "
                                              "Scalar[]: a list of Scalar is not supported")
    assert not (tmp_path / "o").exists()
