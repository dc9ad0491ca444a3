// aten::relu.out: out = max(self, 0), elementwise.
#include "util/elementwise_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = max(self, 0) for real dtypes; out must have self's dtype and dim
/// order and is resized to self's shape. NaN stays NaN (as in ATen, whose
/// relu is clamp_min: NaN compares false and passes through).
Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "relu.out: out must have self's dtype");
  ET_KERNEL_CHECK(ctx, k::same_dim_order(self, out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  ET_SWITCH_REAL_TYPES(self.scalar_type(), ctx, "relu.out", CTYPE, [&]() {
    k::map_unary(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), self.numel(),
                 [](CTYPE x) { return x < static_cast<CTYPE>(0) ? static_cast<CTYPE>(0) : x; });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
