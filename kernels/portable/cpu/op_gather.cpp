// aten::gather.out: out[i][j][k] = self[index[i][j][k]][j][k] (along dim 0;
// likewise along any dim).
#include "util/copy_util.h"
#include "util/index_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// Size of dim j of `t`, a 0-dim tensor counting as [1] (ATen's view of
/// scalars in gather).
int64_t size_or_one(const Tensor& t, int64_t j) { return t.dim() == 0 ? 1 : t.sizes()[j]; }

/// ATen's shape rule: self and index of one rank (a 0-dim tensor counting as
/// rank 1), index no larger than self in every dim but `d`.
bool index_fits(const Tensor& self, int64_t d, const Tensor& index) {
  const int64_t rank = self.dim() > 0 ? self.dim() : 1;
  if ((index.dim() > 0 ? index.dim() : 1) != rank) return false;
  for (int64_t j = 0; j < rank; ++j) {
    if (j != d && size_or_one(index, j) > size_or_one(self, j)) return false;
  }
  return true;
}

}  // namespace

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
  ET_KERNEL_CHECK_MSG(ctx, index.numel() == 0 || index_fits(self, d, index), InvalidArgument, out,
                      "gather.out: index does not fit self's shape");
  ET_KERNEL_CHECK_MSG(ctx,
                      self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(index) &&
                          k::is_contiguous(out),
                      InvalidArgument, out, "gather.out: out must be contiguous with self's dtype");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, index.sizes()), InvalidArgument, out);
  const int64_t n = index.numel();
  if (n == 0) return out;
  // Walk index as (at least) 1-D, like self: a 0-dim tensor is [1].
  const int64_t rank = index.dim() > 0 ? index.dim() : 1;
  int64_t self_strides[k::kMaxDim] = {1};
  if (self.dim() > 0) k::contiguous_strides_of(self, self_strides);
  const int64_t size = size_or_one(self, d);
  int64_t at[k::kMaxDim] = {0};  // the position in index's shape
  const size_t width = self.element_size();
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t i = 0; i < n; ++i) {
    int64_t picked = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(k::index_at(index, i), size, &picked), InvalidArgument, out,
                        "gather.out: index %" PRId64 " out of range for size %" PRId64, k::index_at(index, i), size);
    int64_t offset = 0;
    for (int64_t j = 0; j < rank; ++j) offset += (j == d ? picked : at[j]) * self_strides[j];
    std::memcpy(dst + i * width, in + offset * width, width);
    for (int64_t j = rank; j-- > 0;) {
      if (++at[j] < size_or_one(index, j)) break;
      at[j] = 0;
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
