// aten::rsub.Scalar_out: out = other - alpha * self, with a Scalar `other`.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

using ::executorch::aten::ScalarType;

namespace {
constexpr char kName[] = "rsub.Scalar_out";  // the switch name
}  // namespace

/// out = other - alpha * self in ATen's result dtype of self with other,
/// which out must have (see map_scalar_op_out); integers wrap. Not for Bool;
/// a floating alpha needs a floating result.
Tensor& rsub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                        Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      kName);
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, result != ScalarType::Bool && !alpha.isBoolean(), InvalidArgument, out,
                      "%s: subtraction of Bool values is not supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == result, InvalidArgument, out, "%s: out must have the result dtype (%s)",
                      kName, ::executorch::runtime::toString(result));
  ET_KERNEL_CHECK_MSG(ctx, k::alpha_fits(alpha, result), InvalidArgument, out,
                      "%s: alpha does not fit the result dtype", kName);
  return k::map_scalar_op_out<kName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = k::scalar_to<CT>(other);
    const CT a = k::scalar_to<CT>(alpha);
    return [s, a](CT x) { return k::wrapping_sub(s, k::wrapping_mul(a, x)); };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
