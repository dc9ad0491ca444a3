// aten::leaky_relu.out and elu.out: piecewise activations of floating tensors.
#include "util/scalar_fits.h"
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kLeakyName[] = "leaky_relu.out";  // the switch names
constexpr char kEluName[] = "elu.out";
}  // namespace

/// out = self where positive, negative_slope * self elsewhere; floating
/// dtypes, out the same; negative_slope must fit the dtype (scalar_fits).
Tensor& leaky_relu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& negative_slope, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "%s: self must be floating, out of its dtype", kLeakyName);
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(negative_slope, self.scalar_type()), InvalidArgument, out,
                      "%s: negative_slope is out of range for %s", kLeakyName,
                      ::executorch::runtime::toString(self.scalar_type()));
  const double slope = k::scalar_to<double>(negative_slope);
  return k::float_unary_out<kLeakyName>(ctx, self, out, [slope](auto x) {
    using T = decltype(x);
    return x > T(0) ? x : x * static_cast<T>(slope);
  });
}

/// out = scale * self where positive, scale * alpha * (exp(self *
/// input_scale) - 1) elsewhere; floating dtypes, out of self's dtype.
Tensor& elu_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& alpha, const Scalar& scale,
                const Scalar& input_scale, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "%s: self must be floating, out of its dtype", kEluName);
  const double a = k::scalar_to<double>(alpha);
  const double s = k::scalar_to<double>(scale);
  const double in = k::scalar_to<double>(input_scale);
  return k::float_unary_out<kEluName>(ctx, self, out, [a, s, in](auto x) {
    using T = decltype(x);
    return x > T(0) ? x * static_cast<T>(s)
                    : std::expm1(x * static_cast<T>(in)) * static_cast<T>(a) * static_cast<T>(s);
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
