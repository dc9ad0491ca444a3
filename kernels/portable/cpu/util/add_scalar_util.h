// The engine of add.Scalar_out and sub.Scalar_out (op_add_scalar.cpp,
// op_sub_scalar.cpp): out = self + sign * alpha * other with a Scalar other.
#pragma once

#include "unary_util.h"

namespace etsb {
namespace kernels {

/// out = self + sign * alpha * other in ATen's result dtype of self with
/// other; a floating alpha needs a floating result, a boolean one Bool.
template <const char* Name>
::executorch::aten::Tensor& add_scaled(torch::executor::KernelRuntimeContext& ctx,
                                       const ::executorch::aten::Tensor& self, const ::executorch::aten::Scalar& other,
                                       const ::executorch::aten::Scalar& alpha, int sign,
                                       ::executorch::aten::Tensor& out) {
  using ::executorch::aten::ScalarType;
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      Name);
  const ScalarType result = scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, alpha_fits(alpha, result), InvalidArgument, out,
                      "%s: alpha does not fit the result dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, sign > 0 || result != ScalarType::Bool, InvalidArgument, out,
                      "%s: subtraction of Bool values is not supported", Name);
  return map_scalar_op_out<Name>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    // other * alpha folded once; for integers in int64_t (wrapping), as ATen.
    const CT s = scalar_to<CT>(other);
    const CT a = scalar_to<CT>(alpha);
    const CT step = sign > 0 ? wrapping_mul(s, a) : wrapping_sub(CT(0), wrapping_mul(s, a));
    return [step](CT x) { return wrapping_add(x, step); };
  });
}

}  // namespace kernels
}  // namespace etsb
