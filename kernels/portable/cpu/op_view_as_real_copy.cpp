// aten::view_as_real_copy.out: a complex tensor as its real and imaginary parts.
#include "util/complex_util.h"
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "view_as_real_copy.out";
}  // namespace

/// out[..., 0] = self.real, out[..., 1] = self.imag for a ComplexHalf,
/// ComplexFloat or ComplexDouble self; out is Half, Float or Double (the
/// parts converted when it is not self's part type, as ExecuTorch's kernel
/// allows), contiguous, resized to self's shape plus a last dim of 2.
Tensor& view_as_real_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", kName);
  k::Shape shape = k::shape_of(self);
  ET_KERNEL_CHECK_MSG(ctx, shape.push(2) && k::resize_to(out, shape), InvalidArgument, out,
                      "%s: out cannot take self's shape plus a dim of 2", kName);
  const int64_t n = self.numel();
  ET_SWITCH_COMPLEXH_TYPES(self.scalar_type(), ctx, kName, IN, [&]() {
    ET_SWITCH_FLOATH_TYPES(out.scalar_type(), ctx, kName, OUT, [&]() {
      const IN* src = self.const_data_ptr<IN>();
      OUT* dst = out.mutable_data_ptr<OUT>();
      for (int64_t i = 0; i < n; ++i) {
        dst[2 * i] = static_cast<OUT>(src[i].real());
        dst[2 * i + 1] = static_cast<OUT>(src[i].imag());
      }
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
