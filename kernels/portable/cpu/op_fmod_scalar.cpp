// aten::fmod.Scalar_out: out = the remainder of self / other, with the sign
// of self (C's fmod and %).
#include "util/unary_util.h"

#include <cmath>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "fmod.Scalar_out";  // the switch name
}  // namespace

/// out = fmod(self, other) in ATen's result dtype of self with a Scalar:
/// std::fmod for floating results, the truncating remainder for integers,
/// where a zero divisor fails the call (ATen raises). Not for Bool.
Tensor& fmod_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, result != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(result) || k::scalar_to<int64_t>(other) != 0, InvalidArgument, out,
                      "%s: integer division by zero", kName);
  return k::map_scalar_op_out<kName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = k::scalar_to<CT>(other);
    return [s](CT x) -> CT {
      if constexpr (std::is_floating_point<CT>::value) {
        return std::fmod(x, s);
      } else if constexpr (std::is_same<CT, bool>::value) {
        return x;  // unreachable: Bool is rejected above
      } else {
        // -1 divides everything; x % -1 overflows for the most negative x.
        return s == static_cast<CT>(-1) ? CT(0) : static_cast<CT>(x % s);
      }
    };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
