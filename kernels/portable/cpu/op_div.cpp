// aten::div.out and div.out_mode: out = self / other, elementwise with
// broadcasting: true division, or rounded toward zero or negative infinity.
#include "util/binary_op_util.h"
#include "util/complex_util.h"
#include "util/math_util.h"

#include <optional>
#include <string_view>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "div.out";
constexpr char kModeName[] = "div.out_mode";

/// Whether any element of an integral or Bool tensor is zero (a divisor
/// ATen refuses for rounded integer division).
bool has_zero(KernelRuntimeContext& ctx, const Tensor& t) {
  bool zero = false;
  ET_SWITCH_REALB_TYPES(t.scalar_type(), ctx, kModeName, CTYPE, [&]() {
    const CTYPE* data = t.const_data_ptr<CTYPE>();
    for (ssize_t i = 0; i < t.numel() && !zero; ++i) zero = data[i] == CTYPE(0);
  });
  return zero;
}

}  // namespace

/// out = self / other, always true (floating) division as in ATen: integral
/// or Bool operands divide as doubles, and out must be floating. Broadcasting
/// (e.g. by a 0-dim tensor), out resized to the broadcast shape. Division by
/// zero gives inf or nan, never an error. Complex tensors all of one dtype
/// divide in that dtype's compute type (complex_binary_out).
Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  if (k::any_complex(self, other, out)) {
    return k::complex_binary_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x / y; });
  }
  ScalarType result;
  if (!k::prepare_binary(ctx, kName, self, other, out, &result)) return out;
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(out.scalar_type()), InvalidArgument, out,
                      "div.out: out must be floating");
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  if (k::same_reduced_float(self, other, out)) {  // Half, BFloat16: computed in float
    k::binary_reduced_float<kName>(ctx, self, other, out, [](float x, float y) { return x / y; });
    return out;
  }
  if (k::same_real_dtype(self, other, out)) {
    ET_SWITCH_FLOAT_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
      k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, [](CTYPE x, CTYPE y) { return x / y; });
    });
    return out;
  }
  k::binary_mixed<double, kName>(ctx, self, other, out, [](double x, double y) { return x / y; });
  return out;
}

/// out = self / other rounded by rounding_mode: none is true division (as
/// div.out); "trunc" rounds toward zero and "floor" toward negative infinity,
/// in the operands' common dtype (integers stay integers: a zero divisor
/// fails the call, as ATen raises). Broadcasting; out resized.
Tensor& div_out_mode(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other,
                     std::optional<std::string_view> rounding_mode, Tensor& out) {
  if (!rounding_mode.has_value()) return div_out(ctx, self, other, out);
  const bool trunc = *rounding_mode == "trunc";
  ET_KERNEL_CHECK_MSG(ctx, trunc || *rounding_mode == "floor", InvalidArgument, out,
                      "%s: rounding_mode must be 'trunc', 'floor' or None", kModeName);
  const bool integral = k::is_real_or_bool(self.scalar_type()) && k::is_real_or_bool(other.scalar_type()) &&
                        !k::is_floating(self.scalar_type()) && !k::is_floating(other.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, !integral || !has_zero(ctx, other), InvalidArgument, out,
                      "%s: integer division by zero", kModeName);
  if (trunc) {
    return k::binary_op_out<kModeName, k::BinaryResult::kCommon>(
        ctx, self, other, out, [](auto x, auto y) { return k::divide_trunc(x, y); });
  }
  return k::binary_op_out<kModeName, k::BinaryResult::kCommon>(
      ctx, self, other, out, [](auto x, auto y) { return k::divide_floor(x, y); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
