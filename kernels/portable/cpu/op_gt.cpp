// aten::gt.Scalar_out and gt.Tensor_out: out = self > other, elementwise.
#include "util/binary_op_util.h"
#include "util/compare_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "gt.Scalar_out";  // the switch names
constexpr char kTensorName[] = "gt.Tensor_out";
}  // namespace

/// out = whether each element of self is greater than other (see
/// compare_scalar_out for dtypes and the type compared in).
Tensor& gt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::compare_scalar_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x > y; });
}

/// out = whether each element of self is greater than the matching element of
/// other, with broadcasting, compared in ATen's common dtype (see
/// binary_op_out for dtypes and paths).
Tensor& gt_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::binary_op_out<kTensorName, k::BinaryResult::kTruth>(ctx, self, other, out,
                                                                [](auto x, auto y) { return x > y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
