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
/// rank, no larger than self in the other dims; negative indices count from
/// the end, an index out of range fails the call); out takes index's shape
/// and self's dtype (any, moved by width). sparse_grad is ignored.
Tensor& gather_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad,
                   Tensor& out) {
  (void)sparse_grad;
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "gather.out: dim %" PRId64 " out of range", dim);
  ET_KERNEL_CHECK_MSG(ctx, k::is_index_dtype(index.scalar_type()), InvalidArgument, out,
                      "gather.out: index must be Long or Int");
  const bool scalar_like = rank == 0 || index.dim() == 0;
  bool fits = scalar_like ? index.numel() <= 1 && self.numel() >= 1 : index.dim() == rank;
  for (int64_t j = 0; fits && !scalar_like && j < rank; ++j) fits = j == d || index.sizes()[j] <= self.sizes()[j];
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out, "gather.out: index does not fit self's shape");
  ET_KERNEL_CHECK_MSG(ctx,
                      self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(index) &&
                          k::is_contiguous(out),
                      InvalidArgument, out, "gather.out: out must be contiguous with self's dtype");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, index.sizes()), InvalidArgument, out);
  const int64_t n = index.numel();
  if (n == 0) return out;
  int64_t self_strides[k::kMaxDim] = {0};
  k::contiguous_strides_of(self, self_strides);
  const int64_t size = rank == 0 ? 1 : self.sizes()[d];
  int64_t at[k::kMaxDim] = {0};  // the position in index's shape
  const size_t width = self.element_size();
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    int64_t picked = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(k::index_at(index, i), size, &picked), InvalidArgument, out,
                        "gather.out: index %" PRId64 " out of range for size %" PRId64, k::index_at(index, i), size);
    int64_t offset = 0;
    for (int64_t j = 0; j < index.dim(); ++j) offset += (j == d ? picked : at[j]) * self_strides[j];
    std::memcpy(dst + i * width, in + offset * width, width);
    for (int64_t j = index.dim(); j-- > 0;) {
      if (++at[j] < index.sizes()[j]) break;
      at[j] = 0;
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
