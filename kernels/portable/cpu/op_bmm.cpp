// aten::bmm.out: batched matrix product, out[b] = self[b] @ mat2[b].
#include "util/matmul_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bmm.out";  // the switch name
}  // namespace

/// out[b] = self[b] @ mat2[b] for 3-D self [B, n, m] and mat2 [B, m, p]; real,
/// Half, BFloat16 or complex dtypes, all three alike and contiguous; out is
/// resized to [B, n, p]. Each product runs i-k-j (matmul_util.h).
Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx,
                      self.dim() == 3 && mat2.dim() == 3 && self.sizes()[0] == mat2.sizes()[0] &&
                          self.sizes()[2] == mat2.sizes()[1],
                      InvalidArgument, out, "%s: self and mat2 must be [B, n, m] and [B, m, p]", kName);
  const ::executorch::aten::SizesType sizes[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  ET_KERNEL_CHECK(ctx, k::resize_to(out, {sizes, 3}), InvalidArgument, out);
  k::batched_matmul<kName, /*Complex=*/true>(ctx, self, mat2, out, sizes[0], sizes[1], self.sizes()[2], sizes[2]);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
