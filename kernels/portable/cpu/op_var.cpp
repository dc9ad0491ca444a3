// aten::var.correction_out: the variance along dims.
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
constexpr char kName[] = "var.correction_out";  // the switch name
}  // namespace

/// out = sum((x - mean)^2) / (N - correction) over `dim` (none or empty:
/// all dims; correction defaults to 1, Bessel's), keeping reduced dims with
/// keepdim. Two passes per output, accumulated in double. Floating dtypes,
/// out the same; N <= correction gives inf or NaN, as in ATen.
Tensor& var_correction_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                           const std::optional<Scalar>& correction, bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const double c = correction.has_value() ? k::scalar_to<double>(*correction) : 1.0;
  const double count = static_cast<double>(plan.count);
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    k::for_each_output(plan, [&](int64_t o, int64_t first) {
      double sum = 0;
      k::for_each_reduced(plan, first, [&](int64_t at) { sum += static_cast<double>(in[at]); });
      const double mean = sum / count;
      double squares = 0;
      k::for_each_reduced(plan, first, [&](int64_t at) {
        const double delta = static_cast<double>(in[at]) - mean;
        squares += delta * delta;
      });
      const double denominator = count - c > 0 ? count - c : 0.0;
      result[o] = static_cast<CTYPE>(squares / denominator);
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
