// aten::neg.out: out = -self, elementwise.
#include "util/elementwise_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = -self for real dtypes (integers wrap as in ATen; Bool is rejected,
/// as ATen does). out must have self's dtype and dim order and is resized to
/// self's shape.
Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "neg.out: out must have self's dtype");
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool, InvalidArgument, out,
                      "neg.out: negation of a Bool tensor is not supported");
  ET_KERNEL_CHECK(ctx, k::same_dim_order(self, out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  ET_SWITCH_REAL_TYPES(self.scalar_type(), ctx, "neg.out", CTYPE, [&]() {
    k::map_unary(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), self.numel(),
                 [](CTYPE x) { return k::wrapping_sub(static_cast<CTYPE>(0), x); });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
