// aten::sub.Scalar_out: out = self - alpha * other, with a Scalar `other`.
#include "util/add_scalar_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;

namespace {
constexpr char kName[] = "sub.Scalar_out";  // the switch name
}  // namespace

/// out = self - alpha * other (see map_scalar_op_out; not for Bool).
Tensor& sub_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                       Tensor& out) {
  return ::etsb::kernels::add_scaled<kName>(ctx, self, other, alpha, -1, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
