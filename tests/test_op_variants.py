"""`etsb gen-op-variants`: the dtype predicate, and that it makes the compiler
drop the switch cases a selection does not use."""

from __future__ import annotations

import subprocess
from pathlib import Path

import executorch

from conftest import MODELS_DIR, REPO
from selective_build.cli import main

ET = Path(executorch.__path__[0])
CXX = ["g++", "-std=c++17", "-O2", f"-I{ET / 'include'}",
       f"-I{ET / 'include/executorch/runtime/core/portable_type/c10'}", "-DC10_USING_CUSTOM_GENERATED_MACROS"]


def text_size(obj: Path) -> int:
    out = subprocess.run(["size", str(obj)], check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1].split()[0])


def test_predicate_lists_each_operators_dtypes(tmp_path):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path",
                 str(MODELS_DIR / "mixed_dtypes/mixed_dtypes.pte"), "--root_ops", "aten::mm.out"]) == 0
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--output-dir", str(tmp_path)]) == 0
    header = (tmp_path / "selected_op_variants.h").read_text()
    # sum(dtype=torch.float64) keeps Double through kernel_metadata; mm.out (any key) is not restricted;
    # a namespaced custom operator switches under its bare name.
    assert ('if (same_name(operator_name, "sum.IntList_out")) {\n'
            "    return scalar_type == ScalarType::Float || scalar_type == ScalarType::Double;") in header
    assert 'if (same_name(operator_name, "mm.out")) {\n    return true;' in header
    assert 'if (same_name(operator_name, "_to_dim_order_copy.out")) {\n' in header
    # Operators outside the selection keep no dtype (their kernels are not linked).
    assert "  return false;  // not selected" in header


def test_a_selection_of_every_operator_keeps_every_dtype(tmp_path):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--include_all_operators"]) == 0
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--output-dir", str(tmp_path)]) == 0
    assert "  return true;  // every operator is selected" in (tmp_path / "selected_op_variants.h").read_text()


def test_unselected_dtype_cases_compile_away(tmp_path):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--ops_dict", '{"aten::neg.out": ["Float"]}']) == 0
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--output-dir", str(tmp_path)]) == 0
    probe = REPO / "tests/data/kernels/switch_probe.cpp"
    subprocess.run([*CXX, "-c", str(probe), "-o", str(tmp_path / "all.o")], check=True)
    subprocess.run([*CXX, "-include", str(tmp_path / "selected_op_variants.h"), "-c", str(probe),
                    "-o", str(tmp_path / "float.o")], check=True)
    # Eleven dtype loops become one (the other cases shrink to an abort call).
    assert text_size(tmp_path / "float.o") * 1.8 < text_size(tmp_path / "all.o")


def test_bad_selection_gives_a_located_error_and_no_header(tmp_path, capsys):
    bad = tmp_path / "s.yaml"
    bad.write_text("et_kernel_metadata:\n  aten::add.out:\n  - v1/6;0,1|6;1\n")
    assert main(["gen-op-variants", "--yaml-file-path", str(bad), "--output-dir", str(tmp_path / "o")]) == 2
    assert main(["gen-op-variants", "--yaml-file-path", str(tmp_path / "none.yaml"),
                 "--output-dir", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{bad}:3:5: error: kernel key 'v1/6;0,1|6;1': dim order '1' is not a permutation of 0..0",
        f"{tmp_path}/none.yaml: error: no such selected_operators.yaml",
    ]
    assert not (tmp_path / "o").exists()
