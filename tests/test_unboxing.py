"""The generated unboxing code at run time, against the real runtime library.

A probe operator takes a tensor, an optional int, an int list and an optional
string. A C++ driver calls its generated wrapper (through the kernel table
that `probe_kernels()` returns) with well-formed stacks and with broken ones,
and prints what the kernel received or how the call failed: the context's
error and the runtime's log line, captured through the platform layer."""

from __future__ import annotations

import subprocess

import pytest

from selective_build.__main__ import main

from helpers import ET, cxx

pytestmark = pytest.mark.build

YAML = """\
- func: probe::probe.out(Tensor self, int? k, int[] dims, str? note, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: probe::probe_out
- func: probe::lists.out(Tensor[] tensors, Tensor?[] maybe, *, Tensor(a!) out) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: probe::lists_out
- func: probe::twice(Tensor self) -> Tensor
  kernels:
    - arg_meta: null
      kernel_name: probe::twice
- func: probe::bump_(Tensor(a!) self) -> Tensor(a!)
  kernels:
    - arg_meta: null
      kernel_name: probe::bump_in_place
"""

DRIVER = r"""
#include <cstdio>
#include <cstring>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/platform.h>
#include <executorch/runtime/platform/runtime.h>

#include "CustomOpsNativeFunctions.h"

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::BoxedEvalueList;
using executorch::runtime::EValue;
using executorch::runtime::Span;
using executorch::runtime::etensor::TensorImpl;

namespace etsb {
Span<const executorch::ET_RUNTIME_NAMESPACE::Kernel> probe_kernels();
}

namespace probe { namespace native {
Tensor& probe_out(torch::executor::KernelRuntimeContext&, const Tensor& self, std::optional<int64_t> k,
                  ArrayRef<int64_t> dims, std::optional<std::string_view> note, Tensor& out) {
  std::printf("kernel: self.numel=%d k=", int(self.numel()));
  if (k) std::printf("%lld", (long long)*k); else std::printf("none");
  std::printf(" dims=");
  for (size_t i = 0; i < dims.size(); ++i) std::printf("%s%lld", i ? "," : "", (long long)dims[i]);
  std::printf(" note=%s out.numel=%d\n", note ? std::string(*note).c_str() : "none", int(out.numel()));
  return out;
}
Tensor& lists_out(torch::executor::KernelRuntimeContext&, ArrayRef<Tensor> tensors,
                  ArrayRef<std::optional<Tensor>> maybe, Tensor& out) {
  std::printf("kernel: %d tensors, %d optional tensors\n", int(tensors.size()), int(maybe.size()));
  return out;
}
// A functional kernel's new tensor: here a static one, as a kernel has no allocator of its own.
Tensor twice(torch::executor::KernelRuntimeContext&, const Tensor& self) {
  static float data[3];
  static TensorImpl::SizesType sizes[1] = {3};
  static TensorImpl::DimOrderType dim_order[1] = {0};
  static TensorImpl impl(ScalarType::Float, 1, sizes, data, dim_order);
  for (int i = 0; i < 3; ++i) data[i] = 2 * self.const_data_ptr<float>()[i];
  return Tensor(&impl);
}
Tensor& bump_in_place(torch::executor::KernelRuntimeContext&, Tensor& self) {
  self.mutable_data_ptr<float>()[0] += 1;
  return self;
}
}}  // namespace probe::native

static void log_line(et_timestamp_t, et_pal_log_level_t,
                     const char*, const char*, size_t, const char* message, size_t length) {
  std::printf("log: %.*s\n", int(length), message);
}

static void call(const char* label, EValue** values, size_t count, const char* op = "probe::probe.out") {
  executorch::runtime::KernelRuntimeContext ctx;
  std::printf("== %s\n", label);
  for (const auto& kernel : etsb::probe_kernels()) {
    if (std::strcmp(kernel.name_, op) == 0)
      kernel.op_(ctx, Span<EValue*>(values, count));
  }
  std::printf("error: %d\n", int(ctx.failure_state()));
}

static void print_result(const EValue& result) {
  if (!result.isTensor()) {
    std::printf("result: not a tensor\n");
    return;
  }
  const float* values = result.toTensor().const_data_ptr<float>();
  std::printf("result: %g %g %g\n", values[0], values[1], values[2]);
}

int main() {
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(log_line, __FILE__));
  executorch::runtime::runtime_init();
  float data[3] = {1, 2, 3};
  TensorImpl::SizesType sizes[1] = {3};
  TensorImpl::DimOrderType dim_order[1] = {0};
  TensorImpl impl(ScalarType::Float, 1, sizes, data, dim_order);
  EValue self{Tensor(&impl)}, out{Tensor(&impl)};
  EValue none, k{int64_t(7)}, wrong_k{2.5};
  EValue d0{int64_t(1)}, d1{int64_t(2)}, bad_element{true};
  EValue* good_dims[2] = {&d0, &d1};
  EValue* bad_dims[2] = {&d0, &bad_element};
  int64_t unwrapped[2];
  BoxedEvalueList<int64_t> good_list(good_dims, unwrapped, 2), bad_list(bad_dims, unwrapped, 2);
  EValue dims{&good_list}, broken_dims{&bad_list};
  char text[] = "hi";
  ArrayRef<char> chars(text, 2);
  EValue note{&chars};

  EValue* full[] = {&self, &k, &dims, &note, &out, &out};
  call("every argument", full, 6);
  EValue* nones[] = {&self, &none, &dims, &none, &out, &out};
  call("optionals absent", nones, 6);
  call("short stack", full, 5);
  EValue* wrong[] = {&self, &wrong_k, &dims, &note, &out, &out};
  call("double for int?", wrong, 6);
  EValue* not_tensor[] = {&k, &k, &dims, &note, &out, &out};
  call("int for Tensor", not_tensor, 6);
  EValue* bad_list_stack[] = {&self, &k, &broken_dims, &note, &out, &out};
  call("bool in int[]", bad_list_stack, 6);

  // Tensors whose data is not there: a kernel must not be handed them.
  TensorImpl no_data_impl(ScalarType::Float, 1, sizes, nullptr, dim_order);
  TensorImpl::SizesType no_sizes[1] = {0};
  TensorImpl empty_impl(ScalarType::Float, 1, no_sizes, nullptr, dim_order);
  EValue no_data{Tensor(&no_data_impl)}, empty{Tensor(&empty_impl)};
  EValue* no_data_stack[] = {&no_data, &k, &dims, &note, &out, &out};
  call("tensor without data", no_data_stack, 6);
  EValue* no_data_out[] = {&self, &k, &dims, &note, &no_data, &no_data};
  call("out without data", no_data_out, 6);
  EValue* empty_stack[] = {&empty, &k, &dims, &note, &out, &out};
  call("empty tensor without data", empty_stack, 6);
  alignas(8) char bytes[32] = {};
  TensorImpl misaligned_impl(ScalarType::Float, 1, sizes, bytes + 2, dim_order);
  EValue misaligned{Tensor(&misaligned_impl)};
  EValue* misaligned_stack[] = {&misaligned, &k, &dims, &note, &out, &out};
  call("misaligned tensor", misaligned_stack, 6);
  // Alignment by element type: a Double's 8 bytes, a ComplexFloat's part's 4.
  alignas(16) char wide[64] = {};
  TensorImpl double_impl(ScalarType::Double, 1, sizes, wide + 4, dim_order);
  TensorImpl complex_impl(ScalarType::ComplexFloat, 1, sizes, wide + 4, dim_order);
  EValue misaligned_double{Tensor(&double_impl)}, complex_at_part{Tensor(&complex_impl)};
  EValue* double_stack[] = {&misaligned_double, &k, &dims, &note, &out, &out};
  call("double at 4 bytes", double_stack, 6);
  EValue* complex_stack[] = {&complex_at_part, &k, &dims, &note, &out, &out};
  call("complex float at 4 bytes", complex_stack, 6);

  EValue* good_tensors[2] = {&self, &out};
  EValue* bad_tensors[2] = {&self, &no_data};
  Tensor unwrapped_tensors[2] = {Tensor(&impl), Tensor(&impl)};
  BoxedEvalueList<Tensor> good_tensor_list(good_tensors, unwrapped_tensors, 2);
  BoxedEvalueList<Tensor> bad_tensor_list(bad_tensors, unwrapped_tensors, 2);
  EValue* maybe_good[2] = {&none, &self};
  EValue* maybe_bad[2] = {&none, &no_data};
  std::optional<Tensor> unwrapped_maybe[2];
  BoxedEvalueList<std::optional<Tensor>> good_maybe(maybe_good, unwrapped_maybe, 2);
  BoxedEvalueList<std::optional<Tensor>> bad_maybe(maybe_bad, unwrapped_maybe, 2);
  EValue tensors{&good_tensor_list}, broken_tensors{&bad_tensor_list}, maybe{&good_maybe}, broken_maybe{&bad_maybe};
  EValue* lists[] = {&tensors, &maybe, &out, &out};
  call("tensor lists", lists, 4, "probe::lists.out");
  EValue* lists_bad[] = {&broken_tensors, &maybe, &out, &out};
  call("tensor list with a tensor without data", lists_bad, 4, "probe::lists.out");
  EValue* maybe_bad_stack[] = {&tensors, &broken_maybe, &out, &out};
  call("optional tensor list with a tensor without data", maybe_bad_stack, 4, "probe::lists.out");

  // A functional and an in-place operator: the result goes to the value after the arguments.
  EValue result;
  EValue* functional[] = {&self, &result};
  call("functional result", functional, 2, "probe::twice");
  print_result(result);
  EValue bumped;
  EValue* in_place[] = {&self, &bumped};
  call("in-place result", in_place, 2, "probe::bump_");
  print_result(bumped);
  return 0;
}
"""


@pytest.fixture(scope="module", params=["-O1", "-Os"])
def transcript(request, tmp_path_factory) -> dict[str, list[str]]:
    """The driver's output, split by case: each case's lines after its '== label'. Compiled
    both ways: with the in-line checks of each signature, and for size (the tables alone)."""
    tmp = tmp_path_factory.mktemp("unboxing")
    (tmp / "probe.yaml").write_text(YAML)
    assert main(["gen-bindings", "--custom-ops-yaml-path", str(tmp / "probe.yaml"), "--output-dir", str(tmp),
                 "--lib-name", "probe", "--manual-registration"]) == 0
    (tmp / "driver.cpp").write_text(DRIVER)
    binary = tmp / "driver"
    subprocess.run([*cxx(request.param), f"-I{tmp}", str(tmp / "driver.cpp"), str(tmp / "register_kernels.cpp"), "-o", str(binary),
                    f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}"], check=True)
    output = subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout
    cases: dict[str, list[str]] = {}
    for line in output.splitlines():
        if line.startswith("== "):
            current = cases.setdefault(line[3:], [])
        elif cases:
            current.append(line)
    return cases


def test_a_functional_operators_result_reaches_the_stack(transcript):
    """As ExecuTorch's codegen does: the returned tensor is written to the value after the arguments."""
    assert transcript["functional result"] == ["error: 0", "result: 2 4 6"]


def test_an_in_place_operators_result_is_its_written_argument(transcript):
    assert transcript["in-place result"] == ["error: 0", "result: 2 2 3"]


def test_every_argument_reaches_the_kernel(transcript):
    assert transcript["every argument"] == ["kernel: self.numel=3 k=7 dims=1,2 note=hi out.numel=3", "error: 0"]


def test_absent_optionals_reach_the_kernel_as_nullopt(transcript):
    assert transcript["optionals absent"] == ["kernel: self.numel=3 k=none dims=1,2 note=none out.numel=3",
                                              "error: 0"]


def test_wrong_stack_size_fails_as_invalid_program(transcript):
    assert transcript["short stack"] == ["log: probe::probe.out: expected 6 values on the stack, got 5",
                                         "error: 35"]


@pytest.mark.parametrize("case, message", [
    ("double for int?", "log: probe::probe.out: argument 'k' must be int?, got Double"),
    ("int for Tensor", "log: probe::probe.out: argument 'self' must be Tensor, got Int"),
])
def test_wrong_argument_type_fails_as_invalid_argument_without_calling_the_kernel(transcript, case, message):
    assert transcript[case] == [message, "error: 18"]


def test_a_list_with_a_wrong_element_fails_without_calling_the_kernel(transcript):
    assert transcript["bool in int[]"] == [
        "log: probe::probe.out: argument 'dims' (int[]) has no data, misaligned data, or an element of the wrong type",
        "error: 35"]


@pytest.mark.parametrize("case, message", [
    ("tensor without data", "probe::probe.out: argument 'self' (Tensor) has no data"),
    ("out without data", "probe::probe.out: argument 'out' (Tensor) has no data"),
    ("misaligned tensor", "probe::probe.out: argument 'self' (Tensor) has no data"),
    ("double at 4 bytes", "probe::probe.out: argument 'self' (Tensor) has no data"),
    ("tensor list with a tensor without data", "probe::lists.out: argument 'tensors' (Tensor[]) has no data"),
    ("optional tensor list with a tensor without data",
     "probe::lists.out: argument 'maybe' (Tensor?[]) has no data"),
])
def test_a_tensor_without_data_fails_without_calling_the_kernel(transcript, case, message):
    """A corrupt program can leave any tensor's data unset or misaligned: the
    kernel is never handed one it would read through a null or misaligned pointer."""
    assert transcript[case] == [f"log: {message}, misaligned data, or an element of the wrong type", "error: 35"]


def test_a_complex_tensor_needs_only_its_parts_alignment(transcript):
    assert transcript["complex float at 4 bytes"] == ["kernel: self.numel=3 k=7 dims=1,2 note=hi out.numel=3",
                                                      "error: 0"]


def test_empty_tensors_and_tensor_lists_with_data_reach_the_kernel(transcript):
    assert transcript["empty tensor without data"] == ["kernel: self.numel=0 k=7 dims=1,2 note=hi out.numel=3",
                                                       "error: 0"]
    assert transcript["tensor lists"] == ["kernel: 2 tensors, 2 optional tensors", "error: 0"]
