// aten::add.Scalar_out: out = self + alpha * other, with a Scalar `other`.
#include "util/add_scalar_util.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "add.Scalar_out";  // the switch name
}  // namespace

/// out = self + alpha * other (see map_scalar_op_out for dtypes and paths);
/// alpha must fit the dtype it is computed in (scalar_fits).
Tensor& add_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, const Scalar& alpha,
                       Tensor& out) {
  const ScalarType alpha_dtype = k::scalar_compute_dtype(k::scalar_result_type(self.scalar_type(), other));
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(alpha, alpha_dtype), InvalidArgument, out,
                      "%s: alpha is out of range for %s", kName, ::executorch::runtime::toString(alpha_dtype));
  return k::add_scaled<kName>(ctx, self, other, alpha, 1, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
