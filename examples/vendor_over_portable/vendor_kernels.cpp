// A vendor's relu: a fast path for 2-D contiguous Float tensors and a default
// for everything else. Each says through the runtime's log which one ran, so
// that the example can show the vendor kernel served the model
// (run the binary with --log).
#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

namespace vendor {
namespace native {

using ::executorch::aten::Tensor;
using ::executorch::runtime::KernelRuntimeContext;

namespace {

bool resize_like(Tensor& out, const Tensor& self) {
  return ::executorch::runtime::resize_tensor(out, self.sizes()) == ::executorch::runtime::Error::Ok;
}

}  // namespace

/// relu for Float 2-D contiguous tensors (what the yaml's arg_meta promises).
Tensor& relu_out_float_2d(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, resize_like(out, self), InvalidArgument, out);
  ET_LOG(Info, "vendor::relu_out_float_2d ran on %zd elements", static_cast<ssize_t>(self.numel()));
  const float* in = self.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0, n = self.numel(); i < n; ++i) result[i] = in[i] > 0.0f ? in[i] : 0.0f;
  return out;
}

/// relu for every other real dtype and layout.
Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, resize_like(out, self), InvalidArgument, out);
  ET_LOG(Info, "vendor::relu_out ran");
  ET_SWITCH_REAL_TYPES(self.scalar_type(), ctx, "relu.out", CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    for (ssize_t i = 0, n = self.numel(); i < n; ++i) result[i] = in[i] > CTYPE(0) ? in[i] : CTYPE(0);
  });
  return out;
}

}  // namespace native
}  // namespace vendor
