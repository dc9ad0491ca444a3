// aten::floor_divide.out: out = self / other rounded toward negative
// infinity, elementwise with broadcasting.
#include "util/binary_op_util.h"
#include "util/math_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

using ::executorch::aten::ScalarType;

namespace {
constexpr char kName[] = "floor_divide.out";  // the switch name
}  // namespace

/// out = floor(self / other) in the operands' common dtype (integers stay
/// integers: a zero divisor fails the call, as ATen raises; floating: as
/// div with rounding_mode "floor"). Not for Bool. Broadcasting; out resized.
Tensor& floor_divide_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool || other.scalar_type() != ScalarType::Bool,
                      InvalidArgument, out, "%s: Bool is not supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, !k::integral_division_by_zero<kName>(ctx, self, other), InvalidArgument, out,
                      "%s: integer division by zero", kName);
  return k::binary_op_out<kName, k::BinaryResult::kCommon>(
      ctx, self, other, out, k::scalarwise([](auto x, auto y) { return k::divide_floor(x, y); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
