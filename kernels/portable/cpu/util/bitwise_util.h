// The engine of the bitwise operators (bitwise_and, bitwise_or, bitwise_xor,
// bitwise_left_shift, bitwise_right_shift): a tensor with a tensor or with a
// Scalar, in ATen's result dtype, which must be integral or Bool.
#pragma once

#include "binary_op_util.h"
#include "unary_util.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// op(x, y) for integral and Bool T; x for floating types, which both
/// overloads reject before computing (the engines instantiate them anyway).
template <typename T, typename Op>
inline T integral_only(const Op& op, T x, T y) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<T>(op(x, y));
  } else {
    (void)op;
    (void)y;
    return x;
  }
}

/// out = op(self, other) elementwise, broadcast, in their common dtype:
/// integral and Bool only (see binary_op_out). op is generic over integral
/// and Bool types.
template <const char* Name, typename Op>
inline Tensor& bitwise_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out,
                                  const Op& op) {
  return binary_op_out<Name, BinaryResult::kCommon, BinaryTypes::kIntegral>(
      ctx, self, other, out, [&op](auto x, auto y) { return integral_only(op, x, y); });
}

/// out = op(self, other) for a Scalar other, in ATen's result dtype of self
/// with a Scalar (see map_scalar_op_out for the paths), which must be
/// integral or Bool: a floating self or Scalar fails the call, as ATen raises.
template <const char* Name, typename Op>
inline Tensor& bitwise_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out,
                                  const Op& op) {
  const ScalarType result = scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && !is_floating(result), InvalidArgument, out,
                      "%s: integral or Bool operands only", Name);
  return map_scalar_op_out<Name>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = scalar_to<CT>(other);
    return [s, &op](CT x) { return integral_only(op, x, s); };
  });
}

}  // namespace kernels
}  // namespace etsb
