// aten::remainder.Tensor_out and remainder.Scalar_out: out = self mod other
// with the sign of other (Python's %), elementwise.
#include "util/binary_op_util.h"
#include "util/math_util.h"
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

using ::executorch::aten::ScalarType;

namespace {
constexpr char kName[] = "remainder.Tensor_out";  // the switch names
constexpr char kScalarName[] = "remainder.Scalar_out";
}  // namespace

/// out = self - floor(self / other) * other elementwise, broadcast, in their
/// common dtype; an integer division by zero fails the call (checked before
/// writing), as ATen raises. Not for Bool.
Tensor& remainder_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool || other.scalar_type() != ScalarType::Bool,
                      InvalidArgument, out, "%s: Bool is not supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, !k::integral_division_by_zero<kName>(ctx, self, other), InvalidArgument, out,
                      "%s: integer division by zero", kName);
  return k::binary_op_out<kName, k::BinaryResult::kCommon>(
      ctx, self, other, out, k::scalarwise([](auto x, auto y) { return k::remainder_floor(x, y); }));
}

/// out = self mod other for a Scalar other, in ATen's result dtype of self
/// with a Scalar (see map_scalar_op_out); an integral zero divisor fails the
/// call. Not for Bool.
Tensor& remainder_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  const ScalarType result = k::scalar_result_type(self.scalar_type(), other);
  ET_KERNEL_CHECK_MSG(ctx, result != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported",
                      kScalarName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(result) || k::scalar_to<int64_t>(other) != 0, InvalidArgument, out,
                      "%s: integer division by zero", kScalarName);
  return k::map_scalar_op_out<kScalarName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT s = k::scalar_to<CT>(other);
    return k::scalarwise([s](CT x) { return k::remainder_floor(x, s); });
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
