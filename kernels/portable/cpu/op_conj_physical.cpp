// aten::_conj_physical.out: the complex conjugate, materialised.
#include "util/complex_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "_conj_physical.out";
}  // namespace

/// out = conj(self) (imaginary parts negated) for a ComplexHalf,
/// ComplexFloat or ComplexDouble self; out has self's dtype, both
/// contiguous, out resized.
Tensor& _conj_physical_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  const int64_t n = self.numel();
  ET_SWITCH_COMPLEXH_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* src = self.const_data_ptr<CTYPE>();
    CTYPE* dst = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < n; ++i) dst[i] = CTYPE(src[i].real(), -src[i].imag());
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
