// aten::neg.out: out = -self, elementwise.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "neg.out";  // the switch name
}  // namespace

/// out = -self for real, Half and BFloat16 dtypes, in self's dtype (integers
/// wrap as in ATen; Bool is rejected, as ATen does; see map_scalar_op_out).
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidArgument, out,
                      "%s: negation of a Bool tensor is not supported", kName);
  return k::map_scalar_op_out<kName>(ctx, self, self.scalar_type(), out, [](auto tag) {
    using CT = decltype(tag);
    return [](CT x) { return k::wrapping_sub(CT(0), x); };
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
