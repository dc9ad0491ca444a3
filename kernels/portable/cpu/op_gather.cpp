// aten::gather.out: out[i][j][k] = self[index[i][j][k]][j][k] (along dim 0;
// likewise along any dim).
#include "util/copy_util.h"
#include "util/index_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = self's elements picked along `dim` by index (Long or Int, of self's
/// rank, no larger than self in the other dims; a 0-dim self or index counts
/// as 1-D; an empty index skips these checks; negative indices count from
/// the end, an index out of range fails the call); out takes index's shape
/// and self's dtype (any, moved by width). sparse_grad is ignored.
Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad,
                   Tensor& out) {
  (void)sparse_grad;
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "gather.out: dim %" PRId64 " out of range", dim);
  ET_KERNEL_CHECK_MSG(ctx, k::is_index_dtype(index.scalar_type()), InvalidArgument, out,
                      "gather.out: index must be Long or Int");
  ET_KERNEL_CHECK_MSG(ctx, index.numel() == 0 || k::index_fits(self, d, index, nullptr), InvalidArgument, out,
                      "gather.out: index does not fit self's shape");
  ET_KERNEL_CHECK_MSG(ctx,
                      self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(index) &&
                          k::is_contiguous(out),
                      InvalidArgument, out, "gather.out: out must be contiguous with self's dtype");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, index.sizes()), InvalidArgument, out);
  if (index.numel() == 0) return out;
  int64_t bad = 0;
  const int64_t size = k::size_or_one(self, d);
  ET_KERNEL_CHECK_MSG(ctx, k::indices_in_range(index, size, &bad), InvalidArgument, out,
                      "gather.out: index %" PRId64 " out of range for size %" PRId64, bad, size);
  const size_t width = self.element_size();
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  k::walk_index_along(self, d, index, out, [&](int64_t, int64_t from, int64_t to) {
    std::memcpy(dst + to * width, in + from * width, width);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
