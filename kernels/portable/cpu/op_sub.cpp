// aten::sub.out: out = self - alpha * other, elementwise with broadcasting.
#include "util/binary_op_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "sub.out";
}  // namespace

namespace {

/// The elementwise function for compute type CT. alpha is converted once;
/// multiplying by an alpha of 1 is exact, so `x - y` needs no loop of its own.
template <typename CT>
auto sub_fn(const Scalar& alpha) {
  const CT a = k::scalar_to<CT>(alpha);
  return [a](CT x, CT y) { return k::wrapping_sub(x, k::wrapping_mul(a, y)); };
}

}  // namespace

/// out = self - alpha * other. Real dtypes (Half and BFloat16 through the
/// mixed path); Bool operands are rejected as in ATen. ATen type promotion,
/// broadcasting, out resized to the broadcast shape; a floating alpha needs a
/// floating result.
Tensor& sub_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                Tensor& out) {
  ScalarType result;
  if (!k::prepare_binary(ctx, kName, self, other, out, &result)) return out;
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool && other.scalar_type() != ScalarType::Bool,
                      InvalidArgument, out, "sub.out: subtraction of Bool tensors is not supported");
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::alpha_fits(alpha, result), InvalidArgument, out);
  if (k::same_reduced_float(self, other, out)) {  // Half, BFloat16: computed in float
    k::binary_reduced_float<kName>(ctx, self, other, out, sub_fn<float>(alpha));
    return out;
  }
  if (k::same_real_dtype(self, other, out)) {
    ET_SWITCH_REAL_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
      k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, sub_fn<CTYPE>(alpha));
    });
    return out;
  }
  k::with_compute_type<kName>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    k::binary_mixed<CT, kName>(ctx, self, other, out, sub_fn<CT>(alpha));
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
