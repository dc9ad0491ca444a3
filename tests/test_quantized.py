"""Int8-quantized models (tests/models/quantized, PT2E with XNNPACKQuantizer,
and weight-only quantized embedding tables; exported by
tests/models/export_quantized.py): built by etsb's driver from
two-line BUILD files with etsb's quantized kernels (kernels/quantized) beside
its portable ones, with ExecuTorch's own from the tree, and fully delegated
to XNNPACK; each run must match the quantized torch module within one
quantization step (the step the manifest records per model). The same models
under Bazel are in test_bazel_quantized.py."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import REPO, TREE
from helpers import ET, cmake_build, cmake_configure, cxx, etsb, stripped_size

MODELS_DIR = REPO / "tests" / "models" / "quantized"
MANIFEST = json.loads((MODELS_DIR / "manifest.json").read_text())["models"]
UNDELEGATED = sorted(name for name, info in MANIFEST.items() if not info["delegate_calls"])
OUR_YAML = REPO / "kernels" / "quantized" / "quantized.yaml"
WHEEL_YAML = ET / "kernels" / "quantized" / "quantized.yaml"
PORTABLE_YAML = REPO / "kernels" / "portable" / "functions.yaml"
# A float rounding allowance on top of one step (the steps are ~1e-3).
STEP_SLACK = 1e-6


def entries(path: Path) -> dict[str, str]:
    """``namespace::name.overload`` -> the full schema, for each ``func:`` of a kernel yaml."""
    found = {}
    for entry in yaml.safe_load(path.read_text()):
        schema = entry["func"]
        found[schema.split("(", 1)[0]] = schema
    return found


def operators(path: Path) -> set[str]:
    """The operators a kernel yaml declares: ``op:`` names (ATen) and ``func:`` names."""
    found = set()
    for entry in yaml.safe_load(path.read_text()):
        name = entry.get("op") or entry["func"].split("(", 1)[0]
        found.add(name if "::" in name else f"aten::{name}")
    return found


def run(binary: Path, model: str, out: Path) -> subprocess.CompletedProcess:
    info = MANIFEST[model]
    inputs = ",".join(str(MODELS_DIR / model / i["file"]) for i in info["inputs"])
    return subprocess.run([str(binary), "--model", str(MODELS_DIR / info["pte"]), "--inputs", inputs,
                           "--output-dir", str(out)], capture_output=True, text=True)


def steps_from_reference(model: str, out: Path) -> float:
    """The largest |output - quantized torch module| in quantization steps, all outputs."""
    info = MANIFEST[model]
    worst = 0.0
    for index, output in enumerate(info["outputs"]):
        expected = np.load(MODELS_DIR / model / output["file"])
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (model, index)
        worst = max(worst, float(np.abs(got.astype(np.float64) - expected).max()) / info["quant_step"])
    return worst


def assert_within_one_step(binary: Path, model: str, out: Path) -> float:
    result = run(binary, model, out)
    assert result.returncode == 0, result.stderr
    steps = steps_from_reference(model, out)
    assert steps <= 1.0 + STEP_SLACK / MANIFEST[model]["quant_step"], (model, steps)
    return steps


# -- quick: the corpus and the yaml ----------------------------------------------------------


def test_the_corpus_has_a_static_a_dynamic_a_delegated_and_a_weight_only_model():
    kinds = {(info["quantization"], bool(info["delegate_calls"])) for info in MANIFEST.values()}
    assert kinds == {("static", False), ("dynamic", False), ("static", True), ("weight_only", False)}
    for model, info in MANIFEST.items():
        assert info["quant_step"] > 0 and info["max_abs_diff_reference_vs_runtime_in_steps"] <= 1, model
        quantized = [op for op in info["operators"] if op.startswith("quantized_decomposed::")]
        assert bool(quantized) != bool(info["delegate_calls"]), model
        assert info["backends"] == (["XnnpackBackend"] if info["delegate_calls"] else []), model


def test_the_dynamic_mlp_chooses_its_parameters_at_run_time():
    assert "quantized_decomposed::choose_qparams.Tensor_out" in MANIFEST["mlp_dynamic_int8"]["operators"]
    assert "quantized_decomposed::quantize_per_tensor.out" in MANIFEST["cnn_int8"]["operators"]
    assert {"quantized_decomposed::embedding_byte.dtype_out", "quantized_decomposed::embedding_4bit.dtype_out"} <= \
        set(MANIFEST["embedding_int8_int4"]["operators"])


def test_our_yaml_has_executorchs_schemas_entry_for_entry():
    """Every entry of the wheel's quantized.yaml (ExecuTorch's), with the same
    schema, and nothing else."""
    ours, theirs = entries(OUR_YAML), entries(WHEEL_YAML)
    assert set(ours) == set(theirs)
    for name, schema in ours.items():
        assert schema == theirs[name], name


def test_our_yaml_names_executorchs_kernel_functions():
    theirs = {e["func"].split("(", 1)[0]: e["kernels"] for e in yaml.safe_load(WHEEL_YAML.read_text())}
    for entry in yaml.safe_load(OUR_YAML.read_text()):
        assert entry["kernels"] == theirs[entry["func"].split("(", 1)[0]], entry["func"]


def test_our_two_libraries_cover_every_undelegated_model():
    provided = operators(OUR_YAML) | operators(PORTABLE_YAML)
    for model in UNDELEGATED:
        assert set(MANIFEST[model]["operators"]) <= provided, model


# Emission of a PT2E-quantized linear, without then with `import executorch.kernels.quantized`.
EMIT_QUANTIZED = """\
import sys
import torch
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
    XNNPACKQuantizer, get_symmetric_quantization_config)
from executorch.exir import to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

model, args = torch.nn.Linear(4, 4).eval(), (torch.randn(2, 4),)
prepared = prepare_pt2e(torch.export.export(model, args).module(),
                        XNNPACKQuantizer().set_global(get_symmetric_quantization_config()))
prepared(*args)
converted = convert_pt2e(prepared)
for attempt in ("without", "with"):
    if attempt == "with":
        import executorch.kernels.quantized  # noqa: F401
    try:
        to_edge_transform_and_lower(torch.export.export(converted, args)).to_executorch()
        print(attempt, "ok")
    except RuntimeError as error:
        print(attempt, str(error).splitlines()[0])
"""


@pytest.mark.build
def test_exporting_int8_needs_the_import_the_readme_names(export_python):
    """README.md's quantized flow says to import executorch.kernels.quantized
    before emission, as tests/models/export_quantized.py does: without it
    ExecuTorch cannot emit the quantized_decomposed operators."""
    result = subprocess.run([str(export_python), "-c", EMIT_QUANTIZED], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    without, with_import = result.stdout.splitlines()[-2:]
    assert without.startswith("without Missing out variants: {") and "quantized_decomposed::" in without, without
    assert with_import == "with ok"
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "Exporting one needs `import executorch.kernels.quantized` first" in readme
    assert "Missing out variants" in readme
    assert "import executorch.kernels.quantized" in (REPO / "tests/models/export_quantized.py").read_text()


@pytest.mark.build
def test_our_quantized_sources_are_warning_free():
    """-Wall -Wextra, as errors, on every kernel source (the front end's warnings)."""
    for source in sorted((REPO / "kernels/quantized/cpu").glob("op_*.cpp")):
        result = subprocess.run([*cxx("-O2"), "-Wall", "-Wextra", "-Werror", "-fsyntax-only", str(source)],
                                capture_output=True, text=True)
        assert result.returncode == 0, f"{source}:\n{result.stderr}"


# -- built with etsb's driver ----------------------------------------------------------------

OUT = REPO / "etsb-out" / "bin" / "examples"


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    result = etsb("build", "//examples/quantized/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.mark.build
@pytest.mark.parametrize("model", UNDELEGATED)
def test_each_model_matches_the_quantized_module_with_our_kernels(built, model, tmp_path):
    assert_within_one_step(OUT / "quantized" / model, model, tmp_path)


@pytest.mark.build
@pytest.mark.parametrize("model", UNDELEGATED)
def test_the_dtype_selective_binary_matches_too_and_is_no_larger(built, model, tmp_path):
    binary = OUT / "quantized" / f"{model}_dtype_selective_smallest" / f"{model}_dtype_selective"
    assert_within_one_step(binary, model, tmp_path)
    restricted = OUT / "quantized" / f"{model}_dtype_selective_dtype_selective"
    assert stripped_size(restricted, tmp_path) < stripped_size(OUT / "quantized" / model, tmp_path), model


@pytest.mark.build
@pytest.mark.parametrize("model", UNDELEGATED)
def test_the_binary_registers_just_the_models_operators(built, model):
    listed = subprocess.run([str(OUT / "quantized" / model), "--list-kernels"], capture_output=True, text=True,
                            check=True).stdout.split()
    quantized = sorted(op for op in listed if op.startswith("quantized_decomposed::"))
    assert quantized == sorted(op for op in MANIFEST[model]["operators"] if op.startswith("quantized_decomposed::"))


@pytest.mark.build
def test_the_delegated_model_runs_on_xnnpack_alone(built, tmp_path):
    binary = OUT / "quantized" / "cnn_int8_xnnpack"
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "libexecutorch_backend_xnnpack.so" in dynamic
    listed = subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True, check=True)
    assert listed.stdout.split() == ["XnnpackBackend"]
    assert_within_one_step(binary, "cnn_int8_xnnpack", tmp_path)


def user_workspace(tmp_path: Path, model: str, call: str) -> Path:
    """A workspace outside the checkout holding ``model``'s program as m.pte and a
    two-line BUILD file: the load, and ``call``."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "MODULE.bazel").write_text("")
    (root / "m.pte").write_bytes((MODELS_DIR / MANIFEST[model]["pte"]).read_bytes())
    (root / "BUILD").write_text(f'load("@etsb//rules:executorch.bzl", "et_model_binary")\n{call}\n')
    return root


@pytest.mark.build
@pytest.mark.parametrize("model", UNDELEGATED)
def test_a_two_line_build_file_outside_the_checkout_builds_the_model(model, tmp_path):
    """No library named: the catalogue takes etsb's quantized kernels for the quantized operators, and says so."""
    root = user_workspace(tmp_path, model, 'et_model_binary(name = "bin", model = "m.pte")')
    result = etsb("build", "//:bin", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "etsb: @etsb//kernels/quantized:kernels serves quantized_decomposed::" in result.stdout + result.stderr
    assert_within_one_step(root / "etsb-out" / "bin" / "bin", model, tmp_path / "out")


@pytest.mark.build
def test_a_model_without_the_quantized_yaml_fails_naming_the_operator(tmp_path):
    # Named libraries win over the catalogue (which would take etsb's quantized kernels by itself).
    root = user_workspace(tmp_path, "cnn_int8", 'et_model_binary(name = "bin", model = "m.pte", '
                                                'kernel_deps = ["@etsb//kernels/portable:kernels"])')
    result = etsb("build", "//:bin", cwd=root)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    # The error names the operator and says which libraries provide it, with what to give the binary.
    assert ("etsb: error: quantized_decomposed::quantize_per_tensor.out: no kernel yaml entry for this operator "
            "(needed by m.pte; not in etsb-out/external/etsb/kernels/portable/functions.yaml); etsb's quantized "
            "kernels provide it: give the binary custom_ops_yaml_target = \"@etsb//kernels/quantized:quantized.yaml\" "
            "and kernel_deps = [\"@etsb//kernels/quantized:kernels\", \"@etsb//kernels/portable:kernels\"]; "
            "ExecuTorch 1.5.0's tree provides it in kernels/quantized (@executorch//kernels/quantized:kernels "
            "with --executorch-root)\n") in output, output[-3000:]


def cmake_cnn_project(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    """A CMake project of the int8 CNN (``{model}`` in ``body``: its program)
    configured in tmp_path/build; the configure's result."""
    source = tmp_path / "src"
    source.mkdir()
    model = MODELS_DIR / MANIFEST["cnn_int8"]["pte"]
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(quantized LANGUAGES CXX)\n"
        f"include({REPO / 'rules' / 'etsb.cmake'})\n" + body.replace("{model}", str(model)))
    return cmake_configure(source, tmp_path / "build")


@pytest.mark.build
def test_cmake_builds_the_static_cnn_with_etsbs_quantized_kernels(tmp_path):
    """rules/etsb.cmake's etsb_quantized_kernels and ETSB_QUANTIZED_CUSTOM_OPS_YAML, as the driver's."""
    configured = cmake_cnn_project(tmp_path, (
        "et_model_binary(NAME bin MODEL {model} CUSTOM_OPS_YAML_TARGET ${ETSB_QUANTIZED_CUSTOM_OPS_YAML}\n"
        "                KERNEL_DEPS etsb_quantized_kernels etsb_portable_kernels)\n"))
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    built = cmake_build(tmp_path / "build", "bin")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert_within_one_step(tmp_path / "build" / "bin", "cnn_int8", tmp_path / "out")


@pytest.mark.build
def test_cmake_builds_the_static_cnn_from_two_lines_through_the_catalogue(tmp_path):
    """No library named: CMake's catalogue (rules/private/etsb_catalogue.cmake) takes etsb's quantized kernels."""
    configured = cmake_cnn_project(tmp_path, "et_model_binary(NAME bin MODEL {model})\n")
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    built = cmake_build(tmp_path / "build", "bin")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    assert "etsb: etsb_quantized_kernels serves quantized_decomposed::" in built.stdout + built.stderr
    assert_within_one_step(tmp_path / "build" / "bin", "cnn_int8", tmp_path / "out")


@pytest.mark.build
def test_under_cmake_the_missing_quantized_kernel_is_told_in_cmakes_spelling(tmp_path):
    """rules/etsb.cmake runs gen-bindings with --front-end cmake: the remedy names its variables and targets
    (named libraries win over the catalogue, which would take etsb's quantized kernels by itself)."""
    configured = cmake_cnn_project(tmp_path, "et_model_binary(NAME bin MODEL {model} KERNEL_DEPS etsb_portable_kernels)\n")
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    built = cmake_build(tmp_path / "build", "bin_lib_bindings")
    output = built.stdout + built.stderr
    assert built.returncode != 0
    assert ("quantized_decomposed::quantize_per_tensor.out: no kernel yaml entry for this operator" in output
            and "etsb's quantized kernels provide it: give the binary CUSTOM_OPS_YAML_TARGET "
            "${ETSB_QUANTIZED_CUSTOM_OPS_YAML} KERNEL_DEPS etsb_quantized_kernels etsb_portable_kernels; "
            "ExecuTorch 1.5.0's tree provides it in kernels/quantized (executorch_quantized_kernels after "
            "et_executorch_tree(ROOT <tree>))") in output, output[-3000:]


# -- ExecuTorch's kernels from the tree --------------------------------------------------------


@pytest.fixture(scope="module")
def built_tree() -> subprocess.CompletedProcess:
    result = etsb("build", "--executorch-root", str(TREE), "//examples/quantized_tree/...")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("model", UNDELEGATED)
def test_each_model_matches_the_quantized_module_with_the_trees_kernels(built_tree, model, tmp_path):
    assert_within_one_step(OUT / "quantized_tree" / model, model, tmp_path)


@pytest.mark.build
@pytest.mark.tree
def test_the_trees_quantized_kernels_run_beside_our_portable_ones(built_tree, tmp_path):
    assert_within_one_step(OUT / "quantized_tree" / "cnn_int8_over_ours", "cnn_int8", tmp_path)


@pytest.mark.build
@pytest.mark.tree
def test_cmake_builds_the_static_cnn_with_the_trees_quantized_kernels(tmp_path):
    """et_executorch_tree's executorch_quantized_kernels and ETSB_EXECUTORCH_QUANTIZED_CUSTOM_OPS_YAML,
    beside the tree's portable kernels, as the driver's //examples/quantized_tree."""
    configured = cmake_cnn_project(tmp_path, (
        f"et_executorch_tree(ROOT {TREE})\n"
        "et_model_binary(NAME bin MODEL {model}\n"
        "                FUNCTIONS_YAML_TARGET ${ETSB_EXECUTORCH_PORTABLE_FUNCTIONS_YAML}\n"
        "                CUSTOM_OPS_YAML_TARGET ${ETSB_EXECUTORCH_QUANTIZED_CUSTOM_OPS_YAML}\n"
        "                KERNEL_DEPS executorch_quantized_kernels executorch_portable_kernels)\n"))
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    built = cmake_build(tmp_path / "build", "bin")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    listed = subprocess.run([str(tmp_path / "build" / "bin"), "--list-kernels"], capture_output=True, text=True,
                            check=True).stdout
    assert "quantized_decomposed::quantize_per_tensor.out" in listed
    assert_within_one_step(tmp_path / "build" / "bin", "cnn_int8", tmp_path / "out")
