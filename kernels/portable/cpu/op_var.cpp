// aten::var.correction_out, var.out and var_mean.correction_out: the
// variance along dims (and the mean).
#include "util/reduce_util.h"

#include <optional>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "var.correction_out";  // the switch names
constexpr char kOutName[] = "var.out";
constexpr char kMeanName[] = "var_mean.correction_out";

/// Checks self and out's layouts and the dim list, resizes out, and plans
/// the reduction; false with ctx failed on a problem.
template <const char* Name>
bool plan_variance(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<ArrayRef<int64_t>>& dim,
                   bool keepdim, Tensor& out, k::ReducePlan* plan) {
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, false);
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, plan), InvalidArgument, false,
                      "%s: invalid dim list", Name);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan->out), InvalidArgument, false);
  return true;
}
}  // namespace

/// out = sum((x - mean)^2) / (N - correction) over `dim` (none or empty:
/// all dims; correction defaults to 1, Bessel's), keeping reduced dims with
/// keepdim. Floating dtypes, out the same; N <= correction gives inf or NaN,
/// as in ATen.
Tensor& var_correction_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                           const std::optional<Scalar>& correction, bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  k::ReducePlan plan;
  if (!plan_variance<kName>(ctx, self, dim, keepdim, out, &plan) || out.numel() == 0) return out;
  const double c = correction.has_value() ? k::scalar_to<double>(*correction) : 1.0;
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    k::variance_and_mean(plan, k::TypedReader<CTYPE, double>{self.const_data_ptr<CTYPE>()},
                         out.mutable_data_ptr<CTYPE>(), static_cast<CTYPE*>(nullptr), c);
  });
  return out;
}

/// var.correction_out with the correction 1 when `unbiased`, else 0; self
/// and out of any floating dtypes, which may differ (the sums are in double
/// either way).
Tensor& var_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim, bool unbiased,
                bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && k::is_floating(out.scalar_type()),
                      InvalidArgument, out, "%s: self and out must be floating", kOutName);
  k::ReducePlan plan;
  if (!plan_variance<kOutName>(ctx, self, dim, keepdim, out, &plan) || out.numel() == 0) return out;
  // One loop per out dtype: self read through with_reader.
  ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kOutName, OUT, [&]() {
    k::with_reader<kOutName, OUT, double, false>(ctx, self, [&](const auto& read) {
      k::variance_and_mean(plan, read, out.mutable_data_ptr<OUT>(), static_cast<OUT*>(nullptr), unbiased ? 1.0 : 0.0);
    });
  });
  return out;
}

/// (var, mean) = var.correction_out's variance and the mean over the same
/// elements: self of a floating dtype, var and mean of one floating dtype
/// (which may differ from self's; the sums are in double); an empty
/// reduction gives NaN.
std::tuple<Tensor&, Tensor&> var_mean_correction_out(KernelRuntimeContext& ctx, const Tensor& self,
                                                     std::optional<ArrayRef<int64_t>> dim,
                                                     const std::optional<Scalar>& correction, bool keepdim,
                                                     Tensor& var, Tensor& mean) {
  std::tuple<Tensor&, Tensor&> both(var, mean);
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_floating(self.scalar_type()) && k::is_floating(var.scalar_type()) &&
                          var.scalar_type() == mean.scalar_type(),
                      InvalidArgument, both, "%s: self must be floating, var and mean of one floating dtype",
                      kMeanName);
  k::ReducePlan plan;
  if (!plan_variance<kMeanName>(ctx, self, dim, keepdim, var, &plan)) return both;
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(mean) && k::resize_to(mean, plan.out), InvalidArgument, both,
                      "%s: mean must be contiguous, of var's shape", kMeanName);
  if (var.numel() == 0) return both;
  const double c = correction.has_value() ? k::scalar_to<double>(*correction) : 1.0;
  ET_SWITCH_FLOATHBF16_TYPES(var.scalar_type(), ctx, kMeanName, OUT, [&]() {
    k::with_reader<kMeanName, OUT, double, false>(ctx, self, [&](const auto& read) {
      k::variance_and_mean(plan, read, var.mutable_data_ptr<OUT>(), mean.mutable_data_ptr<OUT>(), c);
    });
  });
  return both;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
