// aten::unbind_copy.int_out: every slice of self along a dim, that dim removed.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "unbind_copy.int_out";
}  // namespace

/// out[i] = self.select(dim, i) for every i of the dim (out has exactly
/// self.size(dim) tensors). Real, Bool, Half or BFloat16; the outputs share
/// one dtype, which may differ from self's (values converted, as
/// ExecuTorch's kernel does); contiguous, resized.
void unbind_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, ArrayRef<Tensor> out) {
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && k::normalize_dim(dim, self.dim(), &d), InvalidArgument, ,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == self.sizes()[d], InvalidArgument, ,
                      "%s: %zu outputs for a dim of %d", kName, out.size(), static_cast<int>(self.sizes()[d]));
  for (const Tensor& slice : out) {
    ET_KERNEL_CHECK_MSG(ctx, slice.scalar_type() == out[0].scalar_type() &&
                                 k::convertible(self.scalar_type(), slice.scalar_type()),
                        InvalidArgument, , "%s: unsupported or differing output dtypes", kName);
  }
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self), InvalidArgument, );
  for (size_t i = 0; i < out.size(); ++i) {
    k::View v = k::view_of(self);
    k::view_select(&v, static_cast<size_t>(d), static_cast<int64_t>(i));
    if (!k::copy_view<kName>(ctx, self, v, out[i])) return;
  }
}

}  // namespace native
}  // namespace executor
}  // namespace torch
