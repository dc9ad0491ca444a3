// aten::amax.out: the maximum along dims.
#include "util/minmax_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "amax.out";  // the switch name
}  // namespace

/// out = the largest element over `dim` (an empty list: all dims), keeping
/// reduced dims as 1 with keepdim; NaN propagates. Real, Bool, Half and
/// BFloat16 dtypes, out the same; contiguous; a reduction over zero elements
/// fails the call (see extreme_over_dims_out).
Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim, bool keepdim, Tensor& out) {
  return k::extreme_over_dims_out<kName, true>(ctx, self, dim, keepdim, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
