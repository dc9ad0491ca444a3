// aten::div.Scalar_out and div.Scalar_mode_out: out = self / other with a
// Scalar other: true division, or rounded toward zero or negative infinity.
#include "util/math_util.h"
#include "util/unary_util.h"

#include <optional>
#include <string_view>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "div.Scalar_out";  // the switch names
constexpr char kModeName[] = "div.Scalar_mode_out";

/// out = self / other in floating point (see div_scalar_out); `Name` is the
/// calling operator's switch name.
template <const char* Name>
Tensor& true_divide(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::float_unary_out<Name>(ctx, self, out, [s = k::scalar_to<double>(other)](auto x) {
    using T = decltype(x);
    return x / static_cast<T>(s);
  });
}
}  // namespace

/// out = self / other, always floating (integral and Bool self give Float);
/// division by zero gives inf or NaN as in IEEE arithmetic.
Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return true_divide<kName>(ctx, self, other, out);
}

/// out = self / other rounded by rounding_mode: none is true division (as
/// div.Scalar_out); "trunc" rounds toward zero and "floor" toward negative
/// infinity, in ATen's result dtype of self with a Scalar (integers stay
/// integers: a zero divisor fails the call, as ATen raises; a Bool result
/// fails it too, as ATen has no rounded Bool division).
Tensor& div_scalar_mode_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other,
                            std::optional<std::string_view> rounding_mode, Tensor& out) {
  if (!rounding_mode.has_value()) return true_divide<kModeName>(ctx, self, other, out);
  const bool trunc = *rounding_mode == "trunc";
  ET_KERNEL_CHECK_MSG(ctx, trunc || *rounding_mode == "floor", InvalidArgument, out,
                      "%s: rounding_mode must be 'trunc', 'floor' or None", kModeName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      kModeName);
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, result != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported",
                      kModeName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(result) || k::scalar_to<int64_t>(other) != 0, InvalidArgument, out,
                      "%s: integer division by zero", kModeName);
  return k::map_scalar_op_out<kModeName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = k::scalar_to<CT>(other);
    return k::scalarwise([s, trunc](CT x) { return trunc ? k::divide_trunc(x, s) : k::divide_floor(x, s); });
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
