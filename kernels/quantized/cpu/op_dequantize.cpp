// quantized_decomposed::dequantize_per_tensor (.out, .Tensor_out),
// dequantize_per_channel.out and dequantize_per_token.out: integers back to
// floats, x = (q - zero_point) * scale.
#include "util/quant_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

namespace {

/// The checks every dequantize variant shares: an input of the quantized
/// dtype `dtype` (Byte, Char, Short, Int, Bits16 or UInt16), quant_min <=
/// quant_max, an out of dtype `out_dtype` when given, in the input's dim
/// order (any: channels-last included).
/// Resizes out to the input's shape.
bool dequantize_args_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t quant_min,
                        int64_t quant_max, ScalarType dtype, std::optional<ScalarType> out_dtype, Tensor& out) {
  const ScalarType in = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, in != ScalarType::Long && q::is_quantized_type(in), InvalidArgument, false,
                      "%s: input dtype %" PRId8 " is not Byte, Char, Short, Int, Bits16 or UInt16", op,
                      static_cast<int8_t>(in));
  ET_KERNEL_CHECK_MSG(ctx, in == dtype, InvalidArgument, false,
                      "%s: input has dtype %" PRId8 ", the dtype argument says %" PRId8, op,
                      static_cast<int8_t>(in), static_cast<int8_t>(dtype));
  ET_KERNEL_CHECK_MSG(ctx, quant_min <= quant_max, InvalidArgument, false,
                      "%s: quant_min %" PRId64 " is above quant_max %" PRId64, op, quant_min, quant_max);
  ET_KERNEL_CHECK_MSG(ctx, !out_dtype.has_value() || out_dtype.value() == out.scalar_type(), InvalidArgument, false,
                      "%s: out has dtype %" PRId8 ", out_dtype says %" PRId8, op,
                      static_cast<int8_t>(out.scalar_type()), static_cast<int8_t>(out_dtype.value()));
  ET_KERNEL_CHECK_MSG(ctx, q::same_dim_order(input, out), InvalidArgument, false,
                      "%s: input and out must have one dim order", op);
  ET_KERNEL_CHECK_MSG(ctx, q::resize_to(out, input.sizes()), InvalidArgument, false,
                      "%s: out cannot take the input's shape", op);
  return true;
}

/// Dequantizes `input` into `out` (Float, Double or Half) by channel, as
/// quantize_channels in op_quantize.cpp walks them.
template <typename ScaleAt, typename ZeroAt>
void dequantize_channels(KernelRuntimeContext& ctx, const char* op, const Tensor& input, int64_t channels,
                         int64_t inner, const ScaleAt& scale_at, const ZeroAt& zero_at, Tensor& out) {
  const int64_t n = input.numel();
  ET_SWITCH_FLOATH_TYPES(out.scalar_type(), ctx, op, OUT, [&]() {
    OUT* y = out.mutable_data_ptr<OUT>();
    q::switch_quantized(ctx, input.scalar_type(), op, [&](auto tag) {
      using Q = decltype(tag);
      const Q* x = input.const_data_ptr<Q>();
      for (int64_t block = 0; block * inner < n; ++block) {
        const int64_t channel = block % channels;
        const float scale = scale_at(channel);
        const int64_t zero_point = zero_at(channel);
        const int64_t end = (block + 1) * inner < n ? (block + 1) * inner : n;
        for (int64_t i = block * inner; i < end; ++i) {
          y[i] = q::dequantize_one<OUT>(x[i], zero_point, scale);
        }
      }
    });
  });
}

/// Whether `scales` (Double or Float) and the optional `zero_points` (Int
/// or Long) hold `count` values each.
bool channel_params_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& scales,
                       const std::optional<Tensor>& zero_points, int64_t count) {
  const ScalarType st = scales.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, st == ScalarType::Double || st == ScalarType::Float, InvalidArgument, false,
                      "%s: scales must be Double or Float, not dtype %" PRId8, op, static_cast<int8_t>(st));
  ET_KERNEL_CHECK_MSG(ctx, scales.numel() == count, InvalidArgument, false,
                      "%s: %zd scales for %" PRId64 " channels", op, static_cast<ssize_t>(scales.numel()), count);
  if (zero_points.has_value()) {
    const ScalarType zt = zero_points.value().scalar_type();
    ET_KERNEL_CHECK_MSG(ctx, zt == ScalarType::Int || zt == ScalarType::Long, InvalidArgument, false,
                        "%s: zero points must be Int or Long, not dtype %" PRId8, op, static_cast<int8_t>(zt));
    ET_KERNEL_CHECK_MSG(ctx, zero_points.value().numel() == count, InvalidArgument, false,
                        "%s: %zd zero points for %" PRId64 " channels", op,
                        static_cast<ssize_t>(zero_points.value().numel()), count);
  }
  return true;
}

}  // namespace

/// Per-tensor dequantization: input of the quantized dtype `dtype` (Byte,
/// Char, Short, Int, Bits16, UInt16), out Float, Double or Half (`out_dtype`,
/// when given, must name it), resized to the input's shape.
Tensor& dequantize_per_tensor_out(KernelRuntimeContext& ctx, const Tensor& input, double scale, int64_t zero_point,
                                  int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                  std::optional<ScalarType> out_dtype, Tensor& out) {
  constexpr const char* op = "dequantize_per_tensor.out";
  if (!dequantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, out_dtype, out)) return out;
  const float s = static_cast<float>(scale);
  dequantize_channels(
      ctx, op, input, 1, input.numel() > 0 ? input.numel() : 1, [s](int64_t) { return s; },
      [zero_point](int64_t) { return zero_point; }, out);
  return out;
}

/// As dequantize_per_tensor.out, the scale and zero point given as
/// one-element tensors (Double and Long).
Tensor& dequantize_per_tensor_tensor_args_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scale,
                                              const Tensor& zero_point, int64_t quant_min, int64_t quant_max,
                                              ScalarType dtype, std::optional<ScalarType> out_dtype, Tensor& out) {
  constexpr const char* op = "dequantize_per_tensor.Tensor_out";
  ET_KERNEL_CHECK_MSG(ctx, scale.scalar_type() == ScalarType::Double && scale.numel() == 1, InvalidArgument, out,
                      "%s: scale must be one Double", op);
  ET_KERNEL_CHECK_MSG(ctx, zero_point.scalar_type() == ScalarType::Long && zero_point.numel() == 1,
                      InvalidArgument, out, "%s: zero point must be one Long", op);
  return dequantize_per_tensor_out(ctx, input, scale.const_data_ptr<double>()[0],
                                   zero_point.const_data_ptr<int64_t>()[0], quant_min, quant_max, dtype, out_dtype,
                                   out);
}

/// Per-channel dequantization along `axis`: scales (Double or Float) and the
/// optional zero points (Int or Long; 0 when absent) hold one value per
/// index of that axis. Dtypes as dequantize_per_tensor.out; any dim order
/// input and out share.
Tensor& dequantize_per_channel_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                                   const std::optional<Tensor>& zero_points, int64_t axis, int64_t quant_min,
                                   int64_t quant_max, ScalarType dtype, std::optional<ScalarType> out_dtype,
                                   Tensor& out) {
  constexpr const char* op = "dequantize_per_channel.out";
  int64_t dim = 0;
  ET_KERNEL_CHECK_MSG(ctx, q::normalize_axis(input, axis, &dim), InvalidArgument, out,
                      "%s: axis %" PRId64 " is not a dim of a %zd-D input", op, axis,
                      static_cast<ssize_t>(input.dim()));
  if (!channel_params_ok(ctx, op, scales, zero_points, input.size(dim))) return out;
  if (!dequantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, out_dtype, out)) return out;
  const int64_t inner = q::run_length(input, dim);
  dequantize_channels(
      ctx, op, input, input.size(dim), inner > 0 ? inner : 1, [&scales](int64_t c) { return q::scale_at(scales, c); },
      [&zero_points](int64_t c) { return q::zero_point_at(zero_points, c); }, out);
  return out;
}

/// Per-token dequantization: every row of the last dim has its own scale
/// (Double or Float) and zero point (Int or Long), one value per row; out
/// has dtype `output_dtype`. Dtypes otherwise as dequantize_per_tensor.out.
Tensor& dequantize_per_token_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& scales,
                                 const Tensor& zero_points, int64_t quant_min, int64_t quant_max, ScalarType dtype,
                                 ScalarType output_dtype, Tensor& out) {
  constexpr const char* op = "dequantize_per_token.out";
  ET_KERNEL_CHECK_MSG(ctx, input.dim() > 0 && q::is_contiguous(input), InvalidArgument, out,
                      "%s: input must have a dim and be contiguous", op);
  const int64_t tokens = q::size_between(input, 0, input.dim() - 1);
  const std::optional<Tensor> zeros(zero_points);
  if (!channel_params_ok(ctx, op, scales, zeros, tokens)) return out;
  if (!dequantize_args_ok(ctx, op, input, quant_min, quant_max, dtype, output_dtype, out)) return out;
  const int64_t width = input.size(input.dim() - 1);
  dequantize_channels(
      ctx, op, input, tokens > 0 ? tokens : 1, width > 0 ? width : 1,
      [&scales](int64_t t) { return q::scale_at(scales, t); },
      [&zeros](int64_t t) { return q::zero_point_at(zeros, t); }, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
