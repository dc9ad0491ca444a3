// aten::add.Scalar_out and sub.Scalar_out: out = self +/- alpha * other, with
// a Scalar `other`.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kAddName[] = "add.Scalar_out";  // the switch names
constexpr char kSubName[] = "sub.Scalar_out";

/// out = self + sign * alpha * other in ATen's result dtype of self with
/// other; a floating alpha needs a floating result, a boolean one Bool.
template <const char* Name>
Tensor& add_scaled(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                   int sign, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      Name);
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, k::alpha_fits(alpha, result), InvalidArgument, out,
                      "%s: alpha does not fit the result dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, sign > 0 || result != ScalarType::Bool, InvalidArgument, out,
                      "%s: subtraction of Bool values is not supported", Name);
  return k::map_scalar_op_out<Name>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    // other * alpha folded once; for integers in int64_t (wrapping), as ATen.
    const CT s = k::scalar_to<CT>(other);
    const CT a = k::scalar_to<CT>(alpha);
    const CT step = sign > 0 ? k::wrapping_mul(s, a) : k::wrapping_sub(CT(0), k::wrapping_mul(s, a));
    return [step](CT x) { return k::wrapping_add(x, step); };
  });
}

}  // namespace

/// out = self + alpha * other (see map_scalar_op_out for dtypes and paths).
Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                       Tensor& out) {
  return add_scaled<kAddName>(ctx, self, other, alpha, 1, out);
}

/// out = self - alpha * other (see map_scalar_op_out; not for Bool).
Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                       Tensor& out) {
  return add_scaled<kSubName>(ctx, self, other, alpha, -1, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
