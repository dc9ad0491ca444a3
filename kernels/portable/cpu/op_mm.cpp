// aten::mm.out: matrix product, out = self @ mat2.
#include "util/matmul_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "mm.out";  // the switch name
}  // namespace

/// out = self @ mat2 for 2-D self [n, m] and mat2 [m, p]; real dtypes, all
/// three alike and contiguous; out is resized to [n, p] (matmul_util.h).
Tensor& mm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.dim() == 2 && mat2.dim() == 2 && self.sizes()[1] == mat2.sizes()[0],
                      InvalidArgument, out, "%s: self and mat2 must be [n, m] and [m, p]", kName);
  const ::executorch::aten::SizesType sizes[2] = {self.sizes()[0], mat2.sizes()[1]};
  ET_KERNEL_CHECK(ctx, k::resize_to(out, {sizes, 2}), InvalidArgument, out);
  k::batched_matmul<kName>(ctx, self, mat2, out, 1, sizes[0], self.sizes()[1], sizes[1]);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
