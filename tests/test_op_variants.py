"""`etsb gen-op-variants`: the dtype predicate, and that it makes the compiler
drop the switch cases a selection does not use."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO
from helpers import ET, cxx
from selective_build.__main__ import main

CXX = cxx("-O2")


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
    # A switch named after no selected operator (ExecuTorch's shared patterns, __func__) keeps every dtype.
    assert "  return true;  // a switch named after no selected operator" in header


def test_a_selection_of_every_operator_keeps_every_dtype(tmp_path):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--include_all_operators"]) == 0
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--output-dir", str(tmp_path)]) == 0
    assert "  return true;  // every operator is selected" in (tmp_path / "selected_op_variants.h").read_text()


@pytest.mark.build
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


def mixed_predicate(header: str) -> dict[str, str]:
    """etsb_selects_mixed_dtypes's answer per switch name, and its default under '*'."""
    body = header.split("etsb_selects_mixed_dtypes(const char* operator_name,", 1)[1].split("\n}\n", 1)[0]
    answers = dict(re.findall(r'same_name\(operator_name, "([^"]+)"\)\) \{\n    return ([^;]+);', body))
    answers["*"] = re.search(r"\n  return ([^;]+);", body).group(1)
    return answers


def variants_header(tmp_path: Path, *source: str) -> str:
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), *source]) == 0
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--output-dir", str(tmp_path)]) == 0
    return (tmp_path / "selected_op_variants.h").read_text()


def test_mixed_dtype_predicate_follows_the_keys(tmp_path):
    answers = mixed_predicate(variants_header(tmp_path, "--model_file_path",
                                              str(MODELS_DIR / "mixed_dtypes/mixed_dtypes.pte")))
    # add is called on Float tensors and on Long ones, never on both at once;
    # where's Bool condition (tensor 0) meets Float values that never mix;
    # sum(dtype=Double) reads Float into a Double out.
    assert answers["add.out"] == "false"
    assert answers["where.self_out"] == "first_tensor < 1"
    assert answers["sum.IntList_out"] == "first_tensor < 1"
    assert answers["*"] == "false"


@pytest.mark.parametrize("ops_dict, expected", [
    ('{"aten::add.out": ["Float"]}', "false"),
    ('{"aten::add.out": ["Float", "Long"]}', "true"),  # dtype names say nothing about pairs
    ('{"aten::add.out": ["v1/6;0|6;0|6;0", "v1/4;0|4;0|4;0"]}', "false"),
    ('{"aten::add.out": ["v1/6;0|7;0|7;0"]}', "first_tensor < 1"),
    ('{"aten::add.out": ["v1/6;0|6;0|7;0", "v1/6;0|7;0|7;0"]}', "first_tensor < 2"),
    ('{"aten::add.out": []}', "true"),  # every dtype
])
def test_mixed_dtype_predicate_for_ops_dicts(tmp_path, ops_dict, expected):
    assert mixed_predicate(variants_header(tmp_path, "--ops_dict", ops_dict))["add.out"] == expected


def test_every_operator_selected_may_mix(tmp_path):
    assert mixed_predicate(variants_header(tmp_path, "--include_all_operators"))["*"] == "true"


ADD_DRIVER = r"""
#include <cstdio>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/runtime.h>

using executorch::aten::Scalar;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::etensor::TensorImpl;

namespace torch { namespace executor { namespace native {
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
}}}

int main() {
  executorch::runtime::runtime_init();
  TensorImpl::SizesType sizes[1] = {2};
  TensorImpl::DimOrderType order[1] = {0};
  float a[2] = {1.5f, 2.5f};
  double b[2] = {0.25, 0.5}, out[2] = {0, 0};
  TensorImpl ta(ScalarType::Float, 1, sizes, a, order), tb(ScalarType::Double, 1, sizes, b, order),
      tout(ScalarType::Double, 1, sizes, out, order);
  Tensor self(&ta), other(&tb), result(&tout);
  torch::executor::KernelRuntimeContext ctx;
  torch::executor::native::add_out(ctx, self, other, Scalar(int64_t(1)), result);
  std::printf("%d %g %g\n", int(ctx.failure_state()), out[0], out[1]);
  return 0;
}
"""


@pytest.mark.build
def test_a_kernel_drops_its_mixed_path_where_no_call_mixes(tmp_path):
    """op_add.cpp built for Float+Double calls adds them; built for Float-only
    calls its mixed-dtype path is not compiled (smaller object) and a Float+Double
    call fails through the context with InvalidArgument instead of aborting."""
    source = REPO / "kernels/portable/cpu/op_add.cpp"
    (tmp_path / "driver.cpp").write_text(ADD_DRIVER)
    outputs, sizes = {}, {}
    for name, key in (("mixed", "v1/6;0|7;0|7;0"), ("float", "v1/6;0|6;0|6;0")):
        work = tmp_path / name
        work.mkdir()
        variants_header(work, "--ops_dict", f'{{"aten::add.out": ["{key}"]}}')
        header = ["-include", str(work / "selected_op_variants.h")]
        subprocess.run([*CXX, *header, "-c", str(source), "-o", str(work / "add.o")], check=True)
        subprocess.run([*CXX, str(tmp_path / "driver.cpp"), str(work / "add.o"), "-o", str(work / "driver"),
                        f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}"], check=True)
        run = subprocess.run([str(work / "driver")], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outputs[name], sizes[name] = run.stdout.split(), text_size(work / "add.o")
    assert outputs["mixed"] == ["0", "1.75", "3"]
    assert outputs["float"][0] == "18"  # Error::InvalidArgument
    assert sizes["float"] < 0.8 * sizes["mixed"]


def test_switch_names_other_than_the_operators_allow_what_their_operators_allow(tmp_path):
    """ExecuTorch names some switches after a function or a pattern: kernel-sources lists them,
    and each is checked by name like an operator, allowing its operators' dtypes together."""
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--ops_dict",
                 '{"aten::neg.out": ["Float"], "aten::relu.out": ["Long"], '
                 '"dim_order_ops::_to_dim_order_copy.out": ["Float"]}']) == 0
    names = tmp_path / "switch_names.txt"
    names.write_text("unary_pattern aten::neg.out aten::relu.out\nneg.out aten::neg.out\n"
                     "unused_name aten::mm.out\n")
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--switch-names", str(names),
                 "--output-dir", str(tmp_path)]) == 0
    header = (tmp_path / "selected_op_variants.h").read_text()
    assert ('if (same_name(operator_name, "unary_pattern")) {\n'
            "    return scalar_type == ScalarType::Float || scalar_type == ScalarType::Long;") in header
    # The operator's own name is not repeated (once in each of the two predicates).
    assert header.count('same_name(operator_name, "neg.out")') == 2
    assert "unused_name" not in header  # its operator is not selected
    assert 'if (same_name(operator_name, "dim_order_ops::_to_dim_order_copy.out")) {' in header
    # The comparison is the compiler's strcmp, which it folds for known strings.
    assert "__builtin_strcmp" in header


def test_a_bad_switch_names_file_is_a_located_error(tmp_path, capsys):
    selection = tmp_path / "s.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--root_ops", "aten::neg.out"]) == 0
    names = tmp_path / "names.txt"
    names.write_text("ok aten::neg.out\nlonely\n")
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--switch-names", str(names),
                 "--output-dir", str(tmp_path / "o")]) == 2
    names.write_text("x bad!name\n")
    assert main(["gen-op-variants", "--yaml-file-path", str(selection), "--switch-names", str(names),
                 "--output-dir", str(tmp_path / "o")]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert errors[0] == f"{names}:2: error: expected a switch name and the operators that may run it"
    assert errors[1].startswith(f"{names}:1: error:")
    assert not (tmp_path / "o").exists()


PERMUTE_DRIVER = r"""
#include <cstdint>
#include <cstdio>

#include <executorch/runtime/kernel/kernel_includes.h>
#include <executorch/runtime/platform/runtime.h>

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::etensor::TensorImpl;

namespace torch { namespace executor { namespace native {
Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out);
}}}

// A 2x3 tensor of T transposed: the context's error, then the 6 values.
template <typename T>
void transpose(ScalarType dtype) {
  TensorImpl::SizesType in_sizes[2] = {2, 3}, out_sizes[2] = {3, 2};
  TensorImpl::DimOrderType order[2] = {0, 1};
  T in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0, 0, 0, 0, 0, 0};
  TensorImpl tin(dtype, 2, in_sizes, in, order), tout(dtype, 2, out_sizes, out, order);
  Tensor self(&tin), result(&tout);
  const int64_t dims[2] = {1, 0};
  torch::executor::KernelRuntimeContext ctx;
  torch::executor::native::permute_copy_out(ctx, self, ArrayRef<int64_t>(dims, 2), result);
  std::printf("%d", int(ctx.failure_state()));
  for (T v : out) std::printf(" %d", int(v));
  std::printf("\n");
}

int main() {
  executorch::runtime::runtime_init();
  transpose<float>(ScalarType::Float);
  transpose<int64_t>(ScalarType::Long);
  return 0;
}
"""


@pytest.mark.build
def test_a_kernel_moving_elements_keeps_only_the_selected_widths(tmp_path):
    """op_permute_copy.cpp moves elements by width (1, 2, 4, 8 bytes): built
    for Float and Long calls it transposes both; built for Float calls alone it
    keeps the 4-byte path only (a smaller object), and a Long tensor fails the
    call through the context with InvalidArgument, its output untouched."""
    source = REPO / "kernels/portable/cpu/op_permute_copy.cpp"
    (tmp_path / "driver.cpp").write_text(PERMUTE_DRIVER)
    outputs, sizes = {}, {}
    for name, keys in (("both", ["v1/6;0,1|6;0,1|6;0,1", "v1/4;0,1|4;0,1|4;0,1"]),
                       ("float", ["v1/6;0,1|6;0,1|6;0,1"])):
        work = tmp_path / name
        work.mkdir()
        variants_header(work, "--ops_dict", json.dumps({"aten::permute_copy.out": keys}))
        header = ["-include", str(work / "selected_op_variants.h")]
        subprocess.run([*CXX, *header, "-c", str(source), "-o", str(work / "permute.o")], check=True)
        subprocess.run([*CXX, str(tmp_path / "driver.cpp"), str(work / "permute.o"), "-o", str(work / "driver"),
                        f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}"], check=True)
        run = subprocess.run([str(work / "driver")], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outputs[name], sizes[name] = run.stdout.splitlines(), text_size(work / "permute.o")
    transposed = "0 1 4 2 5 3 6"
    assert outputs["both"] == [transposed, transposed]
    assert outputs["float"] == [transposed, "18 0 0 0 0 0 0"]  # Error::InvalidArgument
    assert sizes["float"] < 0.85 * sizes["both"], sizes  # measured 5,511 and 6,883 bytes of text
