// aten::squeeze_copy.dims_out and .dim_out: out = self without the listed
// dims of size 1.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// Squeezes the dims marked in `listed` that have size 1 (others stay, as in
/// ATen); `name` names the operator in logs.
Tensor& squeeze_marked(KernelRuntimeContext& ctx, const char* name, const Tensor& self, const bool* listed,
                       Tensor& out) {
  k::Shape shape;
  for (ssize_t d = 0; d < self.dim(); ++d) {
    if (!(listed[d] && self.sizes()[d] == 1)) shape.push(self.sizes()[d]);
  }
  k::reshape_copy(ctx, name, self, shape, out);
  return out;
}

}  // namespace

/// out = self with each dim of `dims` removed where its size is 1 (negative
/// dims count from the end; a dim listed twice is an error). Any dtype.
Tensor& squeeze_copy_dims_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out) {
  bool listed[k::kMaxDim] = {false};
  for (const int64_t dim : dims) {
    int64_t d = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                        "squeeze_copy.dims_out: dim %" PRId64 " out of range", dim);
    if (self.dim() == 0) continue;
    ET_KERNEL_CHECK_MSG(ctx, !listed[d], InvalidArgument, out, "squeeze_copy.dims_out: dim %" PRId64 " repeated",
                        dim);
    listed[d] = true;
  }
  return squeeze_marked(ctx, "squeeze_copy.dims_out", self, listed, out);
}

/// out = self with `dim` removed if its size is 1. Any dtype.
Tensor& squeeze_copy_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  bool listed[k::kMaxDim] = {false};
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "squeeze_copy.dim_out: dim %" PRId64 " out of range", dim);
  listed[d] = self.dim() > 0;
  return squeeze_marked(ctx, "squeeze_copy.dim_out", self, listed, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
