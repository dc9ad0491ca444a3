// aten::abs.out: out = |self| elementwise; the magnitude of complex values.
#include "util/complex_util.h"
#include "util/unary_util.h"

#include <cmath>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "abs.out";  // the switch name

/// out = |self| for complex self into a floating out (ATen's result is the
/// real dtype of self's precision; any floating out may hold it), computed
/// in self's compute type.
Tensor& complex_abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(out.scalar_type()), InvalidArgument, out,
                      "%s: out of a complex self must be floating", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::same_dim_order(self, out), InvalidArgument, out, "%s: out must have self's dim order",
                      kName);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", kName);
  ET_SWITCH_COMPLEXH_TYPES(self.scalar_type(), ctx, kName, IN, [&]() {
    ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kName, OUT, [&]() {
      k::map_unary(self.const_data_ptr<IN>(), out.mutable_data_ptr<OUT>(), self.numel(), [](IN z) {
        const auto c = k::complex_cast<k::complex_compute_t<IN>>(z);
        return static_cast<OUT>(std::hypot(c.real(), c.imag()));
      });
    });
  });
  return out;
}

}  // namespace

/// out = |self|: real, Half and BFloat16 dtypes (not Bool) into out of self's
/// dtype (the most negative integer stays itself, as it wraps in ATen);
/// complex dtypes into a floating out.
Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  if (k::is_complex(self.scalar_type())) return complex_abs_out(ctx, self, out);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported",
                      kName);
  return k::map_scalar_op_out<kName>(ctx, self, self.scalar_type(), out, [](auto tag) {
    using T = decltype(tag);
    return [](T x) -> T {
      if constexpr (std::is_floating_point<T>::value) {
        return std::fabs(x);
      } else if constexpr (std::is_same<T, bool>::value) {
        return x;  // never reached: Bool is rejected first
      } else {
        return x < 0 ? k::wrapping_sub(T(0), x) : x;
      }
    };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
