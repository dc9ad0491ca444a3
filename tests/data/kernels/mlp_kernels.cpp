// Minimal float kernels for the MLP test model: enough to run it through the
// runtime with generated registration code. No allocation, no IO; errors go
// through the context.
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

namespace test {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::torch::executor::KernelRuntimeContext;

namespace {
float scalar_value(const Scalar& value) {
  // The runtime passes integral Scalars (beta=1) as Int: read them as such.
  return value.isFloatingPoint() ? static_cast<float>(value.to<double>()) : static_cast<float>(value.to<int64_t>());
}
}  // namespace

Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.scalar_type() == ScalarType::Float && out.scalar_type() == ScalarType::Float,
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, self.sizes()) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
#if defined(MLP_KERNELS_SCRATCH_BYTES)
  // Built so for the runner's memory-budget test only: asks the runtime for
  // scratch twice, as a kernel with a fast path might, and runs the same
  // without it.
  (void)ctx.allocate_temp(MLP_KERNELS_SCRATCH_BYTES);
  (void)ctx.allocate_temp(MLP_KERNELS_SCRATCH_BYTES);
#endif
  const float* in = self.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < self.numel(); ++i) result[i] = in[i] > 0 ? in[i] : 0;
  return out;
}

Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.dim() == 2 && dims.size() == 2 && self.scalar_type() == ScalarType::Float,
                  InvalidArgument, out);
  ::executorch::aten::SizesType sizes[2] = {
      static_cast<::executorch::aten::SizesType>(self.size(static_cast<int>(dims[0]))),
      static_cast<::executorch::aten::SizesType>(self.size(static_cast<int>(dims[1])))};
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, {sizes, 2}) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
  const float* in = self.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  const bool transpose = dims[0] == 1;
  for (ssize_t r = 0; r < sizes[0]; ++r)
    for (ssize_t c = 0; c < sizes[1]; ++c)
      result[r * sizes[1] + c] = transpose ? in[c * sizes[0] + r] : in[r * sizes[1] + c];
  return out;
}

Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                  const Scalar& beta, const Scalar& alpha, Tensor& out) {
  ET_KERNEL_CHECK(ctx, mat1.dim() == 2 && mat2.dim() == 2 && mat1.size(1) == mat2.size(0), InvalidArgument, out);
  const ssize_t rows = mat1.size(0), inner = mat1.size(1), cols = mat2.size(1);
  ET_KERNEL_CHECK(ctx, self.numel() == cols || self.numel() == rows * cols, InvalidArgument, out);
  ::executorch::aten::SizesType sizes[2] = {static_cast<int>(rows), static_cast<int>(cols)};
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, {sizes, 2}) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
  const float b = scalar_value(beta), a = scalar_value(alpha);
  const float* bias = self.const_data_ptr<float>();
  const float* x = mat1.const_data_ptr<float>();
  const float* w = mat2.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t r = 0; r < rows; ++r)
    for (ssize_t c = 0; c < cols; ++c) {
      float sum = 0;
      for (ssize_t k = 0; k < inner; ++k) sum += x[r * inner + k] * w[k * cols + c];
      result[r * cols + c] = a * sum + b * bias[self.numel() == cols ? c : r * cols + c];
    }
  return out;
}

}  // namespace native
}  // namespace test
