// aten::bitwise_left_shift.Tensor_out and bitwise_left_shift.Tensor_Scalar_out:
// out = self shifted left by other bits, elementwise.
#include "util/bitwise_util.h"
#include "util/math_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bitwise_left_shift.Tensor_out";  // the switch names
constexpr char kScalarName[] = "bitwise_left_shift.Tensor_Scalar_out";
}  // namespace

/// out = self shifted left by other bits, broadcast, in their common dtype
/// (integral and Bool; see bitwise_tensor_out), with ATen's rule for counts
/// out of range (k::shift_left).
Tensor& bitwise_left_shift_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                                      Tensor& out) {
  return k::bitwise_tensor_out<kName>(ctx, self, other, out, [](auto x, auto y) { return k::shift_left(x, y); });
}

/// out = self shifted left by a Scalar count (see bitwise_scalar_out).
Tensor& bitwise_left_shift_Tensor_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                                             Tensor& out) {
  return k::bitwise_scalar_out<kScalarName>(ctx, self, other, out, [](auto x, auto y) { return k::shift_left(x, y); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
