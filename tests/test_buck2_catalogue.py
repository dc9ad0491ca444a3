"""The catalogue under Buck2: the trees its root .buckconfig names.

etsb's driver, Bazel and CMake take ExecuTorch's Cortex-M kernels into the
catalogue when a tree and CMSIS-NN are given; under Buck2 the project's root
`.buckconfig` names them, as cells: `[etsb] executorch_cell` and
`cmsis_nn_cell`, each a cell its `[cells]` declares. Buck2's shim reads them
with `read_root_config` (rules/private/shim_buck2.bzl). These tests evaluate a
two-line BUCK file with Buck2's own interpreter (starlark-rust, through
tests/buck2_interpreter.py) under several `.buckconfig` files, including the
wrong ones, and run `gen-bindings` as Buck2's genrule does for a Cortex-M
program when no tree is named. Nothing is compiled."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pytest

from buck2_interpreter import Buck2Error, Buck2Project
from conftest import REPO, TREE
from selective_build.__main__ import main

PACKAGE = "buck2_cortex_m"
MODEL = REPO / "tests" / "models" / "cortex_m" / "scalar" / "ds_cnn" / "ds_cnn.pte"
# A two-line binary of a Cortex-M program, as docs/cortex_m.md writes it.
TWO_LINES = ('load("@etsb//rules:executorch.bzl", "et_model_binary")\n\n'
             'et_model_binary(name = "kws", model = "ds_cnn.pte")\n')
OWN = ["etsb//kernels/portable:kernels", "etsb//kernels/quantized:kernels", "etsb//kernels/llm:kernels"]
CORTEX_M = ["executorch//backends/cortex_m:kernels", "executorch//kernels/portable:kernels"]
# Where Buck2 would find the yamls the genrules name (etsb's cell is etsb's checkout; the tree's cell the snapshot).
FILES = {"etsb//kernels/quantized:quantized.yaml": REPO / "kernels" / "quantized" / "quantized.yaml",
         "etsb//kernels/llm:functions.yaml": REPO / "kernels" / "llm" / "functions.yaml",
         "executorch//backends/cortex_m:operators.yaml": TREE / "backends" / "cortex_m" / "ops" / "operators.yaml"}
TREES = ("[cells]\n  executorch = third_party/executorch\n  cmsis_nn = third_party/cmsis-nn\n"
         "[etsb]\n  executorch_cell = executorch\n  cmsis_nn_cell = cmsis_nn\n")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """etsb's rules and `.buckconfig` (the root cell, aliased `etsb`) and the package of the two lines."""
    root = tmp_path_factory.mktemp("buck2cat") / "w"
    for part in ("rules", "kernels", "runtime", "tools/selective_build", "tools/runner"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(REPO / ".buckconfig", root / ".buckconfig")
    (root / PACKAGE).mkdir()
    (root / PACKAGE / "BUCK").write_text(TWO_LINES)
    shutil.copy(MODEL, root / PACKAGE / "ds_cnn.pte")
    return root


def project(workspace: Path, extra: str) -> Buck2Project:
    """The workspace as a Buck2 project whose .buckconfig is etsb's with `extra` after it (a file of its own)."""
    text = (REPO / ".buckconfig").read_text()
    # One [cells] and one [etsb] section: extra's lines go into etsb's sections of the same names.
    for section, lines in re.findall(r"\[(\w+)\]\n((?:  .*\n)*)", extra):
        text = text.replace(f"[{section}]\n", f"[{section}]\n{lines}", 1) if f"[{section}]\n" in text \
            else text + f"\n[{section}]\n{lines}"
    path = workspace / f".buckconfig.{hashlib.sha256(extra.encode()).hexdigest()[:12]}"
    path.write_text(text)
    return Buck2Project(path)


def targets(project: Buck2Project, package: str) -> dict[str, dict]:
    return {target.name: target.attrs for target in project.evaluate(package)}


def said_libraries(command: str) -> list[tuple[str, str]]:
    """The `--say-library NAME=$(location YAML)` pairs of a gen-bindings command, in order."""
    return re.findall(r"--say-library '([^=']+)=\$\(location ([^)]+)\)'", command)


def say(tmp_path: Path, model: Path, libraries: list[tuple[str, str]], capsys) -> str:
    """What gen-bindings prints for `model` with the catalogue's yamls and these `--say-library` pairs
    (the files Buck2 would give each label), as Buck2's genrule runs it: the custom-ops yaml merged
    in the catalogue's order (catalogue_custom_ops)."""
    selection = tmp_path / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(model)]) == 0
    merged = str(FILES[libraries[0][1]])
    for index, (_, yaml) in enumerate(libraries[1:]):
        assert main(["merge-yaml", "--functions_yaml_path", merged, "--fallback_yaml_path", str(FILES[yaml]),
                     "--output_dir", str(tmp_path / str(index))]) == 0
        merged = str(tmp_path / str(index) / "merged.yaml")
    capsys.readouterr()
    flags = [f"--say-library={name}={FILES[yaml]}" for name, yaml in libraries]
    assert main(["gen-bindings", "--functions_yaml_path", str(REPO / "kernels" / "portable" / "functions.yaml"),
                 "--custom_ops_yaml_path", merged, "--op_selection_yaml_path", str(selection),
                 "--output_dir", str(tmp_path / "out"), "--front-end", "buck2", *flags]) == 0
    return capsys.readouterr().err


def test_without_trees_the_catalogue_is_etsbs_libraries(workspace):
    """etsb's own .buckconfig names no tree: the two lines take etsb's portable, quantized and LLM
    kernels (quantized and LLM programs are served by them), and gen-bindings is told to spell a
    missing kernel's remedy as Buck2 takes it."""
    found = targets(project(workspace, ""), PACKAGE)
    assert found["kws_lib"]["exported_deps"][:3] == OWN
    assert not any(dep.startswith("executorch//") for dep in found["kws_lib"]["exported_deps"])
    bindings = found["kws_lib_bindings"]["cmd"]
    assert "--custom_ops_yaml_path $(location etsb//kernels:custom_ops)" in bindings
    assert "--front-end buck2" in bindings
    assert said_libraries(bindings) == [("etsb//kernels/quantized:kernels", "etsb//kernels/quantized:quantized.yaml"),
                                        ("etsb//kernels/llm:kernels", "etsb//kernels/llm:functions.yaml")]
    merged = targets(project(workspace, ""), "kernels")
    assert not any("cortex_m" in src for attrs in merged.values() for src in attrs.get("srcs", []))


def test_the_cells_named_in_the_buckconfig_add_executorchs_cortex_m_kernels(workspace):
    """With both trees' cells named, the catalogue ends with ExecuTorch's Cortex-M kernels (and the
    tree's portable library, for their utilities) after etsb's, in Buck2's label spelling, and
    the catalogue's custom-ops yaml merges the Cortex-M operators' yaml last."""
    trees = project(workspace, TREES)
    found = targets(trees, PACKAGE)
    assert found["kws_lib"]["exported_deps"][:5] == OWN + CORTEX_M
    merged = targets(trees, "kernels")
    last = merged["custom_ops"]
    assert "executorch//backends/cortex_m:operators.yaml" in last["srcs"]
    assert last["cmd"].endswith("--output_dir $OUT/custom_ops")
    assert said_libraries(found["kws_lib_bindings"]["cmd"])[2:] == [
        ("executorch//backends/cortex_m:kernels", "executorch//backends/cortex_m:operators.yaml")]
    assert "executorch//backends/cortex_m:operators.yaml" in found["kws_lib_bindings"]["srcs"]
    # The all-kernels companion names the same libraries.
    assert found["kws_all_kernels_lib"]["exported_deps"][:5] == OWN + CORTEX_M


def test_a_cell_of_another_name_is_taken_by_its_name(workspace):
    """The setting names the cell, whatever its name; an alias of a declared cell counts."""
    found = targets(project(workspace, "[cells]\n  et = third_party/executorch\n  cmsis = third_party/cmsis-nn\n"
                                       "[cell_aliases]\n  nn = cmsis\n"
                                       "[etsb]\n  executorch_cell = et\n  cmsis_nn_cell = nn\n"), PACKAGE)
    assert found["kws_lib"]["exported_deps"][3:5] == ["et//backends/cortex_m:kernels", "et//kernels/portable:kernels"]


def test_a_tree_without_cmsis_nn_leaves_the_cortex_m_kernels_out(workspace):
    """As in etsb's driver: the tree alone is not enough (its Cortex-M kernels call CMSIS-NN)."""
    found = targets(project(workspace, "[cells]\n  executorch = third_party/executorch\n"
                                       "[etsb]\n  executorch_cell = executorch\n"), PACKAGE)
    assert found["kws_lib"]["exported_deps"][:3] == OWN
    assert not any(dep.startswith("executorch//") for dep in found["kws_lib"]["exported_deps"])


@pytest.mark.parametrize("extra, message", [
    ("[etsb]\n  executorch_cell = executorch\n  cmsis_nn_cell = cmsis_nn\n",
     "the project's .buckconfig, [etsb] executorch_cell = 'executorch': no cell 'executorch' is declared: "
     "add `executorch = <path to the ExecuTorch tree>` under [cells]"),
    ("[cells]\n  executorch = third_party/executorch\n[etsb]\n  executorch_cell = executorch\n"
     "  cmsis_nn_cell = cmsis-nn\n",
     "[etsb] cmsis_nn_cell = 'cmsis-nn': no cell 'cmsis-nn' is declared: add `cmsis-nn = <path to the CMSIS-NN "
     "tree>` under [cells]"),
    ("[cells]\n  executorch = third_party/executorch\n[etsb]\n  executorch_cell = third_party/executorch\n",
     "[etsb] executorch_cell = 'third_party/executorch': not a cell name: name the cell of the ExecuTorch tree, "
     "declared under [cells] (e.g. `executorch = <path to the ExecuTorch tree>` there and "
     "`executorch_cell = executorch` here)"),
    ("[etsb]\n  executorch_cell = \n", "[etsb] executorch_cell = '': not a cell name"),
])
def test_a_setting_naming_no_cell_fails_at_the_call_saying_what_to_set(workspace, extra, message):
    """A value naming no declared cell, or a path where a cell's name goes: the evaluation of the
    BUCK file fails at the call, naming the setting, its value and what to write."""
    with pytest.raises(Buck2Error) as info:
        project(workspace, extra).evaluate(PACKAGE)
    assert message in str(info.value), str(info.value)
    assert f"{PACKAGE}/BUCK:3" in str(info.value), str(info.value)


def test_without_trees_a_cortex_m_program_stops_at_its_registration_naming_the_settings(workspace, tmp_path,
                                                                                        capsys):
    """The build of the two lines without trees: gen-bindings, run as Buck2's genrule runs it (its
    yamls and `--front-end buck2`), stops at the program's first `cortex_m::` operator and says
    which .buckconfig settings give its library, in Buck2's spelling."""
    selection = tmp_path / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(MODEL)]) == 0
    # etsb//kernels:custom_ops without trees: the quantized yaml over the LLM one (catalogue_custom_ops).
    assert main(["merge-yaml", "--functions_yaml_path", str(REPO / "kernels" / "quantized" / "quantized.yaml"),
                 "--fallback_yaml_path", str(REPO / "kernels" / "llm" / "functions.yaml"),
                 "--output_dir", str(tmp_path)]) == 0
    capsys.readouterr()
    status = main(["gen-bindings", "--functions_yaml_path", str(REPO / "kernels" / "portable" / "functions.yaml"),
                   "--custom_ops_yaml_path", str(tmp_path / "merged.yaml"),
                   "--op_selection_yaml_path", str(selection), "--output_dir", str(tmp_path / "out"),
                   "--front-end", "buck2"])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err, err
    assert "cortex_m::" in err and "executorch//backends/cortex_m:kernels, which the catalogue takes by itself " \
        "once the project's .buckconfig sets [etsb] executorch_cell and cmsis_nn_cell" in err, err
    assert "--executorch-root" not in err and "@executorch" not in err, err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("model, line", [
    ("quantized/cnn_int8/cnn_int8.pte", "etsb: etsb//kernels/quantized:kernels serves "
     "quantized_decomposed::dequantize_per_channel.out, quantized_decomposed::dequantize_per_tensor.out, "
     "quantized_decomposed::quantize_per_tensor.out (chosen from the model)\n"),
    ("llm/custom/custom.pte", "etsb: etsb//kernels/quantized:kernels serves "
     "quantized_decomposed::embedding_byte.dtype_out (chosen from the model)\n"
     "etsb: etsb//kernels/llm:kernels serves llama::custom_sdpa.out, llama::update_cache.out (chosen from the model)\n"),
])
def test_the_build_says_which_of_etsbs_libraries_the_program_chose(workspace, tmp_path, capsys, model, line):
    """Buck2's equivalent of the driver's build-log line: the bindings' genrule names the library
    serving the program's custom operators (Buck2 shows a successful action's stderr with -v1,stderr)."""
    command = targets(project(workspace, ""), PACKAGE)["kws_lib_bindings"]["cmd"]
    err = say(tmp_path, REPO / "tests" / "models" / model, said_libraries(command), capsys)
    assert err == line, err


@pytest.mark.tree
def test_with_the_trees_a_cortex_m_program_says_executorchs_cortex_m_kernels(workspace, tmp_path, capsys):
    """The two lines of a Cortex-M program with both cells named: its `cortex_m::` operators come
    from ExecuTorch's Cortex-M kernels, and the build says so, once, as etsb's driver does."""
    command = targets(project(workspace, TREES), PACKAGE)["kws_lib_bindings"]["cmd"]
    err = say(tmp_path, MODEL, said_libraries(command), capsys)
    assert err.startswith("etsb: executorch//backends/cortex_m:kernels serves cortex_m::"), err
    assert "cortex_m::quantized_conv2d.out" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("value, message", [
    ("etsb//kernels/quantized:kernels", "--say-library takes NAME=VALUE, not 'etsb//kernels/quantized:kernels'"),
    ("etsb//kernels/quantized:kernels=/nowhere/quantized.yaml", "/nowhere/quantized.yaml"),
])
def test_a_bad_say_library_is_refused_before_anything_is_written(tmp_path, capsys, value, message):
    selection = tmp_path / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--root_ops", "aten::add.out"]) == 0
    capsys.readouterr()
    status = main(["gen-bindings", "--functions_yaml_path", str(REPO / "kernels" / "portable" / "functions.yaml"),
                   "--op_selection_yaml_path", str(selection), "--output_dir", str(tmp_path / "out"),
                   "--say-library", value])
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err, err
    assert not (tmp_path / "out").exists()
