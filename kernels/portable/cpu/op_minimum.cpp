// aten::minimum.out and maximum.out: elementwise min and max of two tensors.
#include "util/binary_op_util.h"
#include "util/math_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kMinName[] = "minimum.out";  // the switch names
constexpr char kMaxName[] = "maximum.out";
}  // namespace

/// out = the smaller of self and other elementwise, broadcast, in their
/// common dtype; NaN propagates (see binary_op_out for dtypes and paths).
Tensor& minimum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::binary_op_out<kMinName, k::BinaryResult::kCommon>(ctx, self, other, out,
                                                              [](auto x, auto y) { return k::nan_minimum(x, y); });
}

/// out = the larger of self and other elementwise (as minimum_out).
Tensor& maximum_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::binary_op_out<kMaxName, k::BinaryResult::kCommon>(ctx, self, other, out,
                                                              [](auto x, auto y) { return k::nan_maximum(x, y); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
