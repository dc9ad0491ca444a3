// aten::repeat.out: self tiled `repeats` times along each dim.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "repeat.out";

/// Appends a dim of `size` to both views (source stride `src`, destination
/// stride `dst`); a size-1 dim adds nothing. False at the rank limit.
bool add_dim(k::View* from, k::View* to, int64_t size, int64_t src, int64_t dst) {
  if (size == 1) return true;
  if (from->ndim >= k::kMaxDim) return false;
  from->sizes[from->ndim] = to->sizes[to->ndim] = size;
  from->strides[from->ndim++] = src;
  to->strides[to->ndim++] = dst;
  return true;
}

}  // namespace

/// out = self tiled: out.size(j) = repeats[j] * self.size(j), self's sizes
/// aligned to the last of repeats (which must have at least self.dim()
/// non-negative entries), out[..., t * s + i, ...] = self[..., i, ...]. The
/// copy is one strided walk: each dim j is a (tile, element) pair of dims,
/// the source reading the tile dim with stride 0. Any dtype, copied by
/// width; out has self's dtype, contiguous, resized.
Tensor& repeat_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> repeats, Tensor& out) {
  const size_t rank = static_cast<size_t>(self.dim());
  ET_KERNEL_CHECK_MSG(ctx, repeats.size() >= rank && repeats.size() <= k::kMaxDim, InvalidArgument, out,
                      "%s: %zu repeats for a tensor of rank %zu", kName, repeats.size(), rank);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  const size_t lead = repeats.size() - rank;
  const k::View in = k::view_of(self);
  k::Shape shape;
  int64_t out_strides[k::kMaxDim];
  for (size_t j = 0; j < repeats.size(); ++j) {
    const int64_t size = j < lead ? 1 : in.sizes[j - lead];
    ET_KERNEL_CHECK_MSG(ctx, repeats[j] >= 0 && shape.push(repeats[j] * size), InvalidArgument, out,
                        "%s: repeat %" PRId64 " out of range", kName, repeats[j]);
  }
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(out) && k::resize_to(out, shape), InvalidArgument, out,
                      "%s: out must be contiguous and take the repeated shape", kName);
  if (out.numel() == 0) return out;
  k::contiguous_strides_of(out, out_strides);
  k::View from;
  k::View to;
  for (size_t j = 0; j < repeats.size(); ++j) {
    const int64_t size = j < lead ? 1 : in.sizes[j - lead];
    const int64_t stride = j < lead ? 0 : in.strides[j - lead];
    ET_KERNEL_CHECK_MSG(ctx, add_dim(&from, &to, repeats[j], 0, out_strides[j] * size) &&
                                 add_dim(&from, &to, size, stride, out_strides[j]),
                        InvalidArgument, out, "%s: too many dims to walk", kName);
  }
  k::copy_box<kName>(ctx, self, from, out, to);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
