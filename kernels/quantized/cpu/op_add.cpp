// quantized_decomposed::add.out: the sum of two quantized tensors, requantized:
// out = quantize(dequantize(a) + dequantize(b)), each with its own parameters.
#include "util/quant_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

namespace {

/// Whether [low, high] is a range inside [0, 255], the one ExecuTorch's
/// kernel allows every operand (whatever its dtype).
bool byte_range(int64_t low, int64_t high) { return 0 <= low && low <= high && high <= 255; }

}  // namespace

/// a, b and out of one shape and one integer dtype (Byte, Char, Short, Int,
/// Long), each quant range inside [0, 255]. Element by element, in float:
/// (a - a_zero_point) * a_scale + (b - b_zero_point) * b_scale, quantized with
/// out's scale and zero point, clamped to out's range.
Tensor& quantized_add_out(KernelRuntimeContext& ctx, const Tensor& a, double a_scale, int64_t a_zero_point,
                          int64_t a_quant_min, int64_t a_quant_max, const Tensor& b, double b_scale,
                          int64_t b_zero_point, int64_t b_quant_min, int64_t b_quant_max, double out_scale,
                          int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max, Tensor& out) {
  constexpr const char* op = "add.out";
  ET_KERNEL_CHECK_MSG(ctx, a.scalar_type() == b.scalar_type() && a.scalar_type() == out.scalar_type(),
                      InvalidArgument, out, "%s: a, b and out must have one dtype", op);
  ET_KERNEL_CHECK_MSG(ctx, a.sizes() == b.sizes() && a.sizes() == out.sizes(), InvalidArgument, out,
                      "%s: a, b and out must have one shape", op);
  ET_KERNEL_CHECK_MSG(ctx, q::same_dim_order(a, b) && q::same_dim_order(a, out), InvalidArgument, out,
                      "%s: a, b and out must have one dim order", op);
  ET_KERNEL_CHECK_MSG(ctx,
                      byte_range(a_quant_min, a_quant_max) && byte_range(b_quant_min, b_quant_max) &&
                          byte_range(out_quant_min, out_quant_max),
                      InvalidArgument, out, "%s: every quant range must lie inside [0, 255]", op);
  const float inv_out = 1.0f / static_cast<float>(out_scale);
  ET_KERNEL_CHECK_MSG(ctx, std::isfinite(inv_out), InvalidArgument, out, "%s: out_scale %g has no finite inverse",
                      op, out_scale);
  const float sa = static_cast<float>(a_scale);
  const float sb = static_cast<float>(b_scale);
  ET_SWITCH_INT_TYPES(a.scalar_type(), ctx, op, Q, [&]() {
    const Q* x = a.const_data_ptr<Q>();
    const Q* y = b.const_data_ptr<Q>();
    Q* z = out.mutable_data_ptr<Q>();
    for (ssize_t i = 0; i < a.numel(); ++i) {
      const float sum = q::dequantize_one<float>(x[i], a_zero_point, sa) + q::dequantize_one<float>(y[i], b_zero_point, sb);
      z[i] = q::quantize_one<Q>(sum, inv_out, out_zero_point, out_quant_min, out_quant_max);
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
