// aten::max.dim_max and max.unary_out: the maximum along a dim with its
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
constexpr char kDimName[] = "max.dim_max";  // the switch names
constexpr char kUnaryName[] = "max.unary_out";
}  // namespace

/// (max, max_indices) = the largest element along `dim` and its index
/// (the first on ties, the first NaN if any), keepdim keeping the dim as 1;
/// real, Bool, Half and BFloat16 dtypes (see extreme_dim_out).
std::tuple<Tensor&, Tensor&> max_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                                      Tensor& max, Tensor& max_indices) {
  return k::extreme_dim_out<kDimName, true>(ctx, self, dim, keepdim, max, max_indices);
}

/// out (0-dim) = the largest element of self, NaN if any; an empty self
/// gives the identity (see extreme_all_out).
Tensor& max_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::extreme_all_out<kUnaryName, true>(ctx, self, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
