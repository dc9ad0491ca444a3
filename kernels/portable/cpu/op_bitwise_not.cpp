// aten::bitwise_not.out: out = ~self (for Bool: not self), elementwise.
#include "util/unary_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bitwise_not.out";  // the switch name
}  // namespace

/// out = ~self in self's dtype, integral or Bool (logical negation); a
/// floating self fails the call, as ATen raises (see map_scalar_op_out).
Tensor& bitwise_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && !k::is_floating(self.scalar_type()),
                      InvalidArgument, out, "%s: integral or Bool self only", kName);
  return k::map_scalar_op_out<kName>(ctx, self, self.scalar_type(), out, [](auto tag) {
    using CT = decltype(tag);
    return [](CT x) -> CT {
      if constexpr (std::is_same<CT, bool>::value) {
        return !x;
      } else if constexpr (std::is_integral<CT>::value) {
        return static_cast<CT>(~x);
      } else {
        return x;  // never reached: floating dtypes are rejected first
      }
    };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
