// aten::fmod.Scalar_out and fmod.Tensor_out: out = the remainder of self / other, with the sign
// of self (C's fmod and %).
#include "util/binary_op_util.h"
#include "util/math_util.h"
#include "util/unary_util.h"


namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "fmod.Scalar_out";  // the switch names
constexpr char kTensorName[] = "fmod.Tensor_out";
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
    return k::scalarwise([s](CT x) { return k::remainder_trunc(x, s); });
  });
}

/// out = fmod(self, other) elementwise, broadcast, in their common dtype;
/// an integer division by zero fails the call (checked before writing).
Tensor& fmod_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !k::integral_division_by_zero<kTensorName>(ctx, self, other), InvalidArgument, out,
                      "%s: integer division by zero", kTensorName);
  return k::binary_op_out<kTensorName, k::BinaryResult::kCommon>(
      ctx, self, other, out, k::scalarwise([](auto x, auto y) { return k::remainder_trunc(x, y); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
