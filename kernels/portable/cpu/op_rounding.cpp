// aten::floor.out, ceil.out, round.out, trunc.out: elementwise, keeping self's dtype
// (integers pass unchanged).
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

constexpr char kFloorName[] = "floor.out";  // the switch names
constexpr char kCeilName[] = "ceil.out";
constexpr char kRoundName[] = "round.out";
constexpr char kTruncName[] = "trunc.out";

/// out = fn(self) in self's dtype, real, Half or BFloat16 (not Bool); fn is
/// applied to floating values only (integers are already whole).
template <const char* Name, typename Fn>
Tensor& same_dtype_map(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const Fn& fn) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported",
                      Name);
  return k::map_scalar_op_out<Name>(ctx, self, self.scalar_type(), out, [&fn](auto tag) {
    using CT = decltype(tag);
    return [&fn](CT x) -> CT {
      if constexpr (!std::is_floating_point<CT>::value) {
        return x;
      } else {
        return fn(x);
      }
    };
  });
}

}  // namespace

/// out = the largest integer value not above self.
Tensor& floor_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_map<kFloorName>(ctx, self, out, [](auto x) { return std::floor(x); });
}

/// out = the smallest integer value not below self.
Tensor& ceil_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_map<kCeilName>(ctx, self, out, [](auto x) { return std::ceil(x); });
}

/// out = self rounded to the nearest integer value, halves to even (ATen's
/// round, C's nearbyint in the default rounding mode).
Tensor& round_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_map<kRoundName>(ctx, self, out, [](auto x) { return std::nearbyint(x); });
}

/// out = self rounded toward zero (its integral part).
Tensor& trunc_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return same_dtype_map<kTruncName>(ctx, self, out, [](auto x) { return std::trunc(x); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
