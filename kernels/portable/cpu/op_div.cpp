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
  const auto divide = [](auto x, auto y) { return x / y; };
#if defined(ETSB_KERNELS_ONE_PATH)  // the size configuration: the engine's one loop
  return k::float_binary_out<kName>(ctx, self, other, out, divide);
#else
  const k::FloatMaps maps{k::div_f32, k::div_scalar_f32, k::rdiv_scalar_f32};  // hardswish's x / 6
  return k::float_binary_out<kName>(ctx, self, other, out, divide, &maps);
#endif
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
  ET_KERNEL_CHECK_MSG(ctx, !k::integral_division_by_zero<kModeName>(ctx, self, other), InvalidArgument, out,
                      "%s: integer division by zero", kModeName);
  if (trunc) {
    return k::binary_op_out<kModeName, k::BinaryResult::kCommon>(
        ctx, self, other, out, k::scalarwise([](auto x, auto y) { return k::divide_trunc(x, y); }));
  }
  return k::binary_op_out<kModeName, k::BinaryResult::kCommon>(
      ctx, self, other, out, k::scalarwise([](auto x, auto y) { return k::divide_floor(x, y); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
