// quantized_decomposed::embedding_byte, embedding_4bit and embedding_2bit
// (.out, .dtype_out): embedding lookups in a table of 8-, 4- or 2-bit
// weights, dequantized per row or per group (util/embedding_util.h says how
// rows are stored and which dtypes each argument takes).
#include "util/embedding_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace q = ::etsb::quantized;

/// embedding_byte.out: out (Float, Half or BFloat16, resized to indices.shape +
/// [dim]) takes the scales' dtype.
Tensor& quantized_embedding_byte_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                                   const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                   int64_t weight_quant_max, const Tensor& indices, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_byte.out", 8, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<8>(ctx, args, std::nullopt, true, out);
}

/// embedding_byte.dtype_out: out of dtype `dtype` (when given), scales of any of
/// Float, Half and BFloat16.
Tensor& quantized_embedding_byte_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight,
                                         const Tensor& weight_scales,
                                         const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                         int64_t weight_quant_max, const Tensor& indices,
                                         std::optional<ScalarType> dtype, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_byte.dtype_out", 8, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<8>(ctx, args, dtype, false, out);
}

/// embedding_4bit.out: out (Float, Half or BFloat16, resized to indices.shape +
/// [dim]) takes the scales' dtype.
Tensor& quantized_embedding_4bit_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                                   const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                   int64_t weight_quant_max, const Tensor& indices, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_4bit.out", 4, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<4>(ctx, args, std::nullopt, true, out);
}

/// embedding_4bit.dtype_out: out of dtype `dtype` (when given), scales of any of
/// Float, Half and BFloat16.
Tensor& quantized_embedding_4bit_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight,
                                         const Tensor& weight_scales,
                                         const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                         int64_t weight_quant_max, const Tensor& indices,
                                         std::optional<ScalarType> dtype, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_4bit.dtype_out", 4, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<4>(ctx, args, dtype, false, out);
}

/// embedding_2bit.out: out (Float, Half or BFloat16, resized to indices.shape +
/// [dim]) takes the scales' dtype.
Tensor& quantized_embedding_2bit_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& weight_scales,
                                   const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                   int64_t weight_quant_max, const Tensor& indices, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_2bit.out", 2, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<2>(ctx, args, std::nullopt, true, out);
}

/// embedding_2bit.dtype_out: out of dtype `dtype` (when given), scales of any of
/// Float, Half and BFloat16.
Tensor& quantized_embedding_2bit_dtype_out(KernelRuntimeContext& ctx, const Tensor& weight,
                                         const Tensor& weight_scales,
                                         const std::optional<Tensor>& weight_zero_points, int64_t weight_quant_min,
                                         int64_t weight_quant_max, const Tensor& indices,
                                         std::optional<ScalarType> dtype, Tensor& out) {
  const q::EmbeddingArgs args{"embedding_2bit.dtype_out", 2, weight, weight_scales, weight_zero_points,
                              weight_quant_min, weight_quant_max, indices};
  return q::embedding_kernel<2>(ctx, args, dtype, false, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
