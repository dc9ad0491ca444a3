// etsb's quantized kernels given bad arguments: each call must fail through
// its context (InvalidArgument) and return, never abort or crash, and a good
// call next to it must succeed. Built and run by tests/test_quantized_suite.py
// beside ExecuTorch's own quantized tests (which check values, and whose death
// cases only show that a call stopped: a crash would pass them too).
#include <executorch/kernels/quantized/NativeFunctions.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/platform/runtime.h>

#include <gtest/gtest.h>

#include <optional>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using torch::executor::KernelRuntimeContext;
using torch::executor::testing::TensorFactory;
namespace native = torch::executor::native;

namespace {

/// Runs `call(ctx)` with a fresh context; the error it left.
template <typename Call>
Error run(const Call& call) {
  KernelRuntimeContext ctx;
  call(ctx);
  return ctx.failure_state();
}

#define EXPECT_REJECTED(body) EXPECT_EQ(run([&](KernelRuntimeContext& ctx) { body; }), Error::InvalidArgument)
#define EXPECT_ACCEPTED(body) EXPECT_EQ(run([&](KernelRuntimeContext& ctx) { body; }), Error::Ok)

class QuantizedBadArguments : public ::testing::Test {
 protected:
  void SetUp() override { executorch::runtime::runtime_init(); }
  TensorFactory<ScalarType::Float> f;
  TensorFactory<ScalarType::Double> d;
  TensorFactory<ScalarType::Half> h;
  TensorFactory<ScalarType::Char> c;
  TensorFactory<ScalarType::Byte> b;
  TensorFactory<ScalarType::Short> s;
  TensorFactory<ScalarType::Int> i;
  TensorFactory<ScalarType::Long> l;
};

TEST_F(QuantizedBadArguments, QuantizePerTensor) {
  Tensor in = f.make({2, 2}, {0.5, -1, 2, 3});
  Tensor out = c.zeros({2, 2});
  EXPECT_ACCEPTED(native::quantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Char, out));
  Tensor int_in = i.zeros({2, 2});
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, int_in, 0.5, 0, -128, 127, ScalarType::Char, out));
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Byte, out));
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, in, 0.5, 0, 0, 255, ScalarType::Char, out));
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, in, 0.5, 0, 10, 5, ScalarType::Char, out));
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, in, 0.0, 0, -128, 127, ScalarType::Char, out));
  Tensor float_out = f.zeros({2, 2});
  EXPECT_REJECTED(native::quantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Float, float_out));
  Tensor scale = d.make({1}, {0.5}), zero = l.make({1}, {0});
  EXPECT_ACCEPTED(native::quantize_per_tensor_tensor_args_out(ctx, in, scale, zero, -128, 127, ScalarType::Char, out));
  Tensor float_scale = f.make({1}, {0.5}), two_zeros = l.make({2}, {0, 0});
  EXPECT_REJECTED(
      native::quantize_per_tensor_tensor_args_out(ctx, in, float_scale, zero, -128, 127, ScalarType::Char, out));
  EXPECT_REJECTED(
      native::quantize_per_tensor_tensor_args_out(ctx, in, scale, two_zeros, -128, 127, ScalarType::Char, out));
}

TEST_F(QuantizedBadArguments, QuantizePerChannelAndToken) {
  Tensor in = f.make({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor out = c.zeros({2, 3});
  Tensor scales = d.make({2}, {0.1, 0.2}), zeros = l.make({2}, {0, 1});
  EXPECT_ACCEPTED(native::quantize_per_channel_out(ctx, in, scales, zeros, 0, -128, 127, ScalarType::Char, out));
  EXPECT_REJECTED(native::quantize_per_channel_out(ctx, in, scales, zeros, 2, -128, 127, ScalarType::Char, out));
  EXPECT_REJECTED(native::quantize_per_channel_out(ctx, in, scales, zeros, 1, -128, 127, ScalarType::Char, out));
  Tensor int_zeros = i.make({2}, {0, 1});
  EXPECT_REJECTED(native::quantize_per_channel_out(ctx, in, scales, int_zeros, 0, -128, 127, ScalarType::Char, out));
  Tensor token_scales = d.make({2, 1}, {0.1, 0.2}), token_zeros = l.make({2, 1}, {0, 0});
  EXPECT_ACCEPTED(
      native::quantize_per_token_out(ctx, in, token_scales, token_zeros, -128, 127, ScalarType::Char, out));
  Tensor three_scales = d.make({3}, {0.1, 0.2, 0.3}), three_zeros = l.make({3}, {0, 0, 0});
  EXPECT_REJECTED(
      native::quantize_per_token_out(ctx, in, three_scales, three_zeros, -128, 127, ScalarType::Char, out));
}

TEST_F(QuantizedBadArguments, Dequantize) {
  Tensor in = c.make({2, 2}, {1, -2, 3, 4});
  Tensor out = f.zeros({2, 2});
  const std::optional<ScalarType> none;
  EXPECT_ACCEPTED(native::dequantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Char, none, out));
  Tensor float_in = f.zeros({2, 2}), long_in = l.zeros({2, 2});
  EXPECT_REJECTED(native::dequantize_per_tensor_out(ctx, float_in, 0.5, 0, -128, 127, ScalarType::Float, none, out));
  EXPECT_REJECTED(native::dequantize_per_tensor_out(ctx, long_in, 0.5, 0, -128, 127, ScalarType::Long, none, out));
  EXPECT_REJECTED(native::dequantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Byte, none, out));
  EXPECT_REJECTED(native::dequantize_per_tensor_out(ctx, in, 0.5, 0, 127, -128, ScalarType::Char, none, out));
  EXPECT_REJECTED(
      native::dequantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Char, ScalarType::Half, out));
  Tensor int_out = i.zeros({2, 2});
  EXPECT_REJECTED(native::dequantize_per_tensor_out(ctx, in, 0.5, 0, -128, 127, ScalarType::Char, none, int_out));
  Tensor scale = d.make({1}, {0.5}), int_zero = i.make({1}, {0});
  EXPECT_REJECTED(native::dequantize_per_tensor_tensor_args_out(ctx, in, scale, int_zero, -128, 127,
                                                                ScalarType::Char, none, out));
  Tensor scales = f.make({2}, {0.1, 0.2});
  const std::optional<Tensor> zeros(i.make({2}, {0, 1}));
  EXPECT_ACCEPTED(
      native::dequantize_per_channel_out(ctx, in, scales, zeros, 1, -128, 127, ScalarType::Char, none, out));
  Tensor int_scales = i.make({2}, {1, 2});
  EXPECT_REJECTED(
      native::dequantize_per_channel_out(ctx, in, int_scales, zeros, 1, -128, 127, ScalarType::Char, none, out));
  const std::optional<Tensor> float_zeros(f.make({2}, {0, 1}));
  EXPECT_REJECTED(
      native::dequantize_per_channel_out(ctx, in, scales, float_zeros, 1, -128, 127, ScalarType::Char, none, out));
  EXPECT_REJECTED(
      native::dequantize_per_channel_out(ctx, in, scales, zeros, -3, -128, 127, ScalarType::Char, none, out));
  Tensor three = f.make({3}, {1, 1, 1}), three_zeros = l.make({3}, {0, 0, 0});
  EXPECT_REJECTED(native::dequantize_per_token_out(ctx, in, three, three_zeros, -128, 127, ScalarType::Char,
                                                   ScalarType::Float, out));
}

TEST_F(QuantizedBadArguments, ChooseQparams) {
  Tensor in = f.make({4}, {-1, 0.5, 2, 3});
  Tensor scale = d.zeros({1}), zero = l.zeros({1});
  EXPECT_ACCEPTED(native::choose_qparams_tensor_out(ctx, in, -128, 127, 1e-5, ScalarType::Char, scale, zero));
  Tensor double_in = d.make({4}, {-1, 0.5, 2, 3});
  EXPECT_REJECTED(native::choose_qparams_tensor_out(ctx, double_in, -128, 127, 1e-5, ScalarType::Char, scale, zero));
  Tensor float_scale = f.zeros({1}), two_scales = d.zeros({2});
  EXPECT_REJECTED(native::choose_qparams_tensor_out(ctx, in, -128, 127, 1e-5, ScalarType::Char, float_scale, zero));
  EXPECT_REJECTED(native::choose_qparams_tensor_out(ctx, in, -128, 127, 1e-5, ScalarType::Char, two_scales, zero));
  EXPECT_REJECTED(native::choose_qparams_tensor_out(ctx, in, 5, 5, 1e-5, ScalarType::Char, scale, zero));
  Tensor half_in = h.make({1, 4}, {-1, 0.5, 2, 3});
  Tensor token_scale = d.zeros({1, 1}), token_zero = l.zeros({1, 1});
  EXPECT_REJECTED(
      native::choose_qparams_per_token_asymmetric_out(ctx, half_in, ScalarType::Char, token_scale, token_zero));
}

TEST_F(QuantizedBadArguments, Embeddings) {
  Tensor weight = c.make({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Tensor scales = f.make({3}, {0.5, 1, 2});
  const std::optional<Tensor> no_zeros;
  Tensor indices = l.make({2}, {0, 2});
  Tensor out = f.zeros({2, 4});
  EXPECT_ACCEPTED(native::quantized_embedding_byte_out(ctx, weight, scales, no_zeros, -128, 127, indices, out));
  Tensor far = l.make({2}, {0, 3}), negative = l.make({2}, {0, -1}), float_indices = f.make({2}, {0, 1});
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, scales, no_zeros, -128, 127, far, out));
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, scales, no_zeros, -128, 127, negative, out));
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, scales, no_zeros, -128, 127, float_indices, out));
  Tensor flat = c.make({4}, {1, 2, 3, 4}), short_weight = s.zeros({3, 4});
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, flat, scales, no_zeros, -128, 127, indices, out));
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, short_weight, scales, no_zeros, -128, 127, indices, out));
  Tensor three_groups = f.make({3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1});
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, three_groups, no_zeros, -128, 127, indices, out));
  const std::optional<Tensor> wrong_zeros(f.make({2}, {0, 0}));
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, scales, wrong_zeros, -128, 127, indices, out));
  Tensor half_scales = h.make({3}, {0.5, 1, 2});
  EXPECT_REJECTED(native::quantized_embedding_byte_out(ctx, weight, half_scales, no_zeros, -128, 127, indices, out));
  EXPECT_ACCEPTED(native::quantized_embedding_byte_dtype_out(ctx, weight, half_scales, no_zeros, -128, 127, indices,
                                                             ScalarType::Float, out));
  Tensor double_out = d.zeros({2, 4});
  EXPECT_REJECTED(native::quantized_embedding_byte_dtype_out(ctx, weight, scales, no_zeros, -128, 127, indices,
                                                             std::nullopt, double_out));
  EXPECT_REJECTED(native::quantized_embedding_byte_dtype_out(ctx, weight, scales, no_zeros, -128, 127, indices,
                                                             ScalarType::Half, out));
  Tensor packed = b.make({3, 2}, {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc});
  EXPECT_ACCEPTED(native::quantized_embedding_4bit_out(ctx, packed, scales, no_zeros, -8, 7, indices, out));
  Tensor packed_char = c.make({3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_REJECTED(native::quantized_embedding_4bit_out(ctx, packed_char, scales, no_zeros, -8, 7, indices, out));
  Tensor packed1 = b.make({3, 1}, {0x12, 0x34, 0x56});
  EXPECT_ACCEPTED(native::quantized_embedding_2bit_out(ctx, packed1, scales, no_zeros, -2, 1, indices, out));
  EXPECT_REJECTED(native::quantized_embedding_2bit_out(ctx, packed1, scales, no_zeros, -2, 1, far, out));
}

TEST_F(QuantizedBadArguments, MixedPrecisionProducts) {
  Tensor in = f.make({1, 3}, {1, 2, 3});
  Tensor weight = c.make({3, 2}, {1, 2, 3, 4, 5, 6});
  Tensor scales = f.make({3}, {0.1, 0.2, 0.3});
  const std::optional<Tensor> no_zeros;
  Tensor out = f.zeros({1, 2});
  EXPECT_ACCEPTED(native::quantized_mixed_mm_out(ctx, in, weight, scales, no_zeros, out));
  Tensor float_weight = f.zeros({3, 2}), short_rows = c.zeros({2, 2});
  EXPECT_REJECTED(native::quantized_mixed_mm_out(ctx, in, float_weight, scales, no_zeros, out));
  EXPECT_REJECTED(native::quantized_mixed_mm_out(ctx, in, short_rows, scales, no_zeros, out));
  const std::optional<Tensor> zeros(f.make({3}, {0, 0, 0}));
  EXPECT_REJECTED(native::quantized_mixed_mm_out(ctx, in, weight, scales, zeros, out));
  Tensor linear_weight = c.make({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row_scales = f.make({2}, {0.1, 0.2});
  EXPECT_ACCEPTED(
      native::quantized_mixed_linear_out(ctx, in, linear_weight, row_scales, no_zeros, ScalarType::Float, out));
  EXPECT_REJECTED(
      native::quantized_mixed_linear_out(ctx, in, linear_weight, row_scales, no_zeros, ScalarType::Double, out));
  Tensor three_rows = f.make({3}, {0.1, 0.2, 0.3});
  EXPECT_REJECTED(
      native::quantized_mixed_linear_out(ctx, in, linear_weight, three_rows, no_zeros, std::nullopt, out));
  Tensor double_scales = d.make({2}, {0.1, 0.2});
  EXPECT_REJECTED(
      native::quantized_mixed_linear_out(ctx, in, linear_weight, double_scales, no_zeros, std::nullopt, out));
}

TEST_F(QuantizedBadArguments, Add) {
  Tensor a = b.make({2}, {10, 20}), other = b.make({2}, {30, 40}), out = b.zeros({2});
  EXPECT_ACCEPTED(native::quantized_add_out(ctx, a, 0.5, 0, 0, 255, other, 0.5, 0, 0, 255, 1.0, 0, 0, 255, out));
  Tensor char_b = c.make({2}, {1, 2}), longer = b.zeros({3});
  EXPECT_REJECTED(native::quantized_add_out(ctx, a, 0.5, 0, 0, 255, char_b, 0.5, 0, 0, 255, 1.0, 0, 0, 255, out));
  EXPECT_REJECTED(native::quantized_add_out(ctx, a, 0.5, 0, 0, 255, longer, 0.5, 0, 0, 255, 1.0, 0, 0, 255, out));
  EXPECT_REJECTED(native::quantized_add_out(ctx, a, 0.5, 0, 0, 256, other, 0.5, 0, 0, 255, 1.0, 0, 0, 255, out));
  EXPECT_REJECTED(native::quantized_add_out(ctx, a, 0.5, 0, 0, 255, other, 0.5, 0, 0, 255, 0.0, 0, 0, 255, out));
}

}  // namespace
