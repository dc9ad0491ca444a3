// aten::scalar_tensor.out: out = a 0-dim tensor holding a Scalar.
#include "util/copy_util.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "scalar_tensor.out";  // the switch name
}  // namespace

/// out = s converted to out's dtype (any real, Bool, Half or BFloat16, which
/// s must fit as in full.out), as a 0-dim tensor (out is resized to []).
Tensor& scalar_tensor_out(KernelRuntimeContext& ctx, const Scalar& s, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(s, out.scalar_type(), k::NegativeToUnsigned::kWraps), InvalidArgument,
                      out, "%s: the value is out of range for %s", kName,
                      ::executorch::runtime::toString(out.scalar_type()));
  ET_KERNEL_CHECK(ctx, k::resize_to(out, k::Shape{}), InvalidArgument, out);
  k::fill_scalar<kName>(ctx, out, s);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
