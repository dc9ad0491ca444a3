// aten::var.correction_out and var.out: the variance along dims.
#include "util/reduce_util.h"

#include <optional>

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

/// out[o] = sum((x - mean)^2) / max(N - correction, 0) over the elements x
/// reducing into o: two passes per output, accumulated in double; no
/// element (N = 0) or a zero denominator gives NaN or inf, as in ATen.
template <typename In, typename Out>
void variance(const k::ReducePlan& plan, const In* in, Out* result, double correction) {
  const double count = static_cast<double>(plan.count);
  const double denominator = count - correction > 0 ? count - correction : 0.0;
  k::for_each_output(plan, [&](int64_t o, int64_t first) {
    double sum = 0;
    k::for_each_reduced(plan, first, [&](int64_t at) { sum += static_cast<double>(in[at]); });
    const double mean = sum / count;
    double squares = 0;
    k::for_each_reduced(plan, first, [&](int64_t at) {
      const double delta = static_cast<double>(in[at]) - mean;
      squares += delta * delta;
    });
    result[o] = static_cast<Out>(squares / denominator);
  });
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
    variance(plan, self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), c);
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
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kOutName, IN, [&]() {
    ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kOutName, OUT, [&]() {
      variance(plan, self.const_data_ptr<IN>(), out.mutable_data_ptr<OUT>(), unbiased ? 1.0 : 0.0);
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
