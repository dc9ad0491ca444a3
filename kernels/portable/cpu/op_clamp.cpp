// aten::clamp.out: out = self clamped into [min, max] (Scalar bounds).
#include "util/clamp_util.h"
#include "util/scalar_fits.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "clamp.out";  // the switch name
}  // namespace

/// out = min(max(self, min), max) with either bound optional (not both), in
/// ATen's result dtype of self with the bounds; NaN propagates. Real, Half
/// and BFloat16 dtypes (see map_scalar_op_out). Each bound must be
/// representable in the result dtype (-1 does not fit Byte).
Tensor& clamp_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                      "%s: at least one of min and max must be given", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && self.scalar_type() != ScalarType::Bool,
                      InvalidArgument, out, "%s: unsupported dtype", kName);
  ScalarType result = self.scalar_type();
  if (min.has_value()) result = k::scalar_result_type(result, *min);
  if (max.has_value()) result = k::scalar_result_type(result, *max);
  ET_KERNEL_CHECK_MSG(ctx, !min.has_value() || k::scalar_fits(*min, result), InvalidArgument, out,
                      "%s: min is out of range for %s", kName, ::executorch::runtime::toString(result));
  ET_KERNEL_CHECK_MSG(ctx, !max.has_value() || k::scalar_fits(*max, result), InvalidArgument, out,
                      "%s: max is out of range for %s", kName, ::executorch::runtime::toString(result));
  return k::clamp_scalars_out<kName>(ctx, self, min.has_value() ? &*min : nullptr,
                                     max.has_value() ? &*max : nullptr, result, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
