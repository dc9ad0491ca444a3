// aten::hardtanh.out: out = self clamped into [min_val, max_val].
#include "util/clamp_util.h"

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
Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                     Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() != ScalarType::Bool && self.scalar_type() == out.scalar_type(),
                      InvalidArgument, out, "%s: out must have self's dtype, not Bool", kName);
  return k::clamp_scalars_out<kName>(ctx, self, &min_val, &max_val, self.scalar_type(), out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
