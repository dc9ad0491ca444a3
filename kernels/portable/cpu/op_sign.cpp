// aten::sign.out: out = -1, 0 or 1 by the sign of self, elementwise.
#include "util/math_util.h"
#include "util/unary_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "sign.out";  // the switch name
}  // namespace

/// out = sign(self) in self's dtype: -1, 0 or 1; -0.0 and 0.0 stay
/// themselves, a Bool is its own sign, and NaN stays NaN (as in ExecuTorch's
/// kernel test suite; ATen gives 0). Real, Bool, Half and BFloat16 dtypes
/// (see map_scalar_op_out).
Tensor& sign_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::map_scalar_op_out<kName>(ctx, self, self.scalar_type(), out, [](auto tag) {
    using CT = decltype(tag);
    return [](CT x) -> CT {
      if constexpr (std::is_same<CT, bool>::value) {
        return x;
      } else {
        if (k::is_nan(x) || x == CT(0)) return x;
        return x > CT(0) ? CT(1) : CT(-1);
      }
    };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
