// Scatter along a dim (scatter.src_out, scatter.value_out, scatter_add.out):
// the shared checks, before each operator writes out = self and walks its
// index with walk_index_along.
#pragma once

#include <cstring>

#include "index_util.h"

namespace etsb {
namespace kernels {

using ::executorch::runtime::KernelRuntimeContext;

/// Checks a scatter's arguments (dim in range; index Long or Int, contiguous,
/// fitting self along `dim` and src where given (index_fits), its values in
/// range; self, src and out of one real, Bool, Half or BFloat16 dtype, all
/// contiguous), resizes out to self's shape and copies self into it. Gives
/// the wrapped dim. False with ctx failed and a log line naming `name`.
inline bool prepare_scatter(KernelRuntimeContext& ctx, const char* name, const Tensor& self, int64_t dim,
                            const Tensor& index, const Tensor* src, const Tensor& out, int64_t* d) {
  ET_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), d), InvalidArgument, false,
                      "%s: dim %" PRId64 " out of range", name, dim);
  ET_KERNEL_CHECK_MSG(ctx, is_index_dtype(index.scalar_type()) && is_contiguous(index), InvalidArgument, false,
                      "%s: index must be a contiguous Long or Int tensor", name);
  const bool same_dtype = out.scalar_type() == self.scalar_type() &&
                          (src == nullptr || src->scalar_type() == self.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && same_dtype, InvalidArgument, false,
                      "%s: self, src and out must share one real, Bool, Half or BFloat16 dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(out) && (src == nullptr || is_contiguous(*src)),
                      InvalidArgument, false, "%s: self, src and out must be contiguous", name);
  if (index.numel() > 0) {
    ET_KERNEL_CHECK_MSG(ctx, index_fits(self, *d, index, src), InvalidArgument, false,
                        "%s: index does not fit self's (and src's) shape", name);
    int64_t bad = 0;
    const int64_t size = size_or_one(self, *d);
    ET_KERNEL_CHECK_MSG(ctx, indices_in_range(index, size, &bad), InvalidArgument, false,
                        "%s: index %" PRId64 " out of range for size %" PRId64, name, bad, size);
  }
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, self.sizes()), InvalidArgument, false, "%s: cannot resize out", name);
  if (self.nbytes() != 0 && self.const_data_ptr() != out.const_data_ptr()) {
    std::memmove(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  return true;
}

}  // namespace kernels
}  // namespace etsb
