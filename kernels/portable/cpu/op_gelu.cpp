// aten::gelu.out: out = self * Phi(self), the Gaussian error linear unit.
#include "util/fast_math.h"
#include "util/unary_util.h"

#include <cmath>
#include <limits>
#include <string_view>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "gelu.out";  // the switch name
}  // namespace

/// out = x * Phi(x) with Phi the standard normal CDF: exactly, through erf,
/// for approximate = "none"; with ATen's tanh formula for "tanh". Floating
/// dtypes (Half and BFloat16 computing in float); out has self's dtype.
/// Both give the limits at the infinities (-inf -> 0, +inf -> +inf), as
/// ExecuTorch's portable kernel does, where the formulas give -inf * 0 (NaN).
Tensor& gelu_out(KernelRuntimeContext& ctx, const Tensor& self, std::string_view approximate, Tensor& out) {
  const bool tanh = approximate == "tanh";
  ET_KERNEL_CHECK_MSG(ctx, tanh || approximate == "none", InvalidArgument, out,
                      "gelu.out: approximate must be 'none' or 'tanh'");
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "gelu.out: self must be floating, out of its dtype");
  if (tanh) {
    return k::float_unary_out<kName>(ctx, self, out, [](auto x) {
      using T = decltype(x);
      const T inner = static_cast<T>(0.7978845608028654) * (x + static_cast<T>(0.044715) * x * x * x);
      const T y = static_cast<T>(0.5) * x * (static_cast<T>(1) + std::tanh(inner));
      return x == -std::numeric_limits<T>::infinity() ? static_cast<T>(0) : y;
    }, k::gelu_tanh_f32);
  }
  return k::float_unary_out<kName>(ctx, self, out, [](auto x) {
    using T = decltype(x);
    const T y = static_cast<T>(0.5) * x * (static_cast<T>(1) + k::fast_erf(x * static_cast<T>(0.7071067811865476)));
    return x == -std::numeric_limits<T>::infinity() ? static_cast<T>(0) : y;
  }, k::gelu_erf_f32);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
