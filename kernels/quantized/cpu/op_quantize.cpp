// quantized_decomposed::quantize_per_tensor (.out, .Tensor_out),
// quantize_per_channel.out and quantize_per_token.out: floats to integers,
// q = clamp(zero_point + round(x / scale), quant_min, quant_max).
#include "util/quant_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

namespace {

/// The checks every quantize variant shares: a floating input (Float, Double
/// or Half), an out of the integer dtype `dtype` in the input's dim order
/// (any: channels-last included), and a [quant_min, quant_max] inside that dtype's range. Resizes
/// out to the input's shape.
bool quantize_args_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t quant_min,
                      int64_t quant_max, ScalarType dtype, Tensor& out) {
  const ScalarType in = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, in == ScalarType::Float || in == ScalarType::Double || in == ScalarType::Half,
                      InvalidArgument, false, "%s: input must be Float, Double or Half, not dtype %" PRId8, op,
                      static_cast<int8_t>(in));
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == dtype, InvalidArgument, false,
                      "%s: out has dtype %" PRId8 ", the dtype argument says %" PRId8, op,
                      static_cast<int8_t>(out.scalar_type()), static_cast<int8_t>(dtype));
  ET_KERNEL_CHECK_MSG(ctx, q::range_fits(dtype, quant_min, quant_max), InvalidArgument, false,
                      "%s: [%" PRId64 ", %" PRId64 "] is not a range inside dtype %" PRId8, op, quant_min,
                      quant_max, static_cast<int8_t>(dtype));
  ET_KERNEL_CHECK_MSG(ctx, q::same_dim_order(input, out), InvalidArgument, false,
                      "%s: input and out must have one dim order", op);
  ET_KERNEL_CHECK_MSG(ctx, q::resize_to(out, input.sizes()), InvalidArgument, false,
                      "%s: out cannot take the input's shape", op);
  return true;
}

/// Quantizes `input` into `out` by channel: element i has channel
/// (i / inner) % channels, and each channel its scale and zero point (one
/// channel of everything for per-tensor quantization).
template <typename ScaleAt, typename ZeroAt>
void quantize_channels(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t channels,
                       int64_t inner, const ScaleAt& scale_at, const ZeroAt& zero_at, int64_t quant_min,
                       int64_t quant_max, Tensor& out) {
  const int64_t n = input.numel();
  ET_SWITCH_FLOATH_TYPES(input.scalar_type(), ctx, op, T, [&]() {
    const T* x = input.const_data_ptr<T>();
    q::switch_quantized(ctx, out.scalar_type(), op, [&](auto tag) {
      using Q = decltype(tag);
      Q* y = out.mutable_data_ptr<Q>();
      for (int64_t block = 0; block * inner < n; ++block) {
        const int64_t channel = block % channels;
        const float inv_scale = 1.0f / scale_at(channel);
        const int64_t zero_point = zero_at(channel);
        const int64_t end = (block + 1) * inner < n ? (block + 1) * inner : n;
        for (int64_t i = block * inner; i < end; ++i) {
          y[i] = q::quantize_one<Q>(x[i], inv_scale, zero_point, quant_min, quant_max);
        }
      }
    });
  });
}

/// Whether `scales` (Double) and `zero_points` (Long) hold `count` values each.
bool channel_params_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& scales,
                       const Tensor& zero_points, int64_t count) {
  ET_KERNEL_CHECK_MSG(ctx, scales.scalar_type() == ScalarType::Double, InvalidArgument, false,
                      "%s: scales must be Double, not dtype %" PRId8, op,
                      static_cast<int8_t>(scales.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, zero_points.scalar_type() == ScalarType::Long, InvalidArgument, false,
                      "%s: zero points must be Long, not dtype %" PRId8, op,
                      static_cast<int8_t>(zero_points.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, scales.numel() == count && zero_points.numel() == count, InvalidArgument, false,
                      "%s: %zd scales and %zd zero points for %" PRId64 " channels", op,
                      static_cast<ssize_t>(scales.numel()), static_cast<ssize_t>(zero_points.numel()), count);
  return true;
}

}  // namespace

/// Per-tensor quantization with a double scale and an integer zero point.
/// Input Float, Double or Half; out (any shape, resized to the input's) of
/// the integer dtype `dtype`: Byte, Char, Short, Int, Long, Bits16 or UInt16.
/// Rejects a quant range outside the dtype's and a zero or non-finite scale.
Tensor& quantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale, int64_t zero_point,
                                int64_t quant_min, int64_t quant_max, ScalarType dtype, Tensor& out) {
  constexpr const char* op = "quantize_per_tensor.out";
  if (!quantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, out)) return out;
  const float s = static_cast<float>(scale);
  ET_KERNEL_CHECK_MSG(ctx, std::isfinite(1.0f / s), InvalidArgument, out, "%s: scale %g has no finite inverse", op,
                      scale);
  quantize_channels(
      ctx, op, input, 1, input.numel() > 0 ? input.numel() : 1, [s](int64_t) { return s; },
      [zero_point](int64_t) { return zero_point; }, quant_min, quant_max, out);
  return out;
}

/// As quantize_per_tensor.out, the scale and zero point given as one-element
/// tensors (Double and Long), as dynamic quantization computes them.
Tensor& quantize_per_tensor_tensor_args_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scale,
                                            const Tensor& zero_point, int64_t quant_min, int64_t quant_max,
                                            ScalarType dtype, Tensor& out) {
  if (!channel_params_ok(ctx, "quantize_per_tensor.Tensor_out", scale, zero_point, 1)) return out;
  return quantize_per_tensor_out(ctx, input, scale.const_data_ptr<double>()[0],
                                 zero_point.const_data_ptr<int64_t>()[0], quant_min, quant_max, dtype, out);
}

/// Per-channel quantization along `axis` (negative counts from the end):
/// scales (Double) and zero_points (Long) hold one value per index of that
/// axis. Dtypes as quantize_per_tensor.out; any dim order input and out share.
Tensor& quantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                                 const Tensor& zero_points, int64_t axis, int64_t quant_min, int64_t quant_max,
                                 ScalarType dtype, Tensor& out) {
  constexpr const char* op = "quantize_per_channel.out";
  int64_t dim = 0;
  ET_KERNEL_CHECK_MSG(ctx, q::normalize_axis(input, axis, &dim), InvalidArgument, out,
                      "%s: axis %" PRId64 " is not a dim of a %zd-D input", op, axis,
                      static_cast<ssize_t>(input.dim()));
  if (!channel_params_ok(ctx, op, scales, zero_points, input.size(dim))) return out;
  if (!quantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, out)) return out;
  const double* s = scales.const_data_ptr<double>();
  const int64_t* z = zero_points.const_data_ptr<int64_t>();
  for (int64_t c = 0; c < scales.numel(); ++c) {
    ET_KERNEL_CHECK_MSG(ctx, std::isfinite(1.0f / static_cast<float>(s[c])), InvalidArgument, out,
                        "%s: scale %g of channel %" PRId64 " has no finite inverse", op, s[c], c);
  }
  const int64_t inner = q::run_length(input, dim);
  quantize_channels(
      ctx, op, input, input.size(dim), inner > 0 ? inner : 1, [s](int64_t c) { return static_cast<float>(s[c]); },
      [z](int64_t c) { return z[c]; }, quant_min, quant_max, out);
  return out;
}

/// Per-token quantization: every row of the last dim (a token) has its own
/// scale (Double) and zero point (Long), given as tensors of one value per
/// row (shaped like the input with the last dim 1). Dtypes as
/// quantize_per_tensor.out.
Tensor& quantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                               const Tensor& zero_points, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                               Tensor& out) {
  constexpr const char* op = "quantize_per_token.out";
  ET_KERNEL_CHECK_MSG(ctx, input.dim() > 0 && q::is_contiguous(input), InvalidArgument, out,
                      "%s: input must have a dim and be contiguous", op);
  const int64_t tokens = q::size_between(input, 0, input.dim() - 1);
  if (!channel_params_ok(ctx, op, scales, zero_points, tokens)) return out;
  if (!quantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, out)) return out;
  const double* s = scales.const_data_ptr<double>();
  const int64_t* z = zero_points.const_data_ptr<int64_t>();
  for (int64_t t = 0; t < tokens; ++t) {
    ET_KERNEL_CHECK_MSG(ctx, std::isfinite(1.0f / static_cast<float>(s[t])), InvalidArgument, out,
                        "%s: scale %g of token %" PRId64 " has no finite inverse", op, s[t], t);
  }
  const int64_t width = input.size(input.dim() - 1);
  quantize_channels(
      ctx, op, input, tokens > 0 ? tokens : 1, width > 0 ? width : 1,
      [s](int64_t t) { return static_cast<float>(s[t]); }, [z](int64_t t) { return z[t]; }, quant_min, quant_max,
      out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
