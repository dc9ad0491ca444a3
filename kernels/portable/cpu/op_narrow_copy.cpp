// aten::narrow_copy.out: `length` consecutive elements of self along a dim.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "narrow_copy.out";
}  // namespace

/// out = self[start : start + length] along `dim` (start may count from the
/// end; the range must lie within the dim). Any dtype, copied by width; out
/// has self's dtype, must be contiguous and is resized.
Tensor& narrow_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t start, int64_t length,
                        Tensor& out) {
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  const int64_t size = self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, start >= -size && start <= size, InvalidArgument, out,
                      "%s: start %" PRId64 " out of range for a dim of %" PRId64, kName, start, size);
  const int64_t first = start < 0 ? start + size : start;
  ET_KERNEL_CHECK_MSG(ctx, length >= 0 && length <= size - first, InvalidArgument, out,
                      "%s: length %" PRId64 " from %" PRId64 " runs past a dim of %" PRId64, kName, length, first,
                      size);
  k::View v = k::view_of(self);
  k::view_narrow(&v, static_cast<size_t>(d), first, length);
  k::copy_view<kName>(ctx, self, v, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
