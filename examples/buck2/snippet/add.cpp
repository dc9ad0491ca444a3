// The example's kernel library: add.out for same-shape Float tensors
// (out = self + alpha * other), the registration docs' `add_kernel`. The yaml's
// kernel_name custom::add_out is the function custom::native::add_out, as
// ExecuTorch's codegen spells it.
#include <executorch/runtime/kernel/kernel_includes.h>

namespace custom {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::KernelRuntimeContext;

/// add.out for Float tensors of one shape.
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == ScalarType::Float && other.scalar_type() == ScalarType::Float &&
                               out.scalar_type() == ScalarType::Float,
                      InvalidArgument, out, "add_kernel takes Float tensors only");
  ET_KERNEL_CHECK_MSG(ctx, self.sizes() == other.sizes(), InvalidArgument, out, "add_kernel does not broadcast");
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, self.sizes()) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
  const float scale = static_cast<float>(alpha.isFloatingPoint() ? alpha.to<double>() : alpha.to<int64_t>());
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0, n = self.numel(); i < n; ++i) result[i] = a[i] + scale * b[i];
  return out;
}

}  // namespace native
}  // namespace custom
