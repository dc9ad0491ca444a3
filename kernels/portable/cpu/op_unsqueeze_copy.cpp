// aten::unsqueeze_copy.out: out = self with a size-1 dim inserted.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = self with a new size-1 dim at `dim`, in [-(rank + 1), rank] (negative
/// counts from the end of the result). Any dtype; contiguous; out is resized.
Tensor& unsqueeze_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, rank + 1, &d), InvalidArgument, out,
                      "unsqueeze_copy.out: dim %" PRId64 " out of range for rank %" PRId64, dim, rank);
  k::Shape shape;
  for (int64_t j = 0; j <= rank; ++j) {
    if (j == d) shape.push(1);
    if (j < rank) shape.push(self.sizes()[j]);
  }
  ET_KERNEL_CHECK_MSG(ctx, shape.ndim == static_cast<size_t>(rank + 1), InvalidArgument, out,
                      "unsqueeze_copy.out: too many dims");
  k::reshape_copy(ctx, "unsqueeze_copy.out", self, shape, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
