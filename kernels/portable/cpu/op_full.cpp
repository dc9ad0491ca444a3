// aten::full.out: out = a tensor of a given shape filled with one value.
#include "util/copy_util.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "full.out";  // the switch name
}  // namespace

/// out = `size`-shaped, every element fill_value converted to out's dtype (any
/// real, Bool, Half or BFloat16 dtype; fill_value must fit it, see
/// scalar_fits: a negative integer wraps into Byte); out is resized.
Tensor& full_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, const Scalar& fill_value, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(fill_value, out.scalar_type(), k::NegativeToUnsigned::kWraps),
                      InvalidArgument, out, "%s: fill_value is out of range for %s", kName,
                      ::executorch::runtime::toString(out.scalar_type()));
  if (!k::resize_to_size_list<kName>(ctx, size, out)) return out;
  k::fill_scalar<kName>(ctx, out, fill_value);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
