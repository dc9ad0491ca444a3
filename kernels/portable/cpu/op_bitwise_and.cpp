// aten::bitwise_and.Tensor_out and bitwise_and.Scalar_out: out = self & other,
// elementwise.
#include "util/binary_op_util.h"
#include "util/unary_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bitwise_and.Tensor_out";  // the switch names
constexpr char kScalarName[] = "bitwise_and.Scalar_out";

/// x & y for integral and Bool values; floating ones never get here (both
/// overloads reject a floating result first), but the engines instantiate it.
template <typename T>
T bit_and(T x, T y) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(x & y);
  } else {
    return x;
  }
}
}  // namespace

/// out = self & other elementwise, broadcast, in their common dtype:
/// integral and Bool only (see binary_op_out).
Tensor& bitwise_and_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::binary_op_out<kName, k::BinaryResult::kCommon, k::BinaryTypes::kIntegral>(
      ctx, self, other, out, [](auto x, auto y) { return bit_and(x, y); });
}

/// out = self & other for a Scalar other, in ATen's result dtype of self
/// with a Scalar (see map_scalar_op_out for the paths), which must be
/// integral or Bool: a floating self or Scalar fails the call, as ATen raises.
Tensor& bitwise_and_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && !k::is_floating(result), InvalidArgument, out,
                      "%s: integral or Bool operands only", kScalarName);
  return k::map_scalar_op_out<kScalarName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = k::scalar_to<CT>(other);
    return [s](CT x) { return bit_and(x, s); };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
