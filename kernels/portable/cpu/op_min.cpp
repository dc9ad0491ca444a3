// aten::min.dim_min and min.unary_out: the minimum along a dim with its
// index, or of a whole tensor.
#include "util/minmax_util.h"

#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kDimName[] = "min.dim_min";  // the switch names
constexpr char kUnaryName[] = "min.unary_out";
}  // namespace

/// (min, min_indices) = the smallest element along `dim` and its index
/// (the first on ties, the first NaN if any), keepdim keeping the dim as 1;
/// real, Bool, Half and BFloat16 dtypes (see extreme_dim_out).
std::tuple<Tensor&, Tensor&> min_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                                      Tensor& min, Tensor& min_indices) {
  return k::extreme_dim_out<kDimName, false>(ctx, self, dim, keepdim, min, min_indices);
}

/// out (0-dim) = the smallest element of self, NaN if any; an empty self
/// gives the identity (see extreme_all_out).
Tensor& min_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::extreme_all_out<kUnaryName, false>(ctx, self, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
