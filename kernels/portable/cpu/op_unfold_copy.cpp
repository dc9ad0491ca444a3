// aten::unfold_copy.out: windows of `size` along a dim, every `step`.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "unfold_copy.out";
}  // namespace

/// out = the windows of `size` elements of self along `dim`, one every
/// `step` (size <= self.size(dim), step > 0): dim counts the windows and a
/// new last dim of `size` walks each. A 0-dim self is one element along dim
/// 0. Real, Bool, Half or BFloat16, out's dtype may differ (values
/// converted, as ExecuTorch's kernel does); out contiguous, resized.
Tensor& unfold_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t size, int64_t step,
                        Tensor& out) {
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  ET_KERNEL_CHECK_MSG(ctx, k::convertible(self.scalar_type(), out.scalar_type()) && k::valid_dim_order(self),
                      InvalidArgument, out, "%s: unsupported dtypes", kName);
  k::View v = k::view_of(self);
  if (v.ndim == 0) {  // a 0-dim tensor unfolds as one element along dim 0
    v.ndim = 1;
    v.sizes[0] = 1;
    v.strides[0] = 1;
  }
  ET_KERNEL_CHECK_MSG(ctx, size >= 0 && size <= v.sizes[d] && k::size_like(step, 1), InvalidArgument, out,
                      "%s: size %" PRId64 " (at most %" PRId64 ") or step %" PRId64 " out of range", kName, size,
                      v.sizes[d], step);
  if (self.dim() == 0) {  // the window is the last (only) dim
    v.sizes[0] = size;
  } else {
    ET_KERNEL_CHECK_MSG(ctx, k::view_unfold(&v, static_cast<size_t>(d), size, step), InvalidArgument, out,
                        "%s: too many dims", kName);
  }
  k::copy_view<kName>(ctx, self, v, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
