// The kernel of this example's custom operator, my_ops::relu_squared.out
// (declared in my_ops.yaml): out = scale * max(self, 0)^2, elementwise.
//
// Its signature is the one etsb generates from the schema: the runtime
// context first, then the schema's arguments in order (Tensor -> const
// Tensor&, float -> double, the out tensor -> Tensor&), returning `out`. After
// a build, the declaration is in
// etsb-out/bin/examples/custom_op/bin_lib/CustomOpsNativeFunctions.h.
//
// It follows the rules of etsb's portable kernels (kernels/README.md): no
// allocation, every bad input reported through the context before any data is
// touched, the output resized to the input's shape, and the dtype switch named
// after the operator without its namespace ("relu_squared.out"), the name a
// dtype-selective build keys on.
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

namespace my_ops {
namespace native {

using ::executorch::aten::Tensor;
using ::executorch::runtime::Error;
using ::executorch::runtime::KernelRuntimeContext;

/// out = scale * max(self, 0)^2 for Float and Double tensors (NaN propagates). out must have
/// self's dtype and dim order; it is resized to self's shape. Other dtypes
/// fail the context (the switch below reports them).
Tensor& relu_squared_out(KernelRuntimeContext& ctx, const Tensor& self, double scale, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "relu_squared.out: out must have self's dtype");
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::tensors_have_same_dim_order(self, out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, self.sizes()) == Error::Ok, InvalidArgument, out);
  ET_SWITCH_FLOAT_TYPES(self.scalar_type(), ctx, "relu_squared.out", CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    const CTYPE factor = static_cast<CTYPE>(scale);
    for (ssize_t i = 0, n = self.numel(); i < n; ++i) {
      const CTYPE positive = in[i] < CTYPE(0) ? CTYPE(0) : in[i];  // NaN stays NaN, as in torch
      result[i] = factor * (positive * positive);
    }
  });
  return out;
}

}  // namespace native
}  // namespace my_ops
