// quantized_decomposed::mixed_mm.out and mixed_linear.out: float (or Half)
// activations times int8 weights dequantized on the fly by their scales
// (weight-only quantized matrix products; zero points are not taken).
#include "util/quant_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

namespace {

/// The checks both share: 2-D contiguous input (Float or Half) and Char
/// weight, scales of the input's dtype, no zero points; resizes out to
/// [rows, cols].
bool mixed_args_ok(KernelRuntimeContext& ctx, const char* op, const Tensor& in, const Tensor& weight,
                   const Tensor& scales, const std::optional<Tensor>& zero_points, int64_t cols, Tensor& out) {
  const ScalarType it = in.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, in.dim() == 2 && weight.dim() == 2, InvalidArgument, false,
                      "%s: input and weight must be 2-D", op);
  ET_KERNEL_CHECK_MSG(ctx, it == ScalarType::Float || it == ScalarType::Half, InvalidArgument, false,
                      "%s: input must be Float or Half", op);
  ET_KERNEL_CHECK_MSG(ctx, weight.scalar_type() == ScalarType::Char, InvalidArgument, false,
                      "%s: weight must be Char (int8)", op);
  ET_KERNEL_CHECK_MSG(ctx, scales.scalar_type() == it, InvalidArgument, false,
                      "%s: weight_scales must have the input's dtype", op);
  ET_KERNEL_CHECK_MSG(ctx, !zero_points.has_value(), InvalidArgument, false,
                      "%s: weight zero points are not supported", op);
  ET_KERNEL_CHECK_MSG(ctx, q::is_contiguous(in) && q::is_contiguous(weight) && q::is_contiguous(scales),
                      InvalidArgument, false, "%s: input, weight and scales must be contiguous", op);
  const SizesType sizes[2] = {static_cast<SizesType>(in.size(0)), static_cast<SizesType>(cols)};
  ET_KERNEL_CHECK_MSG(ctx, out.dim() == 2 && q::resize_to(out, {sizes, 2}) && q::is_contiguous(out),
                      InvalidArgument, false, "%s: out must be 2-D and take [rows, cols]", op);
  return true;
}

}  // namespace

/// mixed_mm.out: out[i, j] = sum_k in[i, k] * weight[k, j] * scales[k], for
/// input [m, n] (Float or Half), weight [n, p] (Char), scales [n] and out
/// [m, p] of the input's dtype; accumulated in that dtype (Half rounds).
Tensor& quantized_mixed_mm_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& weight,
                               const Tensor& weight_scales, const std::optional<Tensor>& weight_zero_points,
                               Tensor& out) {
  constexpr const char* op = "mixed_mm.out";
  ET_KERNEL_CHECK_MSG(ctx, in.dim() == 2 && weight.dim() == 2 && in.size(1) == weight.size(0), InvalidArgument, out,
                      "%s: input [m, n] and weight [n, p] do not chain", op);
  ET_KERNEL_CHECK_MSG(ctx, weight_scales.dim() == 1 && weight_scales.size(0) == weight.size(0), InvalidArgument,
                      out, "%s: weight_scales must hold one scale per weight row", op);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == in.scalar_type(), InvalidArgument, out,
                      "%s: out must have the input's dtype", op);
  if (!mixed_args_ok(ctx, op, in, weight, weight_scales, weight_zero_points, weight.size(1), out)) return out;
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(1);
  ET_SWITCH_TWO_TYPES(Float, Half, in.scalar_type(), ctx, op, T, [&]() {
    const T* x = in.const_data_ptr<T>();
    const int8_t* w = weight.const_data_ptr<int8_t>();
    const T* s = weight_scales.const_data_ptr<T>();
    T* y = out.mutable_data_ptr<T>();
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < p; ++j) {
        // In T, every product and partial sum rounded to it, as ExecuTorch's
        // kernel (its tests expect Half's rounding of the sum).
        T sum = static_cast<T>(0);
        for (int64_t k = 0; k < n; ++k) {
          sum += x[i * n + k] * static_cast<T>(w[k * p + j]) * s[k];
        }
        y[i * p + j] = sum;
      }
    }
  });
  return out;
}

/// mixed_linear.out: out = in @ dequantized(weight)^T, for input [m, n]
/// (Float or Half), weight [p, n] (Char) and scales [p] or [p, groups] of the
/// input's dtype (a group is ceil(n / groups) consecutive columns); out [m, p]
/// of dtype `dtype` when given (Float or Half), else out's own (Float, Double
/// or Half). Each group's products are summed, then scaled; in float.
Tensor& quantized_mixed_linear_out(KernelRuntimeContext& ctx, const Tensor& in, const Tensor& weight,
                                   const Tensor& weight_scales, const std::optional<Tensor>& weight_zero_points,
                                   std::optional<ScalarType> dtype, Tensor& out) {
  constexpr const char* op = "mixed_linear.out";
  ET_KERNEL_CHECK_MSG(ctx, in.dim() == 2 && weight.dim() == 2 && in.size(1) == weight.size(1), InvalidArgument,
                      out, "%s: input [m, n] and weight [p, n] do not match", op);
  ET_KERNEL_CHECK_MSG(ctx,
                      (weight_scales.dim() == 1 || weight_scales.dim() == 2) &&
                          weight_scales.size(0) == weight.size(0) &&
                          (weight_scales.dim() == 1 || weight_scales.size(1) > 0),
                      InvalidArgument, out, "%s: weight_scales must be [p] or [p, groups]", op);
  ET_KERNEL_CHECK_MSG(ctx,
                      !dtype.has_value() || (dtype.value() == out.scalar_type() &&
                                             (dtype.value() == ScalarType::Float || dtype.value() == ScalarType::Half)),
                      InvalidArgument, out, "%s: dtype must be out's, Float or Half", op);
  if (!mixed_args_ok(ctx, op, in, weight, weight_scales, weight_zero_points, weight.size(0), out)) return out;
  const int64_t m = in.size(0), n = in.size(1), p = weight.size(0);
  const int64_t groups = weight_scales.dim() == 2 ? weight_scales.size(1) : 1;
  const int64_t group = (n + groups - 1) / groups;
  ET_SWITCH_TWO_TYPES(Float, Half, in.scalar_type(), ctx, op, T, [&]() {
    ET_SWITCH_FLOATH_TYPES(out.scalar_type(), ctx, op, OUT, [&]() {
      const T* x = in.const_data_ptr<T>();
      const int8_t* w = weight.const_data_ptr<int8_t>();
      const T* s = weight_scales.const_data_ptr<T>();
      OUT* y = out.mutable_data_ptr<OUT>();
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < p; ++j) {
          float sum = 0.0f;
          for (int64_t k = 0; k < n; k += group) {
            const int64_t end = k + group < n ? k + group : n;
            float partial = 0.0f;
            for (int64_t c = k; c < end; ++c) {
              partial += static_cast<float>(x[i * n + c]) * static_cast<float>(w[j * n + c]);
            }
            sum += partial * static_cast<float>(s[j * groups + k / group]);
          }
          y[i * p + j] = static_cast<OUT>(sum);
        }
      }
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
