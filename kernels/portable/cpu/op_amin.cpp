// aten::amin.out: the minimum along dims.
#include "util/minmax_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "amin.out";  // the switch name
}  // namespace

/// out = the smallest element over `dim` (an empty list: all dims), keeping
/// reduced dims as 1 with keepdim; NaN propagates. Real, Bool, Half and
/// BFloat16 dtypes, out the same; contiguous; a reduction over zero elements
/// fails the call (see extreme_over_dims_out).
Tensor& amin_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim, bool keepdim, Tensor& out) {
  return k::extreme_over_dims_out<kName, false>(ctx, self, dim, keepdim, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
