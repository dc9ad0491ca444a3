// What ExecuTorch's quantized kernel tests (kernels/quantized/test/*.cpp in the
// tree) include as <executorch/kernels/quantized/NativeFunctions.h>, for
// tests/test_quantized_suite.py.
//
// The tests call most kernels without a KernelRuntimeContext
// (quantize_per_tensor_out(input, scale, ...)), an overload ExecuTorch's own
// quantized library defines beside each registered one, aborting when the
// call fails (the tests' death cases expect that abort). etsb's library
// defines only the registered overloads, which take the context, so, with
// ETSB_CONTEXTLESS_WRAPPERS defined, this header defines the context-less
// ones inline: each calls etsb's kernel with a fresh context and aborts if it
// failed. Without it (the control: ExecuTorch's kernels) they are only
// declared. The registered overloads come from CustomOpsNativeFunctions.h,
// generated from kernels/quantized/quantized.yaml.
#pragma once

#include "CustomOpsNativeFunctions.h"

#include <executorch/runtime/platform/assert.h>

#include <tuple>

namespace torch {
namespace executor {
namespace native {

using QuantizedSuiteTensor = ::executorch::aten::Tensor;
using QuantizedSuiteOutputs = std::tuple<QuantizedSuiteTensor&, QuantizedSuiteTensor&>;

#define ETSB_UNPAREN(...) __VA_ARGS__
#ifdef ETSB_CONTEXTLESS_WRAPPERS
#define ETSB_CONTEXTLESS(RET, NAME, PARAMS, ARGS)                                     \
  inline RET NAME PARAMS {                                                            \
    ::torch::executor::KernelRuntimeContext ctx;                                      \
    RET result = NAME(ctx, ETSB_UNPAREN ARGS);                                        \
    ET_CHECK_MSG(ctx.failure_state() == ::executorch::runtime::Error::Ok,             \
                 #NAME " failed with error 0x%x", static_cast<unsigned>(ctx.failure_state())); \
    return result;                                                                    \
  }
#else
#define ETSB_CONTEXTLESS(RET, NAME, PARAMS, ARGS) RET NAME PARAMS;
#endif

using ::executorch::aten::ScalarType;
using QsTensor = QuantizedSuiteTensor;
using QsOptTensor = std::optional<QuantizedSuiteTensor>;
using QsOptType = std::optional<ScalarType>;

ETSB_CONTEXTLESS(QsTensor&, quantize_per_tensor_out,
                 (const QsTensor& input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, QsTensor& out),
                 (input, scale, zero_point, quant_min, quant_max, dtype, out))
ETSB_CONTEXTLESS(QsTensor&, quantize_per_tensor_tensor_args_out,
                 (const QsTensor& input, const QsTensor& scale, const QsTensor& zero_point, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, QsTensor& out),
                 (input, scale, zero_point, quant_min, quant_max, dtype, out))
ETSB_CONTEXTLESS(QsTensor&, quantize_per_channel_out,
                 (const QsTensor& input, const QsTensor& scales, const QsTensor& zero_points, int64_t axis, int64_t quant_min,
                  int64_t quant_max, ScalarType dtype, QsTensor& out),
                 (input, scales, zero_points, axis, quant_min, quant_max, dtype, out))
ETSB_CONTEXTLESS(QsTensor&, quantize_per_token_out,
                 (const QsTensor& input, const QsTensor& scales, const QsTensor& zero_points, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, QsTensor& out),
                 (input, scales, zero_points, quant_min, quant_max, dtype, out))
ETSB_CONTEXTLESS(QsTensor&, dequantize_per_tensor_out,
                 (const QsTensor& input, double scale, int64_t zero_point, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, QsOptType out_dtype, QsTensor& out),
                 (input, scale, zero_point, quant_min, quant_max, dtype, out_dtype, out))
ETSB_CONTEXTLESS(QsTensor&, dequantize_per_tensor_tensor_args_out,
                 (const QsTensor& input, const QsTensor& scale, const QsTensor& zero_point, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, QsOptType out_dtype, QsTensor& out),
                 (input, scale, zero_point, quant_min, quant_max, dtype, out_dtype, out))
ETSB_CONTEXTLESS(QsTensor&, dequantize_per_channel_out,
                 (const QsTensor& input, const QsTensor& scales, const QsOptTensor& zero_points, int64_t axis, int64_t quant_min,
                  int64_t quant_max, ScalarType dtype, QsOptType out_dtype, QsTensor& out),
                 (input, scales, zero_points, axis, quant_min, quant_max, dtype, out_dtype, out))
ETSB_CONTEXTLESS(QsTensor&, dequantize_per_token_out,
                 (const QsTensor& input, const QsTensor& scales, const QsTensor& zero_points, int64_t quant_min, int64_t quant_max,
                  ScalarType dtype, ScalarType output_dtype, QsTensor& out),
                 (input, scales, zero_points, quant_min, quant_max, dtype, output_dtype, out))
ETSB_CONTEXTLESS(QuantizedSuiteOutputs, choose_qparams_tensor_out,
                 (const QsTensor& input, int64_t quant_min, int64_t quant_max, double eps, ScalarType dtype,
                  QsTensor& scale_out, QsTensor& zero_point_out),
                 (input, quant_min, quant_max, eps, dtype, scale_out, zero_point_out))
ETSB_CONTEXTLESS(QuantizedSuiteOutputs, choose_qparams_per_token_asymmetric_out,
                 (const QsTensor& input, ScalarType dtype, QsTensor& scale_out, QsTensor& zero_point_out),
                 (input, dtype, scale_out, zero_point_out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_byte_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_byte_dtype_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsOptType dtype, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, dtype,
                  out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_4bit_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_4bit_dtype_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsOptType dtype, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, dtype,
                  out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_2bit_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, out))
ETSB_CONTEXTLESS(QsTensor&, quantized_embedding_2bit_dtype_out,
                 (const QsTensor& weight, const QsTensor& weight_scales, const QsOptTensor& weight_zero_points, int64_t weight_quant_min,
                  int64_t weight_quant_max, const QsTensor& indices, QsOptType dtype, QsTensor& out),
                 (weight, weight_scales, weight_zero_points, weight_quant_min, weight_quant_max, indices, dtype,
                  out))

ETSB_CONTEXTLESS(QsTensor&, quantized_add_out,
                 (const QsTensor& a, double a_scale, int64_t a_zero_point, int64_t a_quant_min, int64_t a_quant_max,
                  const QsTensor& b, double b_scale, int64_t b_zero_point, int64_t b_quant_min, int64_t b_quant_max,
                  double out_scale, int64_t out_zero_point, int64_t out_quant_min, int64_t out_quant_max,
                  QsTensor& out),
                 (a, a_scale, a_zero_point, a_quant_min, a_quant_max, b, b_scale, b_zero_point, b_quant_min,
                  b_quant_max, out_scale, out_zero_point, out_quant_min, out_quant_max, out))
ETSB_CONTEXTLESS(QsTensor&, quantized_mixed_mm_out,
                 (const QsTensor& input, const QsTensor& weight, const QsTensor& weight_scales,
                  const QsOptTensor& weight_zero_points, QsTensor& out),
                 (input, weight, weight_scales, weight_zero_points, out))
ETSB_CONTEXTLESS(QsTensor&, quantized_mixed_linear_out,
                 (const QsTensor& input, const QsTensor& weight, const QsTensor& weight_scales,
                  const QsOptTensor& weight_zero_points, QsOptType dtype, QsTensor& out),
                 (input, weight, weight_scales, weight_zero_points, dtype, out))

#undef ETSB_CONTEXTLESS
#undef ETSB_UNPAREN

}  // namespace native
}  // namespace executor
}  // namespace torch
