// Batch normalisation with given statistics, shared by the inference kernel
// (_native_batch_norm_legit_no_training) and the training kernel's
// not-training path (_native_batch_norm_legit with training=false), so that
// neither kernel calls the other: each switches under its own name, which a
// dtype-selective build keeps or drops with that operator.
#pragma once

#include "fast_math.h"
#include "parallel_util.h"
#include "unary_util.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <type_traits>

#if defined(ETSB_X86_BUILDS)
#include <immintrin.h>
#endif

namespace etsb {
namespace kernels {

using BatchNormOutputs = std::tuple<::executorch::aten::Tensor&, ::executorch::aten::Tensor&,
                                    ::executorch::aten::Tensor&>;

/// Channels whose scale and shift are folded at a time (on the stack).
constexpr int64_t kBatchNormChunk = 64;

/// y = x * scale[c] + shift[c] over `channels` planes of `inner` floats:
/// one loop for a chunk of channels, so that small planes (a deep layer's
/// 2x2) pay no per-channel call. Memory-bound: no faster on AVX-512 than
/// on AVX2 (MobileNet-v2 at 224 px), so two builds (ETSB_NARROW_LOOP).
ETSB_NARROW_LOOP static void affine_planes_f32(const float* __restrict x, float* __restrict y,
                                               const float* __restrict scale, const float* __restrict shift,
                                               int64_t channels, int64_t inner) {
#if defined(__GNUC__) && !defined(ETSB_KERNELS_ONE_PATH)
  if (inner == 4) {  // 2x2 planes (a CNN's last stage at 64 px), one 4-lane vector each: 8x the loop below
    typedef float Lanes __attribute__((vector_size(16)));
    for (int64_t c = 0; c < channels; ++c) {
      Lanes v;
      std::memcpy(&v, x + 4 * c, sizeof v);
      v = v * scale[c] + shift[c];
      std::memcpy(y + 4 * c, &v, sizeof v);
    }
    return;
  }
  if (inner % 8 == 0) {  // 4x4 planes and up: 8-lane vectors, without the vectoriser's per-channel checks and tails
    // (multiply then add, rounded twice as the AVX2 and baseline builds and the 2x2 path round, on every CPU; the
    // vectorised loop below fuses its 16-lane body on AVX-512, so it would round these planes by the CPU)
    typedef float Lanes8 __attribute__((vector_size(32)));
    for (int64_t c = 0; c < channels; ++c) {
      const float a = scale[c], b = shift[c];
      for (int64_t i = c * inner; i < (c + 1) * inner; i += 8) {
        Lanes8 v;
        std::memcpy(&v, x + i, sizeof v);
        v = v * a + b;
        std::memcpy(y + i, &v, sizeof v);
      }
    }
    return;
  }
#endif
  for (int64_t c = 0; c < channels; ++c) {
    const float a = scale[c], b = shift[c];
    for (int64_t i = 0; i < inner; ++i) y[c * inner + i] = x[c * inner + i] * a + b;
  }
}

#if defined(ETSB_X86_BUILDS)
/// fold_batch_norm_f32's first channels, 8 at a time (AVX2): the number
/// folded. GCC vectorises no square root that must set errno (the kernels'
/// flags keep -fmath-errno, and an optimize attribute does not lift it), so
/// the vectors are spelt out; each lane rounds as the scalar loop does.
ETSB_AVX2_BUILD static int64_t fold_batch_norm_avx2(const float* w, const float* b, const float* mean,
                                                    const float* var, float eps, int64_t c0, int64_t count,
                                                    float* scale, float* shift) {
  const __m256 e = _mm256_set1_ps(eps), one = _mm256_set1_ps(1.0f);
  int64_t c = 0;
  for (; c + 8 <= count; c += 8) {
    __m256 a = _mm256_div_ps(one, _mm256_sqrt_ps(_mm256_add_ps(_mm256_loadu_ps(var + c0 + c), e)));
    if (w != nullptr) a = _mm256_mul_ps(a, _mm256_loadu_ps(w + c0 + c));
    const __m256 bias = b != nullptr ? _mm256_loadu_ps(b + c0 + c) : _mm256_setzero_ps();
    _mm256_storeu_ps(scale + c, a);
    _mm256_storeu_ps(shift + c, _mm256_sub_ps(bias, _mm256_mul_ps(_mm256_loadu_ps(mean + c0 + c), a)));
  }
  return c;
}
#endif

/// scale[c] = w[c0 + c] / sqrt(var[c0 + c] + eps) and shift[c] = b[c0 + c]
/// - mean[c0 + c] * scale[c] for c < count (weight 1 and bias 0 where
/// null), as the other dtypes fold them; 8 channels at a time where AVX2
/// runs: at MobileNet-v2's deep layers (2x2 to 7x7 planes) the scalar square
/// roots and divisions took about as long as the planes themselves.
inline void fold_batch_norm_f32(const float* w, const float* b, const float* mean, const float* var, double eps,
                                int64_t c0, int64_t count, float* scale, float* shift) {
  int64_t c = 0;
#if defined(ETSB_X86_BUILDS)
  if (avx2_runs()) c = fold_batch_norm_avx2(w, b, mean, var, static_cast<float>(eps), c0, count, scale, shift);
#endif
  for (; c < count; ++c) {
    const float invstd = 1.0f / std::sqrt(var[c0 + c] + static_cast<float>(eps));
    scale[c] = w != nullptr ? invstd * w[c0 + c] : invstd;
    shift[c] = (b != nullptr ? b[c0 + c] : 0.0f) - mean[c0 + c] * scale[c];
  }
}

/// Batch normalisation of Float [N, C, inner] (w, b optional: null) over
/// channels [c_lo, c_hi): scale and shift folded per chunk of channels
/// (fold_batch_norm_f32), then each image's planes of the chunk in one
/// affine_planes_f32 call.
inline void batch_norm_f32_channels(const float* x, float* y, const float* w, const float* b, const float* mean,
                                    const float* var, double eps, int64_t batch, int64_t channels, int64_t inner,
                                    int64_t c_lo, int64_t c_hi) {
  float scale[kBatchNormChunk], shift[kBatchNormChunk];
  for (int64_t c0 = c_lo; c0 < c_hi; c0 += kBatchNormChunk) {
    const int64_t count = c_hi - c0 < kBatchNormChunk ? c_hi - c0 : kBatchNormChunk;
    fold_batch_norm_f32(w, b, mean, var, eps, c0, count, scale, shift);
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t base = (n * channels + c0) * inner;
      affine_planes_f32(x + base, y + base, scale, shift, count, inner);
    }
  }
}

/// A channel's folding (a square root and a division, ~3.8 ns) in elements
/// of affine_planes_f32 (~0.06 ns each), and the elements of a piece worth
/// a thread: batch norm's own measure for parallel_range. A quarter of a
/// microsecond: with the pool's workers kept spinning (parallel_util.h's
/// run_on_pool), a batch norm cut by channel as the convolution before it
/// reads its own thread's cache (ShuffleNet-v2's 116 x 14 x 14, at 1 us
/// not cut: 7-10% of its two-thread time; 4x as long: MobileNet-v3 8% slower).
constexpr int64_t kBatchNormFoldWork = 64;
constexpr int64_t kBatchNormTaskWork = 4096;

/// Batch normalisation of Float [N, C, inner] (batch_norm_f32_channels),
/// cut by channel on the thread pool (parallel_range): a channel's scale,
/// shift and outputs do not depend on the cut, so neither do the results.
/// A cut by position within each plane (as a convolution cuts its output
/// columns) was slower on two threads, in MobileNet-v2 (a loaded machine)
/// and in a loop of 96 x 112 x 112 alone: 150 us by position after a
/// producer cut by position, 53 by channel after one cut by channel, 80 by
/// channel after one cut by position. At 224 px the largest
/// planes run at the memory's speed, their outputs out of cache: 0.25 ms
/// for 96 x 112 x 112 in the model, 0.13 ms with every buffer in cache.
inline void batch_norm_f32(const float* x, float* y, const float* w, const float* b, const float* mean,
                           const float* var, double eps, int64_t batch, int64_t channels, int64_t inner) {
  const int64_t channel_work = batch * inner + kBatchNormFoldWork;
  parallel_range(0, channels, (kBatchNormTaskWork + channel_work - 1) / channel_work, [&](int64_t lo, int64_t hi) {
    batch_norm_f32_channels(x, y, w, b, mean, var, eps, batch, channels, inner, lo, hi);
  });
}

/// out0 = (input - running_mean) / sqrt(running_var + eps) * weight + bias
/// per channel (dim 1 of a [N, C, ...] input; weight and bias optional),
/// computed as input * a + b with a and b folded once per channel, as ATen
/// does. Floating dtypes (Half and BFloat16 in float), all tensors alike and
/// contiguous; out0 is resized to input's shape, out1 and out2 (the saved
/// statistics, empty when not training) to [0]. `name` is the calling
/// operator's switch name.
inline BatchNormOutputs batch_norm_with_running_stats(
    KernelRuntimeContext& ctx, const char* name, const ::executorch::aten::Tensor& input,
    const std::optional<::executorch::aten::Tensor>& weight, const std::optional<::executorch::aten::Tensor>& bias,
    const ::executorch::aten::Tensor& running_mean, const ::executorch::aten::Tensor& running_var, double eps,
    ::executorch::aten::Tensor& out0, ::executorch::aten::Tensor& out1, ::executorch::aten::Tensor& out2) {
  BatchNormOutputs outs(out0, out1, out2);
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, outs, "%s: input must have at least 2 dims", name);
  const int64_t channels = input.sizes()[1];
  ET_KERNEL_CHECK_MSG(ctx,
                      is_floating(dtype) && out0.scalar_type() == dtype && channel_param_ok(weight, channels, dtype) &&
                          channel_param_ok(bias, channels, dtype) && channel_param_ok(running_mean, channels, dtype) &&
                          channel_param_ok(running_var, channels, dtype),
                      InvalidArgument, outs,
                      "%s: weight, bias, running_mean and running_var must be [C] of the input's floating dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(input) && is_contiguous(out0), InvalidArgument, outs,
                      "%s: input and out must be contiguous", name);
  const ::executorch::aten::SizesType empty[1] = {0};
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out0, input.sizes()) && resize_to(out1, {empty, 1}) && resize_to(out2, {empty, 1}),
                      InvalidArgument, outs, "%s: cannot resize the outputs", name);
  const int64_t batch = input.sizes()[0];
  const int64_t inner = size_product(input.sizes(), 2, input.dim());
  const float* const no_param = nullptr;
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, name, CTYPE, [&]() {
    if constexpr (std::is_same<CTYPE, float>::value) {
      batch_norm_f32(input.const_data_ptr<float>(), out0.mutable_data_ptr<float>(),
                     weight.has_value() ? weight->const_data_ptr<float>() : no_param,
                     bias.has_value() ? bias->const_data_ptr<float>() : no_param,
                     running_mean.const_data_ptr<float>(), running_var.const_data_ptr<float>(), eps, batch,
                     channels, inner);
      return;
    }
    using CT = float_compute_t<CTYPE>;
    const CTYPE* x = input.const_data_ptr<CTYPE>();
    CTYPE* y = out0.mutable_data_ptr<CTYPE>();
    const CTYPE* w = weight.has_value() ? weight->const_data_ptr<CTYPE>() : nullptr;
    const CTYPE* b = bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr;
    const CTYPE* mean = running_mean.const_data_ptr<CTYPE>();
    const CTYPE* var = running_var.const_data_ptr<CTYPE>();
    for (int64_t c = 0; c < channels; ++c) {
      const CT invstd = static_cast<CT>(1) / std::sqrt(static_cast<CT>(var[c]) + static_cast<CT>(eps));
      const CT scale = w != nullptr ? invstd * static_cast<CT>(w[c]) : invstd;
      const CT shift = (b != nullptr ? static_cast<CT>(b[c]) : CT(0)) - static_cast<CT>(mean[c]) * scale;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = (n * channels + c) * inner;
        map_unary(x + base, y + base, inner,
                  [scale, shift](CTYPE v) { return static_cast<CTYPE>(static_cast<CT>(v) * scale + shift); });
      }
    }
  });
  return outs;
}

}  // namespace kernels
}  // namespace etsb
