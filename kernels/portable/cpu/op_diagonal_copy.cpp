// aten::diagonal_copy.out: a diagonal of two of self's dims, as a new last dim.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "diagonal_copy.out";
}  // namespace

/// out = the diagonal `offset` (above the main one when positive, below when
/// negative) of dims dim1 and dim2 of self (rank >= 2, distinct dims), those
/// dims removed and the diagonal appended last; empty when the offset is
/// past the matrix. Any dtype, copied by width; out has self's dtype, must be
/// contiguous and is resized.
Tensor& diagonal_copy_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2,
                          Tensor& out) {
  int64_t a = 0;
  int64_t b = 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() >= 2 && k::normalize_dim(dim1, self.dim(), &a) &&
                               k::normalize_dim(dim2, self.dim(), &b) && a != b,
                      InvalidArgument, out, "%s: dims %" PRId64 " and %" PRId64 " are not two dims of self", kName,
                      dim1, dim2);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::size_like(offset < 0 ? -offset : offset, 0), InvalidArgument, out,
                      "%s: offset %" PRId64 " out of range", kName, offset);
  k::View v = k::view_of(self);
  k::view_diagonal(&v, static_cast<size_t>(a), static_cast<size_t>(b), offset);
  k::copy_view<kName>(ctx, self, v, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
