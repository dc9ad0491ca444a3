// aten::abs.out: out = |self| elementwise.
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
}  // namespace

/// out = |self|: real, Half and BFloat16 dtypes (not Bool) into out of self's
/// dtype (the most negative integer stays itself, as it wraps in ATen).
Tensor& abs_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
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
