// quantized_decomposed::choose_qparams.Tensor_out and
// choose_qparams_per_token_asymmetric.out: the affine scale and zero point
// that map a tensor's (or each token's) value range onto [quant_min, quant_max].
#include "util/quant_util.h"

#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&>;

/// Scales below this are raised to it (the range widened to match), so that
/// 1 / scale stays well inside float's range; ExecuTorch's kernel does so.
constexpr float kSmallestScale = 6.1e-5f;

struct Params {
  double scale;
  int64_t zero_point;
};

/// The scale and zero point for values in [lo, hi]: the range is first
/// widened to include 0 (so that 0 is exact), scale = range / (qmax - qmin),
/// and the zero point is the one implied by whichever end of the range
/// loses less to rounding, rounded and clamped into [qmin, qmax].
Params params_for(float lo, float hi, int64_t qmin, int64_t qmax) {
  lo = lo < 0.0f ? lo : 0.0f;
  hi = hi > 0.0f ? hi : 0.0f;
  const double levels = static_cast<double>(qmax - qmin);
  double scale = (static_cast<double>(hi) - static_cast<double>(lo)) / levels;
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale))) scale = 0.1;
  if (scale < kSmallestScale) {
    const float widen = kSmallestScale / static_cast<float>(scale);
    scale = kSmallestScale;
    if (lo == 0.0f) {
      hi = static_cast<float>(kSmallestScale * levels);
    } else if (hi == 0.0f) {
      lo = static_cast<float>(-kSmallestScale * levels);
    } else {
      lo = static_cast<float>(lo * widen);
      hi = static_cast<float>(hi * widen);
    }
  }
  const double from_lo = static_cast<double>(qmin) - lo / scale;
  const double from_hi = static_cast<double>(qmax) - hi / scale;
  const double lo_error = std::fabs(static_cast<double>(qmin)) - std::fabs(lo / scale);
  const double hi_error = std::fabs(static_cast<double>(qmax)) - std::fabs(hi / scale);
  const double zero = lo_error < hi_error ? from_lo : from_hi;
  int64_t zero_point = qmin;
  if (zero > static_cast<double>(qmax)) {
    zero_point = qmax;
  } else if (zero >= static_cast<double>(qmin)) {
    zero_point = static_cast<int64_t>(std::nearbyint(static_cast<float>(zero)));
  }
  return {scale, zero_point};
}

/// The smallest and largest of n floats, NaNs skipped (0 and 0 when none).
void value_range(const float* x, int64_t n, float* lo, float* hi) {
  bool any = false;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i])) continue;
    if (!any || x[i] < *lo) *lo = x[i];
    if (!any || x[i] > *hi) *hi = x[i];
    any = true;
  }
  if (!any) *lo = *hi = 0.0f;
}

/// The checks both variants share: a contiguous Float input, a Double scale
/// out and a Long zero point out, qmin < qmax.
bool choose_args_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t qmin, int64_t qmax,
                    const Tensor& scale_out, const Tensor& zero_point_out) {
  ET_KERNEL_CHECK_MSG(ctx, qmin < qmax, InvalidArgument, false,
                      "%s: quant_min %" PRId64 " is not below quant_max %" PRId64, op, qmin, qmax);
  ET_KERNEL_CHECK_MSG(ctx, input.scalar_type() == ScalarType::Float, InvalidArgument, false,
                      "%s: input must be Float, not dtype %" PRId8, op, static_cast<int8_t>(input.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, q::is_contiguous(input), InvalidArgument, false, "%s: input must be contiguous", op);
  ET_KERNEL_CHECK_MSG(ctx, scale_out.scalar_type() == ScalarType::Double, InvalidArgument, false,
                      "%s: scale_out must be Double", op);
  ET_KERNEL_CHECK_MSG(ctx, zero_point_out.scalar_type() == ScalarType::Long, InvalidArgument, false,
                      "%s: zero_point_out must be Long", op);
  return true;
}

}  // namespace

/// One scale and zero point for the whole Float input, into one-element
/// scale_out (Double) and zero_point_out (Long). `eps` and `dtype` are
/// accepted and unused, as in ExecuTorch's kernel: the smallest scale is
/// fixed (kSmallestScale).
Outputs choose_qparams_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, int64_t quant_min,
                                  int64_t quant_max, double eps, ScalarType dtype, Tensor& scale_out,
                                  Tensor& zero_point_out) {
  (void)eps;
  (void)dtype;
  constexpr const char* op = "choose_qparams.Tensor_out";
  Outputs result{scale_out, zero_point_out};
  if (!choose_args_ok(ctx, op, input, quant_min, quant_max, scale_out, zero_point_out)) return result;
  ET_KERNEL_CHECK_MSG(ctx, scale_out.numel() == 1 && zero_point_out.numel() == 1, InvalidArgument, result,
                      "%s: scale_out and zero_point_out must have one element each", op);
  float lo = 0.0f, hi = 0.0f;
  value_range(input.const_data_ptr<float>(), input.numel(), &lo, &hi);
  const Params p = params_for(lo, hi, quant_min, quant_max);
  scale_out.mutable_data_ptr<double>()[0] = p.scale;
  zero_point_out.mutable_data_ptr<int64_t>()[0] = p.zero_point;
  return result;
}

/// A scale and zero point per token (row of the last dim) of the Float
/// input, for the range [-128, 127]; scale_out (Double) and zero_point_out
/// (Long) are resized to the input's shape with the last dim 1.
Outputs choose_qparams_per_token_asymmetric_out(KernelRuntimeContext& ctx, const Tensor& input, ScalarType dtype,
                                                Tensor& scale_out, Tensor& zero_point_out) {
  (void)dtype;
  constexpr const char* op = "choose_qparams_per_token_asymmetric.out";
  Outputs result{scale_out, zero_point_out};
  if (!choose_args_ok(ctx, op, input, -128, 127, scale_out, zero_point_out)) return result;
  ET_KERNEL_CHECK_MSG(ctx, input.dim() > 0, InvalidArgument, result, "%s: input must have a dim", op);
  SizesType sizes[q::kMaxDim];
  const size_t rank = static_cast<size_t>(input.dim());
  for (size_t d = 0; d + 1 < rank; ++d) sizes[d] = input.size(d);
  sizes[rank - 1] = 1;
  ET_KERNEL_CHECK_MSG(ctx, q::resize_to(scale_out, {sizes, rank}) && q::resize_to(zero_point_out, {sizes, rank}),
                      InvalidArgument, result, "%s: scale_out and zero_point_out cannot take one value per token",
                      op);
  const int64_t width = input.size(input.dim() - 1);
  const int64_t tokens = q::size_between(input, 0, input.dim() - 1);
  const float* x = input.const_data_ptr<float>();
  double* scales = scale_out.mutable_data_ptr<double>();
  int64_t* zeros = zero_point_out.mutable_data_ptr<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    float lo = 0.0f, hi = 0.0f;
    value_range(x + t * width, width, &lo, &hi);
    const Params p = params_for(lo, hi, -128, 127);
    scales[t] = p.scale;
    zeros[t] = p.zero_point;
  }
  return result;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
