// aten::bmm.out: batched matrix product, out[b] = self[b] @ mat2[b].
#include "util/matmul_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out[b] = self[b] @ mat2[b] for 3-D self [B, n, m] and mat2 [B, m, p]; real
/// dtypes, all three alike and contiguous; out is resized to [B, n, p]. Each
/// product runs i-k-j (matmul_util.h).
Tensor& bmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat2, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx,
                      self.dim() == 3 && mat2.dim() == 3 && self.sizes()[0] == mat2.sizes()[0] &&
                          self.sizes()[2] == mat2.sizes()[1],
                      InvalidArgument, out, "bmm.out: self and mat2 must be [B, n, m] and [B, m, p]");
  const auto dtype = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == dtype && mat2.scalar_type() == dtype, InvalidArgument, out,
                      "bmm.out: all tensors must share one dtype");
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(mat2) && k::is_contiguous(out), InvalidArgument,
                  out);
  const int64_t batch = self.sizes()[0];
  const int64_t n = self.sizes()[1];
  const int64_t m = self.sizes()[2];
  const int64_t p = mat2.sizes()[2];
  const ::executorch::aten::SizesType sizes[3] = {self.sizes()[0], self.sizes()[1], mat2.sizes()[2]};
  ET_KERNEL_CHECK(ctx, k::resize_to(out, {sizes, 3}), InvalidArgument, out);
  ET_SWITCH_REAL_TYPES(dtype, ctx, "bmm.out", CTYPE, [&]() {
    const CTYPE* a = self.const_data_ptr<CTYPE>();
    const CTYPE* b = mat2.const_data_ptr<CTYPE>();
    CTYPE* c = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < batch * n * p; ++i) c[i] = 0;
    for (int64_t i = 0; i < batch; ++i) {
      k::gemm_accumulate(n, p, m, a + i * n * m, m, b + i * m * p, p, c + i * n * p, p);
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
