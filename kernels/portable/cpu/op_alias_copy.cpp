// aten::alias_copy.out: out = a copy of self.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = self, element for element. Any dtype; contiguous; out is resized.
Tensor& alias_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  k::reshape_copy(ctx, "alias_copy.out", self, k::shape_of(self), out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
