// The row kernels of the direct depthwise Float convolution
// (depthwise_f32.h's depthwise_plane): output rows of a depthwise kernel
// from a padded, phased input plane (conv_f32.h's DepthwisePlane), 3x3 in
// one pass per row, 7x7 summing every tap in registers, others tap by tap
// (5x5 among them where depthwise_inplace_f32.h cannot take it: dilated
// down the plane, strides past 2); built for AVX-512 and AVX2 on x86-64 (no
// baseline: a CPU without AVX2 takes im2col and gemm_f32 for depthwise),
// once elsewhere.
#pragma once

#include "conv_f32.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// One output row of a 3x3 depthwise convolution, the taps' rows given.
__attribute__((always_inline)) inline void depthwise_row9(
    float* __restrict out, const float* __restrict s0, const float* __restrict s1, const float* __restrict s2,
    const float* __restrict s3, const float* __restrict s4, const float* __restrict s5, const float* __restrict s6,
    const float* __restrict s7, const float* __restrict s8, const float* wt, float bias, int64_t n) {
  const float w0 = wt[0], w1 = wt[1], w2 = wt[2], w3 = wt[3], w4 = wt[4], w5 = wt[5], w6 = wt[6], w7 = wt[7],
              w8 = wt[8];
  for (int64_t i = 0; i < n; ++i) {
    // Three partial sums: shorter chains of dependent multiply-adds.
    const float top = bias + w0 * s0[i] + w1 * s1[i] + w2 * s2[i];
    const float mid = w3 * s3[i] + w4 * s4[i] + w5 * s5[i];
    const float bottom = w6 * s6[i] + w7 * s7[i] + w8 * s8[i];
    out[i] = top + mid + bottom;
  }
}

/// out[i] += tap * src[i], i < n: one tap of any other depthwise kernel.
__attribute__((always_inline)) inline void depthwise_tap(float* __restrict out, const float* __restrict src,
                                                         float tap, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] += tap * src[i];
}

/// Adds one kernel row's K taps over outputs [i, i + W) to `sum` (row r of
/// the input, tap kw at r + off[kw]).
template <int K, typename Lanes>
__attribute__((always_inline)) inline void depthwise_square_row(Lanes& sum, const float* r, const int64_t* off,
                                                                const float* wt, int64_t i) {
  Lanes row = Lanes{};
#pragma GCC unroll 7
  for (int kw = 0; kw < K; ++kw) {
    Lanes x;
    __builtin_memcpy(&x, r + off[kw] + i, sizeof x);
    row += wt[kw] * x;
  }
  sum += row;
}

/// Outputs [i, i + W) of one output row of a KxK depthwise kernel (row r of
/// its input, tap t at r + off[t]): each kernel row's partial sum (K short
/// chains of dependent multiply-adds) added to the bias in order, and
/// stored once. The kernel rows in a loop (all unrolled, 7x7's 49 taps in
/// every run width of both instruction sets were 20 KB of code).
template <int K, int W>
__attribute__((always_inline)) inline void depthwise_square_run(float* o, const float* r, const int64_t* off,
                                                                const float* wt, float bias, int64_t i) {
  typedef float Lanes __attribute__((vector_size(W * sizeof(float))));
  Lanes total = Lanes{} + bias;
  for (int kh = 0; kh < K; ++kh) depthwise_square_row<K>(total, r, off + kh * K, wt + kh * K, i);
  __builtin_memcpy(o + i, &total, sizeof total);
}

/// Output rows of a KxK kernel (K = 7: ConvNeXt's depthwise layers) in one
/// pass per row, in runs of `Wide` outputs (a vector register's floats),
/// then 4 and 1 (depthwise_square_run: the same sums in the same order
/// whatever the run). Tap by tap loaded and stored the row again for every
/// tap and left a stride-2 row of 28 outputs 12 for scalar loops: 2.5-23
/// GFLOP/s on EfficientNet's 5x5 layers (when they ran here), 1.2-2.9x the
/// time.
template <int K, int Wide>
__attribute__((always_inline)) inline void depthwise_rows_square(float* out, int64_t out_stride, const float* base,
                                                                 int64_t step, int64_t rows, int64_t n,
                                                                 const float* wt, float bias,
                                                                 const DepthwisePlane& p) {
  // The taps' offsets (DepthwisePlane::tap_offset) by kernel row and column: K divisions, where a
  // tap_offset per tap took 3K^2 (a 7x7 plane's 1,825 multiply-adds took less time than its 75).
  int64_t column[K], off[K * K];
  for (int kw = 0; kw < K; ++kw) {
    const int64_t col = kw * p.dilation_w, phase = col / p.stride_w;
    column[kw] = (col - phase * p.stride_w) * p.phase_len + phase;
  }
  for (int kh = 0; kh < K; ++kh) {
    for (int kw = 0; kw < K; ++kw) off[kh * K + kw] = kh * p.dilation_h * p.row_len + column[kw];
  }
  for (int64_t oh = 0; oh < rows; ++oh) {
    const float* r = base + oh * step;
    float* o = out + oh * out_stride;
    int64_t i = 0;
    for (; i + Wide <= n; i += Wide) depthwise_square_run<K, Wide>(o, r, off, wt, bias, i);
    for (; i + 4 <= n; i += 4) depthwise_square_run<K, 4>(o, r, off, wt, bias, i);
    for (; i < n; ++i) depthwise_square_run<K, 1>(o, r, off, wt, bias, i);
  }
}

/// out[oh * out_stride + ow] for rows oh < rows of `n` outputs each, where
/// row oh reads from base + oh * step: 3x3 and 7x7 kernels in one pass per
/// row, others tap by tap (depthwise_rows' body, built per instruction
/// set).
template <int Wide>
__attribute__((always_inline)) inline void depthwise_rows_body(float* out, int64_t out_stride, const float* base,
                                                               int64_t step, int64_t rows, int64_t n,
                                                               const float* wt, float bias, const DepthwisePlane& p) {
  if (p.kernel_h == 7 && p.kernel_w == 7) {
    return depthwise_rows_square<7, Wide>(out, out_stride, base, step, rows, n, wt, bias, p);
  }
  if (p.kernel_h == 3 && p.kernel_w == 3) {
    int64_t off[9];
    for (int64_t t = 0; t < 9; ++t) off[t] = p.tap_offset(t);
    for (int64_t oh = 0; oh < rows; ++oh) {
      const float* r = base + oh * step;
      depthwise_row9(out + oh * out_stride, r + off[0], r + off[1], r + off[2], r + off[3], r + off[4],
                     r + off[5], r + off[6], r + off[7], r + off[8], wt, bias, n);
    }
    return;
  }
  const int64_t taps = p.kernel_h * p.kernel_w;
  constexpr int64_t kKept = 64;  // taps whose offsets are worked out once (up to 8x8)
  int64_t off[kKept];
  for (int64_t t = 0; t < taps && t < kKept; ++t) off[t] = p.tap_offset(t);
  for (int64_t oh = 0; oh < rows; ++oh) {
    float* row = out + oh * out_stride;
    for (int64_t i = 0; i < n; ++i) row[i] = bias;
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t at = t < kKept ? off[t] : p.tap_offset(t);
      depthwise_tap(row, base + oh * step + at, wt[t], n);
    }
  }
}

#if defined(ETSB_X86_BUILDS)
// On x86-64 an AVX-512 and an AVX2 build, no baseline: a CPU without AVX2
// takes im2col and gemm_f32 for depthwise (depthwise_f32_runs).
ETSB_AVX512_BUILD static void depthwise_rows_avx512(float* out, int64_t out_stride, const float* base, int64_t step,
                                                    int64_t rows, int64_t n, const float* wt, float bias,
                                                    const DepthwisePlane& p) {
  depthwise_rows_body<16>(out, out_stride, base, step, rows, n, wt, bias, p);
}
ETSB_AVX2_BUILD static void depthwise_rows_avx2(float* out, int64_t out_stride, const float* base, int64_t step,
                                                int64_t rows, int64_t n, const float* wt, float bias,
                                                const DepthwisePlane& p) {
  depthwise_rows_body<8>(out, out_stride, base, step, rows, n, wt, bias, p);
}
#else
ETSB_HOT_LOOP static void depthwise_rows_vector(float* out, int64_t out_stride, const float* base, int64_t step,
                                                int64_t rows, int64_t n, const float* wt, float bias,
                                                const DepthwisePlane& p) {
  depthwise_rows_body<4>(out, out_stride, base, step, rows, n, wt, bias, p);  // NEON's 4 floats
}
#endif

/// depthwise_rows_body on the widest vector unit this CPU has.
inline void depthwise_rows(float* out, int64_t out_stride, const float* base, int64_t step, int64_t rows, int64_t n,
                           const float* wt, float bias, const DepthwisePlane& p) {
#if defined(ETSB_X86_BUILDS)
  if (__builtin_cpu_supports("avx512f")) {
    return depthwise_rows_avx512(out, out_stride, base, step, rows, n, wt, bias, p);
  }
  depthwise_rows_avx2(out, out_stride, base, step, rows, n, wt, bias, p);
#else
  depthwise_rows_vector(out, out_stride, base, step, rows, n, wt, bias, p);
#endif
}

}  // namespace kernels
}  // namespace etsb
