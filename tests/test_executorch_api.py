"""`Functions.h` is ExecuTorch's generated API: the helpers `etsb gen-bindings`
writes have the names, namespaces, return and parameter types that
ExecuTorch's codegen gives them for the same yaml, so that code written
against ExecuTorch's (its kernel test suite, a kernel calling another
operator) compiles against etsb's unchanged."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO, TREE
from helpers import ET, cxx
from selective_build.__main__ import main

OURS = REPO / "kernels/portable/functions.yaml"
PORTABLE = ET / "kernels/portable/functions.yaml"
PORTABLE_CUSTOM = ET / "kernels/portable/custom_ops.yaml"

# Overloads of one operator, in place, functional: each kind of name.
SCALE_YAML = """\
- func: etsb_api::scale.out(Tensor self, float factor, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: etsb_api::scale_out
- func: etsb_api::scale.Tensor_out(Tensor self, Tensor factor, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: etsb_api::scale_tensor_out
- func: etsb_api::scale_(Tensor(a!) self, float factor) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: etsb_api::scale_in_place
- func: etsb_api::scale(Tensor self, float factor) -> Tensor
  kernels:
    - arg_meta: null
      kernel_name: etsb_api::scale_functional
- func: etsb_api::halves.out(Tensor self, *, Tensor(a!) low, Tensor(b!) high) -> (Tensor(a!), Tensor(b!))
  kernels:
    - arg_meta: null
      kernel_name: etsb_api::halves_out
"""

# Calls in ExecuTorch's spelling, and the types ExecuTorch's codegen gives them.
SCALE_CALLS = """\
#include "Functions.h"
#include <type_traits>

using ::executorch::aten::Tensor;
namespace api = ::torch::executor::etsb_api;

void calls(::torch::executor::KernelRuntimeContext& context, const Tensor& a, Tensor& out, Tensor& other) {
  static_assert(std::is_same_v<decltype(api::scale_outf(context, a, 2.0, out)), Tensor&>);
  static_assert(std::is_same_v<decltype(api::scale_outf(context, a, a, out)), Tensor&>);
  static_assert(std::is_same_v<decltype(api::scale_(context, out, 2.0)), Tensor&>);
  static_assert(std::is_same_v<decltype(api::scale(context, a, 2.0)), Tensor>);
  static_assert(std::is_same_v<decltype(api::halves_outf(context, a, out, other)), std::tuple<Tensor&, Tensor&>>);
}
"""

# Files of ExecuTorch's kernel test suite (kernels/test in the tree) that call
# only operators kernels/portable/functions.yaml has, and why each is here.
SUITE_FILES = {
    "op_add_test.cpp": "add_outf for add.out and add.Scalar_out, two overloads of one name",
    "op_sum_test.cpp": "sum_outf for sum.IntList_out (the overload name dropped)",
    "op_div_test.cpp": "div_outf for div.out, div.out_mode, div.Scalar_out and div.Scalar_mode_out",
    "op_pow_test.cpp": "pow_outf for three overloads, one with a Scalar first (pow.Scalar_out)",
    "op_any_test.cpp": "any_outf for any.out, any.all_out and any.dims_out: three overloads",
    "op_clamp_test.cpp": "clamp_outf for clamp.out (Scalar?) and clamp.Tensor_out (Tensor?)",
    "op_arange_test.cpp": "arange_outf for arange.out and arange.start_out (different arity)",
    "op_squeeze_copy_test.cpp": "squeeze_copy_outf for squeeze_copy.dim_out and dims_out",
    "op_native_layer_norm_test.cpp": "a helper returning a tuple of three out tensors",
    "op_split_with_sizes_copy_test.cpp": "a helper returning void, its out a tensor list",
    "op_log_softmax_test.cpp": "_log_softmax_outf: a leading underscore kept",
}


def generate(out: Path, *argv) -> None:
    assert main(["gen-bindings", "--output-dir", str(out), *map(str, argv)]) == 0


def test_helper_names_are_executorchs(tmp_path):
    custom = tmp_path / "custom.yaml"
    custom.write_text(SCALE_YAML)
    generate(tmp_path, "--custom-ops-yaml-path", custom)
    helpers = re.findall(r"^// (\S+)\ninline (.+?) (\w+)\(", (tmp_path / "Functions.h").read_text(), re.M)
    assert helpers == [
        ("etsb_api::halves.out", "std::tuple<::executorch::aten::Tensor&, ::executorch::aten::Tensor&>",
         "halves_outf"),
        ("etsb_api::scale", "::executorch::aten::Tensor", "scale"),
        ("etsb_api::scale.Tensor_out", "::executorch::aten::Tensor&", "scale_outf"),
        ("etsb_api::scale.out", "::executorch::aten::Tensor&", "scale_outf"),
        ("etsb_api::scale_", "::executorch::aten::Tensor&", "scale_"),
    ]


@pytest.mark.build
def test_overloads_resolve_and_types_match(tmp_path):
    custom = tmp_path / "custom.yaml"
    custom.write_text(SCALE_YAML)
    generate(tmp_path, "--custom-ops-yaml-path", custom)
    (tmp_path / "calls.cpp").write_text(SCALE_CALLS)
    result = subprocess.run([*cxx("-O0"), "-fsyntax-only", "calls.cpp"], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.build
def test_overloads_with_the_same_parameters_are_both_written(tmp_path):
    """As ExecuTorch's codegen does: two definitions, which do not compile."""
    custom = tmp_path / "custom.yaml"
    custom.write_text(SCALE_YAML + "- func: etsb_api::scale.twice_out(Tensor self, float times, *, Tensor(a!) out) "
                      "-> Tensor(a!)\n  kernels:\n    - arg_meta: null\n      kernel_name: etsb_api::scale_twice_out\n")
    generate(tmp_path, "--custom-ops-yaml-path", custom)
    functions = (tmp_path / "Functions.h").read_text()
    assert "// etsb_api::scale.out\n" in functions and "// etsb_api::scale.twice_out\n" in functions
    (tmp_path / "include.cpp").write_text('#include "Functions.h"\n')
    result = subprocess.run([*cxx("-O0"), "-fsyntax-only", "include.cpp"], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.returncode != 0
    assert "redefinition of" in result.stderr and "scale_outf" in result.stderr, result.stderr


def _helpers(text: str, pattern: str) -> dict[str, tuple[str, ...]]:
    """Operator -> (namespace, name, return type, parameter types but the context), spelled alike."""
    def plain(type_: str) -> str:
        type_ = re.sub(r"(::)?\b(torch::executor|executorch::aten|executorch::runtime|std|c10)::", "", type_)
        return type_.replace(" ", "").replace("TensorList", "ArrayRef<Tensor>")
    found = {}
    for match in re.finditer(pattern, text, re.S):
        namespace = re.findall(r"namespace (\w+) \{", text[:match.start()])[-1]
        parameters = [p.strip().rpartition(" ")[0] for p in re.split(r",(?![^<]*>)", match["parameters"])]
        found[match["operator"]] = (namespace, match["name"], plain(match["returns"]),
                                    *map(plain, parameters[1:]))
    return found


def test_helpers_are_those_of_executorchs_codegen(tmp_path, export_python):
    """The same yaml through both generators: every helper alike but for spelling."""
    templates = tmp_path / "templates"
    templates.mkdir()
    # Minimal templates of our own: the generator fills the placeholders.
    (templates / "Functions.h").write_text("${static_dispatch_extra_headers}\n${Functions_declarations}\n")
    (templates / "NativeFunctions.h").write_text("${headers}\n${nativeFunctions_declarations}\n")
    (templates / "RegisterKernels.h").write_text("// ${generated_comment}\n")
    native = next(export_python.parent.parent.glob("lib/python3*/site-packages/torchgen/packaged/ATen/native"))
    subprocess.run([export_python, "-m", "executorch.codegen.gen", "--source-path", tmp_path,
                    "--install-dir", tmp_path / "peer", "--functions-yaml-path", PORTABLE,
                    "--custom-ops-yaml-path", PORTABLE_CUSTOM, "--aten-yaml-path", native / "native_functions.yaml",
                    "--tags-path", native / "tags.yaml", "--generate", "headers"], check=True, capture_output=True)
    generate(tmp_path / "ours", "--functions-yaml-path", PORTABLE, "--custom-ops-yaml-path", PORTABLE_CUSTOM)
    peer = _helpers((tmp_path / "peer/Functions.h").read_text(),
                    r"// (?P<operator>[\w:.]+)\(.*?\n\s*TORCH_API inline (?P<returns>.*?) (?P<name>\w+)"
                    r"\((?P<parameters>.*?)\) \{")
    ours = _helpers((tmp_path / "ours/Functions.h").read_text(),
                    r"// (?P<operator>[\w:.]+)\ninline (?P<returns>.*?) (?P<name>\w+)\((?P<parameters>.*?)\) \{")
    assert len(ours) == 211 and ours["aten::add.Scalar_out"][:2] == ("aten", "add_outf")
    assert ours == peer


@pytest.mark.build
@pytest.mark.tree
def test_executorchs_kernel_tests_compile_against_our_headers(tmp_path):
    """Unchanged files of ExecuTorch's kernel test suite, syntax-checked against
    the Functions.h of kernels/portable/functions.yaml as the suite wires a
    library in: FunctionHeaderWrapper.h including it, supported_features.h
    generated by the suite's own script (NOTES.md, "ExecuTorch's kernel test suite")."""
    include = tmp_path / "include"
    generate(include / "executorch/kernels/etsb", "--functions-yaml-path", OURS)
    suite = include / "executorch/kernels/test"
    suite.mkdir()
    (suite / "FunctionHeaderWrapper.h").write_text("#include <executorch/kernels/etsb/Functions.h>\n")
    features = subprocess.run([sys.executable, TREE / "kernels/test/gen_supported_features.py",
                               TREE / "kernels/test/supported_features.yaml"],
                              check=True, capture_output=True, text=True).stdout
    (suite / "supported_features.h").write_text(features)
    # The tree as `executorch/`, after the wheel's headers: the suite's helpers
    # (TestUtil.h, testing_util, test/utils) come from it, the runtime from the wheel.
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree/executorch").symlink_to(TREE)
    flags = [*cxx("-O0"), "-fsyntax-only", f"-I{include}", f"-I{tmp_path / 'tree'}"]

    def check(name: str) -> subprocess.CompletedProcess:
        return subprocess.run([*flags, str(TREE / "kernels/test" / name)], capture_output=True, text=True)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for name, result in zip(SUITE_FILES, pool.map(check, SUITE_FILES)):
            assert result.returncode == 0, (f"{name} ({SUITE_FILES[name]}); gtest/gmock headers come from "
                                            f"Debian's libgtest-dev, libgmock-dev (scripts/setup.sh):\n"
                                            f"{result.stderr[:4000]}")
