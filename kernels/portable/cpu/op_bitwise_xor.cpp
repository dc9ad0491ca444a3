// aten::bitwise_xor.Tensor_out and bitwise_xor.Scalar_out: out = self ^ other,
// elementwise.
#include "util/bitwise_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bitwise_xor.Tensor_out";  // the switch names
constexpr char kScalarName[] = "bitwise_xor.Scalar_out";
}  // namespace

/// out = self ^ other (for Bool: exclusive or) elementwise, broadcast, in their common dtype:
/// integral and Bool only (see bitwise_tensor_out).
Tensor& bitwise_xor_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::bitwise_tensor_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x ^ y; });
}

/// out = self ^ other for a Scalar other (see bitwise_scalar_out).
Tensor& bitwise_xor_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::bitwise_scalar_out<kScalarName>(ctx, self, other, out, [](auto x, auto y) { return x ^ y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
