"""A custom operator with one argument of every type ExecuTorch carries,
round-tripped: exported by torch (tests/models/custom_op/export_custom_op.py),
selected from the .pte, bound by ``etsb gen-bindings --custom-ops-yaml-path``,
compiled with a hand-written kernel that encodes every value it receives, run
through libexecutorch.so, and compared exactly with torch's encoding.

Also: the generated headers declare the operator where they should, and an
argument named like the context parameter (``ctx``) no longer breaks them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from conftest import MODELS_DIR, REPO
from selective_build.__main__ import main
from selective_build.model.schema_parser import parse_schema

from helpers import ET, cxx
PORTABLE = ET / "kernels/portable/functions.yaml"
KERNELS = REPO / "tests" / "data" / "kernels"
CUSTOM_YAML = KERNELS / "custom_op.yaml"
MODEL = MODELS_DIR / "custom_op"
PTE = MODEL / "custom_op.pte"
DESCRIPTION = json.loads((MODEL / "custom_op.json").read_text())
OPERATOR = "etsb_test::encode_args.out"
CXX = cxx("-O1")


def test_committed_files_are_those_the_export_wrote():
    for name, digest in DESCRIPTION["sha256"].items():
        assert hashlib.sha256((MODEL / name).read_bytes()).hexdigest() == digest, name
    assert PTE.read_bytes()[4:8] == b"ET12"
    assert PTE.stat().st_size < 20_000
    assert len(DESCRIPTION["slots"]) == np.load(MODEL / "forward.output_0.npy").shape[0]


def test_kernel_yaml_declares_the_schema_torch_registered():
    (entry,) = yaml.safe_load(CUSTOM_YAML.read_text())
    assert parse_schema(entry["func"]) == parse_schema(DESCRIPTION["schema"])
    assert entry["kernels"] == [{"arg_meta": None, "kernel_name": "etsb_test::encode_args_out"}]


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """Select from the .pte and generate bindings: portable functions.yaml plus the custom-ops yaml."""
    out = tmp_path_factory.mktemp("generated")
    selection = out / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(PTE)]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(PORTABLE), "--custom-ops-yaml-path",
                 str(CUSTOM_YAML), "--op-selection-yaml-path", str(selection), "--output-dir", str(out),
                 "--lib-name", "custom_op"]) == 0
    return out


def test_selection_holds_the_custom_operator_and_its_runtime_key(generated):
    selected = yaml.safe_load((generated / "selected_operators.yaml").read_text())
    assert list(selected["operators"]) == [OPERATOR]
    # Single tensors only: t (Float 2-D), t_opt (Float 1-D), out and the returned
    # out (Double 1-D); None, lists and non-tensors add nothing.
    assert selected["et_kernel_metadata"] == {OPERATOR: ["v1/6;0,1|6;0|7;0|7;0"]}


def test_headers_declare_the_custom_operator(generated):
    custom = (generated / "CustomOpsNativeFunctions.h").read_text()
    native = (generated / "NativeFunctions.h").read_text()
    functions = (generated / "Functions.h").read_text()
    assert "namespace etsb_test { namespace native {" in custom
    assert f"// {OPERATOR}\n::executorch::aten::Tensor& encode_args_out(" in custom
    assert "encode_args_out" not in native and "namespace" not in native  # no ATen operator selected
    assert "namespace torch { namespace executor { namespace etsb_test {" in functions
    assert "encode_args_outf(" in functions
    # Every argument in schema order, after the context.
    declaration = custom[custom.index("encode_args_out("):custom.index(");", custom.index("encode_args_out("))]
    names = [part.rsplit(" ", 1)[1] for part in declaration[len("encode_args_out("):].split(", ")]
    assert names == ["ctx"] + [a.name for a in parse_schema(DESCRIPTION["schema"]).arguments]
    assert (generated / "register_kernels.cpp").read_text().count("\nvoid wrap") == 1


@pytest.mark.build
def test_custom_operator_round_trips_every_argument_type(generated, tmp_path):
    """The kernel's encoding of what the runtime gave it equals torch's, slot for slot."""
    kernel = tmp_path / "custom_op.o"
    # The kernel is compiled against the generated declaration: a signature that
    # differs from it does not compile (return type) or does not link (parameters).
    subprocess.run([*CXX, "-Wall", "-Werror", "-include", str(generated / "CustomOpsNativeFunctions.h"), "-c",
                    str(KERNELS / "custom_op.cpp"), "-o", str(kernel)], check=True)
    helpers = tmp_path / "helpers.cpp"
    helpers.write_text('#include "Functions.h"\n'
                       "auto* const helper = &::torch::executor::etsb_test::encode_args_outf;\n")
    binary = tmp_path / "custom_op_bin"
    subprocess.run([*CXX, "-I", str(generated), str(generated / "register_kernels.cpp"), str(helpers), str(kernel),
                    str(REPO / "tools/runner/runner.cpp"), f"-L{ET / 'lib'}", "-lexecutorch",
                    f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)], check=True)
    out = tmp_path / "out"
    out.mkdir()
    inputs = ",".join(str(MODEL / f"forward.input_{i}.npy") for i in range(3))
    result = subprocess.run([binary, "--model", PTE, "--inputs", inputs, "--output-dir", out],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    expected = np.load(MODEL / "forward.output_0.npy")
    actual = np.load(out / "output_0.npy")
    assert actual.dtype == expected.dtype == np.float64 and actual.shape == expected.shape
    wrong = [f"{label}: runtime {a!r}, torch {e!r}"
             for label, a, e in zip(DESCRIPTION["slots"], actual.tolist(), expected.tolist()) if a != e]
    assert not wrong, "\n".join(wrong)


@pytest.mark.build
def test_an_argument_named_ctx_does_not_clash_with_the_context(tmp_path):
    """Regression: the headers named the context parameter ``ctx`` whatever the
    arguments were called, so an argument ``ctx`` gave a duplicate parameter."""
    kernels = tmp_path / "clash.yaml"
    kernels.write_text("- func: clash::op.out(Tensor ctx, int ctx_, *, Tensor(a!) out) -> Tensor(a!)\n"
                       "  kernels:\n    - arg_meta: null\n      kernel_name: clash::op_out\n")
    out = tmp_path / "gen"
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "mlp.yaml"), "--custom-ops-yaml-path",
                 str(kernels), "--output-dir", str(out), "--lib-name", "clash"]) == 0
    custom = (out / "CustomOpsNativeFunctions.h").read_text()
    assert "KernelRuntimeContext& ctx__, const ::executorch::aten::Tensor& ctx, int64_t ctx_," in custom
    assert "op_out(ctx__, ctx, ctx_, out);" in (out / "Functions.h").read_text()
    (out / "use.cpp").write_text(
        '#include "Functions.h"\n'
        "namespace clash { namespace native {\n"
        "::executorch::aten::Tensor& op_out(::torch::executor::KernelRuntimeContext&,\n"
        "    const ::executorch::aten::Tensor& ctx, int64_t, ::executorch::aten::Tensor& out) { return out; }\n"
        "}}\n")
    for name in ("register_kernels.cpp", "use.cpp"):
        subprocess.run([*CXX, "-I", str(out), "-fsyntax-only", str(out / name)], check=True)


@pytest.mark.build
def test_export_is_reproducible(tmp_path, export_python):
    """Re-exporting with torch gives the committed files byte for byte (export environment)."""
    subprocess.run([str(export_python), str(MODEL / "export_custom_op.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True, cwd=REPO)
    for name in DESCRIPTION["sha256"] | {"custom_op.json": None}:
        assert (tmp_path / name).read_bytes() == (MODEL / name).read_bytes(), name
