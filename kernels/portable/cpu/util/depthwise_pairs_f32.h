// Depthwise Float convolution, 3x3 with stride 2 and padding 1, from input
// rows of 9 to 32 floats, on AVX-512, in NCHW as it is. From rows of up to
// 16 (output rows of 5 to 8: MobileNet-v2's 16x16 to 8x8, 14x14 to 7x7 at
// 224 px), two output rows to a vector (lanes 0-7 one of the plane's upper
// half, 8-15 its counterpart in the lower half), each tap's inputs for both
// picked by one two-vector permute from the two input rows it reads (each
// row one vector), a kernel row's permutes shared by the next vector: six
// permutes and nine multiply-adds a vector of outputs, where
// depthwise_inplace_f32.h's AVX2 build (rows of up to 8) spent more shuffles on
// half as many outputs. From rows of 17 to 32 (32x32 to 16x16), a vector an
// output row, each input row's two vectors permuted once per kernel column,
// the row kept for the next output row (run_wide: 1.35x faster than
// depthwise_inplace_f32.h's deinterleave, shift and scalar load). x86-64 with GCC
// only, as depthwise_tiny_f32.h.
#pragma once

#include "depthwise_tiny_f32.h"
#include "pool_util.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// Whether depthwise_pairs takes a depthwise convolution: 3x3, stride 2,
/// dilation 1 and padding 1 on both axes, input rows of 9 to 32 floats
/// (narrower ones depthwise_tiny takes whole), and a CPU with AVX-512.
inline bool depthwise_pairs_fits(const Window& h, const Window& w) {
  return is_3x3_padded_by_1(h, w, 2) && w.in > 8 && w.in <= 32 && depthwise_avx512_runs();
}

#if defined(ETSB_DEPTHWISE_TINY)
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace depthwise_pairs_avx512 {

/// Input row i of a plane (in_h rows of in_w floats), zero outside it.
__attribute__((always_inline)) inline __m512 input_row(const float* x, int64_t i, int64_t in_h, int64_t in_w,
                                                       __mmask16 row) {
  return i >= 0 && i < in_h ? _mm512_maskz_loadu_ps(row, x + i * in_w) : _mm512_setzero_ps();
}

/// One kernel row's inputs for a vector, per kernel column: lanes 0-7 from
/// the input row `a`, lanes 8-15 from `b`.
struct Taps {
  __m512 c0, c1, c2;
};

/// One output channel's nine taps and its bias, each in every lane.
struct Kernel3x3 {
  __m512 k[9];
  __m512 bias;
};

inline Kernel3x3 kernel_of(const float* weight, const float* bias, int64_t oc) {
  const float* k = weight + oc * 9;
  return {{_mm512_set1_ps(k[0]), _mm512_set1_ps(k[1]), _mm512_set1_ps(k[2]), _mm512_set1_ps(k[3]),
           _mm512_set1_ps(k[4]), _mm512_set1_ps(k[5]), _mm512_set1_ps(k[6]), _mm512_set1_ps(k[7]),
           _mm512_set1_ps(k[8])},
          _mm512_set1_ps(bias != nullptr ? bias[oc] : 0.0f)};
}

/// The bias plus the kernel's rows over the taps of three input rows, in three partial sums (shorter chains of
/// dependent multiply-adds), added first to second, then the third.
inline __m512 sum3x3(const Kernel3x3& kernel, const Taps& top, const Taps& mid, const Taps& low) {
  const __m512* k = kernel.k;
  const __m512 s0 = _mm512_fmadd_ps(k[2], top.c2, _mm512_fmadd_ps(k[1], top.c1, _mm512_fmadd_ps(k[0], top.c0,
                                                                                                  kernel.bias)));
  const __m512 s1 = _mm512_fmadd_ps(k[5], mid.c2, _mm512_fmadd_ps(k[4], mid.c1, _mm512_mul_ps(k[3], mid.c0)));
  const __m512 s2 = _mm512_fmadd_ps(k[8], low.c2, _mm512_fmadd_ps(k[7], low.c1, _mm512_mul_ps(k[6], low.c0)));
  return _mm512_add_ps(_mm512_add_ps(s0, s1), s2);
}

/// index, inside: per kernel column, each lane's column within its row
/// (+ 16 for lanes 8-15: row b) and whether it lies inside the row.
__attribute__((always_inline)) inline Taps taps_of(__m512 a, __m512 b, const __m512i* index,
                                                   const __mmask16* inside) {
  return Taps{_mm512_maskz_permutex2var_ps(inside[0], a, index[0], b),
              _mm512_maskz_permutex2var_ps(inside[1], a, index[1], b),
              _mm512_maskz_permutex2var_ps(inside[2], a, index[2], b)};
}

/// depthwise_pairs on AVX-512. With half = ceil(out_h / 2), lane j of
/// vector m is column j % 8 of output row m (j < 8) or m + half (j >= 8),
/// whose tap (kh, kw) reads input row 2 * that row - 1 + kh, column
/// 2 (j % 8) - 1 + kw: kernel row 2 of vector m reads the rows kernel row
/// 0 of vector m + 1 does, its permutes kept for it (six a vector). Each
/// output sums its bias and the kernel rows in order, whatever the cut of
/// the channels.
inline void run(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                int64_t multiplier, const Window& h, const Window& w) {
  const int64_t in_h = h.in, in_w = w.in, out_h = h.out, out_w = w.out, in_plane = h.in * w.in;
  const int64_t out_plane = h.out * w.out, half = (h.out + 1) / 2;
  const __mmask16 row = static_cast<__mmask16>((1u << in_w) - 1);  // in_w <= 16
  alignas(64) int32_t columns[3][16];
  __mmask16 inside[3];
  for (int kw = 0; kw < 3; ++kw) {
    unsigned lanes = 0;
    for (int j = 0; j < 16; ++j) {
      const int column = 2 * (j % 8) - 1 + kw;
      columns[kw][j] = (j / 8) * 16 + (column < 0 ? 0 : column);
      if (column >= 0 && column < in_w && j % 8 < out_w) lanes |= 1u << j;
    }
    inside[kw] = static_cast<__mmask16>(lanes);
  }
  const __m512i index[3] = {_mm512_load_si512(columns[0]), _mm512_load_si512(columns[1]),
                            _mm512_load_si512(columns[2])};
  const __mmask16 first = static_cast<__mmask16>((1u << out_w) - 1);  // out_w <= 8
  const __mmask16 second = static_cast<__mmask16>(first << 8);
  const int64_t gap = 2 * half;  // input rows between a vector's two halves
  for (int64_t oc = 0; oc < channels * multiplier; ++oc) {
    const float* x = in + oc / multiplier * in_plane;
    const Kernel3x3 kernel = kernel_of(weight, bias, oc);
    float* o = out + oc * out_plane;
    Taps top = taps_of(input_row(x, -1, in_h, in_w, row), input_row(x, gap - 1, in_h, in_w, row), index, inside);
    for (int64_t m = 0; m < half; ++m) {
      const int64_t r = 2 * m;  // kernel row 1's input row for lanes 0-7
      const Taps mid = taps_of(input_row(x, r, in_h, in_w, row), input_row(x, r + gap, in_h, in_w, row), index,
                               inside);
      const Taps low = taps_of(input_row(x, r + 1, in_h, in_w, row),
                               input_row(x, r + 1 + gap, in_h, in_w, row), index, inside);
      const __m512 sum = sum3x3(kernel, top, mid, low);
      _mm512_mask_storeu_ps(o + m * out_w, first, sum);
      // Lanes 8 on at row m + half (if inside the plane): from 8 floats before it.
      if (m + half < out_h) _mm512_mask_storeu_ps(o + (m + half) * out_w - 8, second, sum);
      top = low;
    }
  }
}

/// depthwise_pairs for input rows of 17 to 32 floats (outputs rows of 9
/// to 16): a vector an output row, each input row's two vectors permuted
/// once per kernel column, the row kept for the next output row.
inline void run_wide(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                     int64_t multiplier, const Window& h, const Window& w) {
  const int64_t in_h = h.in, in_w = w.in, out_h = h.out, out_w = w.out, in_plane = h.in * w.in;
  const int64_t out_plane = h.out * w.out;
  const __mmask16 rest = static_cast<__mmask16>(in_w >= 32 ? 0xFFFFu : (1u << (in_w - 16)) - 1);
  const __mmask16 store = static_cast<__mmask16>(out_w >= 16 ? 0xFFFFu : (1u << out_w) - 1);
  alignas(64) int32_t columns[3][16];
  __mmask16 inside[3];
  for (int kw = 0; kw < 3; ++kw) {
    unsigned lanes = 0;
    for (int j = 0; j < 16; ++j) {
      const int column = 2 * j - 1 + kw;
      columns[kw][j] = column < 0 ? 0 : column;
      if (column >= 0 && column < in_w && j < out_w) lanes |= 1u << j;
    }
    inside[kw] = static_cast<__mmask16>(lanes);
  }
  const __m512i index[3] = {_mm512_load_si512(columns[0]), _mm512_load_si512(columns[1]),
                            _mm512_load_si512(columns[2])};
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t oc = 0; oc < channels * multiplier; ++oc) {
    const float* x = in + oc / multiplier * in_plane;
    const Kernel3x3 kernel = kernel_of(weight, bias, oc);
    float* o = out + oc * out_plane;
    Taps top = taps_of(zero, zero, index, inside);  // input row -1: the padding
    for (int64_t oh = 0; oh < out_h; ++oh, o += out_w) {
      const float* r = x + 2 * oh * in_w;  // kernel row 1's input row (inside: padding 1)
      const Taps mid = taps_of(_mm512_loadu_ps(r), _mm512_maskz_loadu_ps(rest, r + 16), index, inside);
      const bool below = 2 * oh + 1 < in_h;
      const Taps low = below ? taps_of(_mm512_loadu_ps(r + in_w), _mm512_maskz_loadu_ps(rest, r + in_w + 16), index,
                                       inside)
                             : taps_of(zero, zero, index, inside);
      _mm512_mask_storeu_ps(o, store, sum3x3(kernel, top, mid, low));
      top = low;
    }
  }
}

}  // namespace depthwise_pairs_avx512
#pragma GCC pop_options
#endif

/// Depthwise convolution of `channels` input planes, `multiplier` output
/// channels each, that depthwise_pairs_fits, on AVX-512. No scratch.
inline void depthwise_pairs(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                            int64_t multiplier, const Window& h, const Window& w) {
#if defined(ETSB_DEPTHWISE_TINY)
  if (w.in > 16) return depthwise_pairs_avx512::run_wide(in, weight, bias, out, channels, multiplier, h, w);
  depthwise_pairs_avx512::run(in, weight, bias, out, channels, multiplier, h, w);
#else
  unused_without_avx512(in, weight, bias, out, channels, multiplier, h, w);
#endif
}

}  // namespace kernels
}  // namespace etsb
