// aten::hardtanh.out: out = self clamped into [min_val, max_val].
#include "util/clamp_util.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "hardtanh.out";  // the switch name
}  // namespace

/// out = min(max(self, min_val), max_val) in self's dtype (real, Half,
/// BFloat16; no promotion by the bounds, as in ATen); out has self's dtype.
/// Each bound must fit that dtype (scalar_fits; a negative integer wraps into
/// Byte, as ATen's checked conversion does).
Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                     Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool && self.scalar_type() == out.scalar_type(),
                      InvalidArgument, out, "%s: out must have self's dtype, not Bool", kName);
  const ScalarType t = self.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx,
                      k::scalar_fits(min_val, t, k::NegativeToUnsigned::kWraps) &&
                          k::scalar_fits(max_val, t, k::NegativeToUnsigned::kWraps),
                      InvalidArgument, out, "%s: a bound is out of range for %s", kName,
                      ::executorch::runtime::toString(t));
  return k::clamp_scalars_out<kName>(ctx, self, &min_val, &max_val, t, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
