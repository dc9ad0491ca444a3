// aten::mul.Scalar_out: out = self * other, with a Scalar `other`.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "mul.Scalar_out";  // the switch name
}  // namespace

/// out = self * other (integers wrap on overflow), in ATen's result dtype of
/// self with a Scalar (see map_scalar_op_out for dtypes and paths).
Tensor& mul_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::map_scalar_op_out<kName>(ctx, self, k::scalar_result_type(self.scalar_type(), other), out,
                                     [&](auto tag) {
                                       using CT = decltype(tag);
                                       const CT s = k::scalar_to<CT>(other);
                                       return [s](CT x) { return k::wrapping_mul(x, s); };
                                     });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
