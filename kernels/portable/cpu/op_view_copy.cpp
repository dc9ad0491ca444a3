// aten::view_copy.out: out = self's elements under a new shape.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = self reshaped to `size`, one entry of which may be -1 (inferred from
/// the element count, as in ATen). Any dtype; self and out contiguous; out
/// is resized to the new shape.
Tensor& view_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size, Tensor& out) {
  int64_t inferred = -1;
  int64_t known = 1;
  for (size_t d = 0; d < size.size(); ++d) {
    if (size[d] == -1) {
      ET_KERNEL_CHECK_MSG(ctx, inferred < 0, InvalidArgument, out, "view_copy.out: only one size may be -1");
      inferred = static_cast<int64_t>(d);
      continue;
    }
    ET_KERNEL_CHECK_MSG(ctx, k::size_like(size[d], 0), InvalidArgument, out,
                        "view_copy.out: invalid size %" PRId64 " at %zu", size[d], d);
    known *= size[d];
  }
  k::Shape shape;
  for (size_t d = 0; d < size.size(); ++d) {
    int64_t s = size[d];
    if (static_cast<int64_t>(d) == inferred) {
      ET_KERNEL_CHECK_MSG(ctx, known != 0 && self.numel() % known == 0, InvalidArgument, out,
                          "view_copy.out: cannot infer the -1 size from %zd elements",
                          static_cast<ssize_t>(self.numel()));
      s = self.numel() / known;
    }
    ET_KERNEL_CHECK_MSG(ctx, shape.push(s), InvalidArgument, out, "view_copy.out: too many dims");
  }
  k::reshape_copy(ctx, "view_copy.out", self, shape, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
