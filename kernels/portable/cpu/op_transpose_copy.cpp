// aten::transpose_copy.int_out and aten::t_copy.out: self with two dims
// swapped, materialised.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kTranspose[] = "transpose_copy.int_out";
constexpr char kT[] = "t_copy.out";
}  // namespace

/// out = self with dims dim0 and dim1 swapped (negative dims count from the
/// end; a 0-dim self takes 0 and -1). Any dtype, copied by width; out has
/// self's dtype, must be contiguous and is resized.
Tensor& transpose_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim0, int64_t dim1,
                               Tensor& out) {
  int64_t a = 0;
  int64_t b = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim0, self.dim(), &a) && k::normalize_dim(dim1, self.dim(), &b),
                      InvalidArgument, out, "%s: dims %" PRId64 ", %" PRId64 " out of range", kTranspose, dim0,
                      dim1);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument, out,
                      "%s: out must have self's dtype", kTranspose);
  k::View v = k::view_of(self);
  if (self.dim() > 0) k::view_transpose(&v, static_cast<size_t>(a), static_cast<size_t>(b));
  k::copy_view<kTranspose>(ctx, self, v, out);
  return out;
}

/// out = self transposed: dims 0 and 1 of a 2-D self swapped, a 0-D or 1-D
/// self copied as it is (more dims are refused). Any dtype, as transpose_copy.
Tensor& t_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.dim() <= 2, InvalidArgument, out, "%s: self has %zd dims, at most 2 allowed", kT,
                      static_cast<ssize_t>(self.dim()));
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument, out,
                      "%s: out must have self's dtype", kT);
  k::View v = k::view_of(self);
  if (self.dim() == 2) k::view_transpose(&v, 0, 1);
  k::copy_view<kT>(ctx, self, v, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
