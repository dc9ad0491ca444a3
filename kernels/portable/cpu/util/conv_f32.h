// The Float convolution's data movement around the matrix products of
// op_convolution.cpp: im2col over a range of output columns (gemm_f32.h's
// right operand), the same patches as rows (dot_f32.h's), and the direct
// depthwise kernel, vectorised along an output row.
#pragma once

#include "fast_math.h"
#include "pool_util.h"

#include <cstdint>
#include <cstring>

namespace etsb {
namespace kernels {

/// The output positions [lo, hi) along axis a whose input position o *
/// stride - pad + off falls inside [0, in).
inline void valid_range(const Window& a, int64_t off, int64_t* lo, int64_t* hi) {
  const int64_t shift = a.pad - off;  // o * stride >= shift
  int64_t l = shift <= 0 ? 0 : (shift + a.stride - 1) / a.stride;
  const int64_t last = a.in - 1 + a.pad - off;  // o * stride <= last
  int64_t h = last < 0 ? 0 : last / a.stride + 1;
  if (h > a.out) h = a.out;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/// col[(c, kh, kw), j - j0] = x[c, oh * stride - pad + kh * dilation, ...]
/// for the output positions j = oh * OW + ow in [j0, j1) (zero where that
/// falls in the padding), for `channels` planes of x: the columns [j0, j1)
/// of the matrix whose product with the weights is the convolution.
inline void im2col_columns(const float* x, float* col, int64_t channels, const Window& h, const Window& w,
                           int64_t j0, int64_t j1) {
  const int64_t width = j1 - j0;
  for (int64_t c = 0; c < channels; ++c) {
    const float* plane = x + c * h.in * w.in;
    for (int64_t kh = 0; kh < h.kernel; ++kh) {
      int64_t oh_lo, oh_hi;
      valid_range(h, kh * h.dilation, &oh_lo, &oh_hi);
      for (int64_t kw = 0; kw < w.kernel; ++kw) {
        float* row = col + ((c * h.kernel + kh) * w.kernel + kw) * width - j0;
        int64_t ow_lo, ow_hi;
        valid_range(w, kw * w.dilation, &ow_lo, &ow_hi);
        for (int64_t oh = j0 / w.out; oh * w.out < j1; ++oh) {
          const int64_t first = oh * w.out > j0 ? 0 : j0 - oh * w.out;  // this row's columns in range
          const int64_t end = (oh + 1) * w.out < j1 ? w.out : j1 - oh * w.out;
          float* dst = row + oh * w.out;
          if (oh < oh_lo || oh >= oh_hi) {
            for (int64_t ow = first; ow < end; ++ow) dst[ow] = 0.0f;
            continue;
          }
          const int64_t lo = ow_lo > first ? ow_lo : first;
          const int64_t hi = ow_hi < end ? ow_hi : end;
          const float* src = plane + (oh * h.stride - h.pad + kh * h.dilation) * w.in - w.pad + kw * w.dilation;
          for (int64_t ow = first; ow < lo && ow < end; ++ow) dst[ow] = 0.0f;
          if (w.stride == 1) {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow];
          } else {
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = src[ow * w.stride];
          }
          for (int64_t ow = hi > lo ? hi : lo; ow < end; ++ow) dst[ow] = 0.0f;
        }
      }
    }
  }
}

/// rows[j - j0, (c, kh, kw)]: output position j's patch of `channels` planes
/// of x (zero in the padding), for j in [j0, j1): im2col transposed, each
/// patch contiguous (dot_f32.h's right operand).
inline void patch_rows(const float* x, float* rows, int64_t channels, const Window& h, const Window& w, int64_t j0,
                       int64_t j1) {
  const int64_t depth = channels * h.kernel * w.kernel;
  for (int64_t j = j0; j < j1; ++j) {
    const int64_t oh = j / w.out;
    const int64_t ow = j % w.out;
    float* dst = rows + (j - j0) * depth;
    for (int64_t c = 0; c < channels; ++c) {
      const float* plane = x + c * h.in * w.in;
      for (int64_t kh = 0; kh < h.kernel; ++kh) {
        const int64_t ih = oh * h.stride - h.pad + kh * h.dilation;
        const bool row_in = ih >= 0 && ih < h.in;
        for (int64_t kw = 0; kw < w.kernel; ++kw) {
          const int64_t iw = ow * w.stride - w.pad + kw * w.dilation;
          *dst++ = row_in && iw >= 0 && iw < w.in ? plane[ih * w.in + iw] : 0.0f;
        }
      }
    }
  }
}

/// Where one plane of a depthwise convolution is read from: rows of
/// row_len floats, each `stride` phases of phase_len (phase r holds the
/// padded columns r, r + stride, ...), and the kernel's geometry.
struct DepthwisePlane {
  int64_t out_h, out_w, kernel_h, kernel_w, dilation_h, dilation_w, stride_h, stride_w, row_len, phase_len;

  /// The offset tap t of the kernel reads at, from its output row's first row.
  int64_t tap_offset(int64_t t) const {
    const int64_t col = (t % kernel_w) * dilation_w;
    return (t / kernel_w) * dilation_h * row_len + (col % stride_w) * phase_len + col / stride_w;
  }
};

/// The floats depthwise_f32 needs as scratch: one input plane, padded and
/// split into `stride` phases per row, one more row, and an output plane on
/// the padded grid.
inline int64_t depthwise_scratch(const Window& h, const Window& w) {
  const int64_t padded_w = w.in + 2 * w.pad;
  return (h.in + 2 * h.pad + 1 + h.out) * w.stride * ((padded_w + w.stride - 1) / w.stride);
}

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

/// out[i] (=|+=) tap * src[i], i < n: one tap of any other depthwise kernel.
__attribute__((always_inline)) inline void depthwise_tap(float* __restrict out, const float* __restrict src,
                                                         float tap, int64_t n, bool first, float bias) {
  if (first) {
    for (int64_t i = 0; i < n; ++i) out[i] = bias + tap * src[i];
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] += tap * src[i];
  }
}

/// out[oh * out_stride + ow] for rows oh < rows of `n` outputs each, where
/// row oh reads from base + oh * step: 3x3 kernels in one pass per row,
/// others tap by tap.
__attribute__((always_inline)) inline void depthwise_rows(float* out, int64_t out_stride, const float* base,
                                                          int64_t step, int64_t rows, int64_t n, const float* wt,
                                                          float bias, const DepthwisePlane& p) {
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
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t at = t < kKept ? off[t] : p.tap_offset(t);
      depthwise_tap(out + oh * out_stride, base + oh * step + at, wt[t], n, t == 0, bias);
    }
  }
}

/// Output rows narrower than this, with stride 1, are computed as one run
/// across the padded plane's rows (see depthwise_plane).
constexpr int64_t kNarrowRow = 32;

/// One output plane of a depthwise convolution from its (padded, phased)
/// input plane `base`. With stride 1 and narrow rows, one long run: the
/// outputs on the padded plane's grid (row_len per row, the columns past
/// out_w wasted) into `wide` ((out_h - 1) * row_len + out_w floats), then
/// the plane's own columns copied out, so short rows still fill vectors.
ETSB_HOT_LOOP static void depthwise_plane(float* out, const float* base, const float* wt, float bias,
                                          const DepthwisePlane& p, float* wide) {
  if (p.stride_h == 1 && p.stride_w == 1 && p.out_w < kNarrowRow && p.out_h > 1) {
    const int64_t run = (p.out_h - 1) * p.row_len + p.out_w;
    depthwise_rows(wide, run, base, run, 1, run, wt, bias, p);
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) out[oh * p.out_w + ow] = wide[oh * p.row_len + ow];
    }
    return;
  }
  depthwise_rows(out, p.out_w, base, p.stride_h * p.row_len, p.out_h, p.out_w, wt, bias, p);
}

/// phase r of the padded row `row` (stride * phase_len floats): phases[r *
/// phase_len + i] = row[i * stride + r].
ETSB_HOT_LOOP static void split_phases(const float* __restrict row, float* __restrict phases, int64_t stride,
                                       int64_t phase_len) {
  if (stride == 2) {
    for (int64_t i = 0; i < phase_len; ++i) {
      phases[i] = row[2 * i];
      phases[phase_len + i] = row[2 * i + 1];
    }
    return;
  }
  for (int64_t r = 0; r < stride; ++r) {
    for (int64_t i = 0; i < phase_len; ++i) phases[r * phase_len + i] = row[i * stride + r];
  }
}

/// Copies plane x into `scratch` padded and split into phases (the layout
/// of DepthwisePlane); the row after them is a padded row's scratch.
inline void pad_phases(const float* x, float* scratch, const Window& h, const Window& w, int64_t phase_len) {
  const int64_t padded_h = h.in + 2 * h.pad;
  const int64_t row_len = w.stride * phase_len;
  float* padded = scratch + padded_h * row_len;
  for (int64_t pr = 0; pr < padded_h; ++pr) {
    float* row = scratch + pr * row_len;
    const int64_t ih = pr - h.pad;
    if (ih < 0 || ih >= h.in) {
      std::memset(row, 0, sizeof(float) * row_len);
      continue;
    }
    float* dst = w.stride == 1 ? row : padded;  // zeros, the row, zeros
    std::memset(dst, 0, sizeof(float) * w.pad);
    std::memcpy(dst + w.pad, x + ih * w.in, sizeof(float) * w.in);
    std::memset(dst + w.pad + w.in, 0, sizeof(float) * (row_len - w.pad - w.in));
    if (w.stride != 1) split_phases(padded, row, w.stride, phase_len);
  }
}

/// Depthwise convolution of one image (one input channel per group,
/// `multiplier` output channels per input channel), direct. Each input
/// plane is read in place when it needs no padding and has stride 1, else
/// copied once into `scratch` (depthwise_scratch floats) by pad_phases, so
/// that every tap reads a contiguous run for a whole output row, which
/// depthwise_plane vectorises.
inline void depthwise_f32(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                          int64_t multiplier, const Window& h, const Window& w, float* scratch) {
  const bool in_place = h.pad == 0 && w.pad == 0 && w.stride == 1;
  const int64_t phase_len = in_place ? w.in : (w.in + 2 * w.pad + w.stride - 1) / w.stride;
  const DepthwisePlane plane{h.out,      w.out,    h.kernel, w.kernel,
                             h.dilation, w.dilation, h.stride, w.stride,
                             in_place ? w.in : w.stride * phase_len, phase_len};
  const int64_t taps = h.kernel * w.kernel;
  float* wide = scratch + (h.in + 2 * h.pad + 1) * w.stride * phase_len;
  for (int64_t c = 0; c < channels; ++c) {
    const float* x = in + c * h.in * w.in;
    if (!in_place) pad_phases(x, scratch, h, w, phase_len);
    for (int64_t m = 0; m < multiplier; ++m) {
      const int64_t oc = c * multiplier + m;
      depthwise_plane(out + oc * h.out * w.out, in_place ? x : scratch, weight + oc * taps,
                      bias != nullptr ? bias[oc] : 0.0f, plane, wide);
    }
  }
}

}  // namespace kernels
}  // namespace etsb
