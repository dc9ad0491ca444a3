// The Float convolution's data movement around the matrix products of
// op_convolution.cpp: im2col over a range of output columns (gemm_f32.h's
// right operand), the same patches as rows (dot_f32.h's), and im2col from a
// padded copy of the input, split into phases by stride (the layout the
// direct depthwise kernels of depthwise_f32.h read too); a small plane's
// im2col cut by channel for the thread pool, and a piece's bias. The
// helpers called from more than one path (patches, padding, bias) are out
// of line: one copy each, at a call's cost per plane or tile.
#pragma once

#include "fast_math.h"
#include "parallel_util.h"
#include "pool_util.h"

#include <cstdint>
#include <cstring>

namespace etsb {
namespace kernels {

/// Whether the copies take fixed-length paths for short rows (4 to 32 floats:
/// bench_conv's planes, where a loop's set-up costs more than its copy). Not
/// in etsb's size configuration (ETSB_KERNELS_ONE_PATH): code, for speed.
#if defined(ETSB_KERNELS_ONE_PATH)
constexpr bool kShortRowCopies = false;
#else
constexpr bool kShortRowCopies = true;
#endif

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

/// dst[j] = src[2 * j] for j < N: a row of a stride-2 im2col, unrolled.
template <int N>
__attribute__((always_inline)) inline void even_columns(float* __restrict dst, const float* __restrict src) {
#pragma GCC unroll 16
  for (int j = 0; j < N; ++j) dst[j] = src[2 * j];
}

/// col[(c, kh, kw), j - j0] = x[c, oh * stride - pad + kh * dilation, ...]
/// for the output positions j = oh * OW + ow in [j0, j1) (zero where that
/// falls in the padding), for `channels` planes of x: the columns [j0, j1)
/// of the matrix whose product with the weights is the convolution.
ETSB_ONE_BUILD_LOOP static void im2col_columns(const float* __restrict x, float* __restrict col, int64_t channels,
                                               const Window& h, const Window& w, int64_t j0, int64_t j1) {
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
          } else if (kShortRowCopies && w.stride == 2 && lo == 0 && hi == w.out &&
                     (w.out == 4 || w.out == 8 || w.out == 16)) {
            // a whole row of a strided 1x1 (ResNet's projections), at a fixed length: no loop set-up
            if (w.out == 4) even_columns<4>(dst, src);
            if (w.out == 8) even_columns<8>(dst, src);
            if (w.out == 16) even_columns<16>(dst, src);
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
/// patch contiguous (dot_f32.h's right operand). Up to kTableTaps taps, each
/// position's offsets are worked out once for all channels (the bounds per
/// element cost more than the copy: 8 us of a 16 us 3x3 on a 4x4 plane).
constexpr int64_t kTableTaps = 64;
__attribute__((noinline)) inline void patch_rows(const float* x, float* rows, int64_t channels, const Window& h,
                                                 const Window& w, int64_t j0, int64_t j1) {
  const int64_t taps = h.kernel * w.kernel;
  const int64_t depth = channels * taps;
  const int64_t in_plane = h.in * w.in;
  if (taps == 1 && h.pad + w.pad == 0 && j1 - j0 <= kTableTaps) {  // 1x1 unpadded: x's columns, channel by channel
    int64_t at[kTableTaps];  // where position j0 + i reads in a plane
    for (int64_t j = j0; j < j1; ++j) at[j - j0] = j / w.out * h.stride * w.in + j % w.out * w.stride;
    if (h.stride * w.stride == 1) {  // pointwise: x transposed
      for (int64_t c = 0; c < channels; ++c) {
        for (int64_t j = j0; j < j1; ++j) rows[(j - j0) * depth + c] = x[c * in_plane + j];
      }
      return;
    }
    for (int64_t c = 0; c < channels; ++c) {
      const float* plane = x + c * in_plane;
      for (int64_t j = 0; j < j1 - j0; ++j) rows[j * depth + c] = plane[at[j]];
    }
    return;
  }
  for (int64_t j = j0; j < j1; ++j) {
    const int64_t oh = j / w.out;
    const int64_t ow = j % w.out;
    float* dst = rows + (j - j0) * depth;
    if (taps <= kTableTaps) {
      int64_t at[kTableTaps];  // where tap t reads in a plane, or -1 in the padding
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t ih = oh * h.stride - h.pad + t / w.kernel * h.dilation;
        const int64_t iw = ow * w.stride - w.pad + t % w.kernel * w.dilation;
        at[t] = ih >= 0 && ih < h.in && iw >= 0 && iw < w.in ? ih * w.in + iw : -1;
      }
      for (int64_t c = 0; c < channels; ++c, dst += taps) {
        const float* plane = x + c * in_plane;
        for (int64_t t = 0; t < taps; ++t) dst[t] = at[t] >= 0 ? plane[at[t]] : 0.0f;
      }
      continue;
    }
    for (int64_t c = 0; c < channels; ++c) {
      const float* plane = x + c * in_plane;
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

/// Copies `rows` runs of N floats, `step` floats apart in src, one after
/// another into dst: a fixed length compiles to whole vector moves, where a
/// loop of a row's unknown length spends more on its bounds than its copy.
template <int64_t N>
__attribute__((always_inline)) inline void copy_rows(float* __restrict dst, const float* __restrict src, int64_t rows,
                                                     int64_t step) {
  for (int64_t r = 0; r < rows; ++r) __builtin_memcpy(dst + r * N, src + r * step, N * sizeof(float));
}

/// Columns 2j and 2j + 1 of src to first[j] and second[j], for j < P.
template <int P>
__attribute__((always_inline)) inline void split_pairs(float* __restrict first, float* __restrict second,
                                                       const float* __restrict src) {
#pragma GCC unroll 8
  for (int j = 0; j < P; ++j) {
    first[j] = src[2 * j];
    second[j] = src[2 * j + 1];
  }
}

/// Copies plane x into the interior of `scratch`, a plane padded and split
/// into phases (the layout of DepthwisePlane, rows of stride * phase_len
/// floats): padded column q of a row goes to phase q % stride, at q /
/// stride. The padding is never written: the caller zeroes it once for all
/// planes. A copy small beside the products it feeds: one build
/// (ETSB_ONE_BUILD_LOOP).
ETSB_ONE_BUILD_LOOP static void fill_phases(const float* __restrict x, float* __restrict scratch, const Window& h,
                                         const Window& w, int64_t phase_len) {
  const int64_t row_len = w.stride * phase_len;
  for (int64_t ih = 0; ih < h.in; ++ih) {
    float* __restrict row = scratch + (ih + h.pad) * row_len;
    const float* __restrict src = x + ih * w.in;
    if (w.stride == 1) {
      if constexpr (kShortRowCopies) {
        switch (w.in) {  // a short row's fixed length: whole vector moves
          case 8: copy_rows<8>(row + w.pad, src, 1, 0); continue;
          case 16: copy_rows<16>(row + w.pad, src, 1, 0); continue;
          case 32: copy_rows<32>(row + w.pad, src, 1, 0); continue;
          default: break;
        }
      }
      for (int64_t iw = 0; iw < w.in; ++iw) row[w.pad + iw] = src[iw];
      continue;
    }
    if (w.stride == 2) {  // pairs of columns, one to each phase: a whole group the vectoriser splits in registers
      const int64_t odd = w.pad % 2;
      float* __restrict first = row + odd * phase_len + (w.pad - odd) / 2;  // where column 2j goes, at j
      float* __restrict second = row + (1 - odd) * phase_len + (w.pad + odd) / 2;
      const int64_t pairs = w.in / 2;
      bool done = false;
      if constexpr (kShortRowCopies) {
        done = true;
        switch (pairs) {  // a short row's fixed length unrolled: its loop's set-up costs more than the copy
          case 2: split_pairs<2>(first, second, src); break;
          case 4: split_pairs<4>(first, second, src); break;
          case 8: split_pairs<8>(first, second, src); break;
          default: done = false;
        }
      }
      if (!done) {
        for (int64_t j = 0; j < pairs; ++j) {
          first[j] = src[2 * j];
          second[j] = src[2 * j + 1];
        }
      }
      if (w.in % 2 != 0) first[pairs] = src[w.in - 1];
      continue;
    }
    for (int64_t r = 0; r < w.stride; ++r) {  // phase r, index i: input column i * stride + r - pad
      const int64_t lo = w.pad - r <= 0 ? 0 : (w.pad - r + w.stride - 1) / w.stride;
      const int64_t last = w.in - 1 + w.pad - r;  // i * stride <= last
      const int64_t hi = last < 0 ? 0 : last / w.stride + 1;
      float* __restrict phase = row + r * phase_len;
      const float* __restrict from = src + r - w.pad;
      for (int64_t i = lo; i < hi; ++i) phase[i] = from[i * w.stride];
    }
  }
}

/// The floats of a padded, phased copy of `channels` planes (pad_planes):
/// each plane (h.in + 2 * h.pad) rows of DepthwisePlane's padded, phased
/// rows.
inline int64_t padded_planes_floats(int64_t channels, const Window& h, const Window& w) {
  return channels * (h.in + 2 * h.pad) * w.stride * ((w.in + 2 * w.pad + w.stride - 1) / w.stride);
}

/// Copies `channels` planes of x into `padded` (padded_planes_floats), each
/// padded with zeros and its rows split into phases (fill_phases), so that
/// im2col_padded reads every tap's run of outputs contiguously.
__attribute__((noinline)) inline void pad_planes(const float* x, float* padded, int64_t channels, const Window& h,
                                                 const Window& w) {
  const int64_t phase_len = (w.in + 2 * w.pad + w.stride - 1) / w.stride;
  const int64_t plane = (h.in + 2 * h.pad) * w.stride * phase_len;
  std::memset(padded, 0, sizeof(float) * channels * plane);
  for (int64_t c = 0; c < channels; ++c) fill_phases(x + c * h.in * w.in, padded + c * plane, h, w, phase_len);
}

/// im2col_columns from pad_planes' copy: no bounds to test, and each tap's
/// run along an output row contiguous (a copy the vectoriser takes whole)
/// whatever the stride.
ETSB_ONE_BUILD_LOOP static void im2col_padded(const float* __restrict padded, float* __restrict col,
                                              int64_t channels, const Window& h, const Window& w, int64_t j0,
                                              int64_t j1) {
  const int64_t phase_len = (w.in + 2 * w.pad + w.stride - 1) / w.stride;
  const int64_t row_len = w.stride * phase_len;
  const int64_t plane = (h.in + 2 * h.pad) * row_len;
  const int64_t width = j1 - j0;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < h.kernel; ++kh) {
      for (int64_t kw = 0; kw < w.kernel; ++kw) {
        float* row = col + ((c * h.kernel + kh) * w.kernel + kw) * width - j0;
        const int64_t at = kw * w.dilation;
        const float* tap = padded + c * plane + kh * h.dilation * row_len + (at % w.stride) * phase_len + at / w.stride;
        if (kShortRowCopies && j0 % w.out == 0 && j1 % w.out == 0) {  // whole rows, at fixed lengths below
          const int64_t oh0 = j0 / w.out, oh1 = j1 / w.out, step = h.stride * row_len;
          float* dst = row + j0;
          const float* src = tap + oh0 * step;
          switch (w.out) {
            case 4: copy_rows<4>(dst, src, oh1 - oh0, step); continue;
            case 8: copy_rows<8>(dst, src, oh1 - oh0, step); continue;
            case 16: copy_rows<16>(dst, src, oh1 - oh0, step); continue;
            case 32: copy_rows<32>(dst, src, oh1 - oh0, step); continue;
            default: break;
          }
        }
        for (int64_t oh = j0 / w.out; oh * w.out < j1; ++oh) {
          const int64_t first = oh * w.out > j0 ? 0 : j0 - oh * w.out;
          const int64_t end = (oh + 1) * w.out < j1 ? w.out : j1 - oh * w.out;
          const float* __restrict src = tap + oh * h.stride * row_len;
          float* __restrict dst = row + oh * w.out;
          for (int64_t ow = first; ow < end; ++ow) dst[ow] = src[ow];
        }
      }
    }
  }
}

/// im2col of a whole output plane (a single column tile) into col, through
/// a padded copy in `padded_copy` (padded_planes_floats) when that is not
/// null, its channels cut into `pieces` for the thread pool (a small
/// plane's im2col costs as much as its product: many short rows).
inline void im2col_plane(const float* x, float* col, float* padded_copy, int64_t channels, const Window& h,
                         const Window& w, int64_t pieces) {
  const int64_t taps = h.kernel * w.kernel;
  const int64_t out_plane = h.out * w.out;
  const int64_t padded_plane = padded_planes_floats(1, h, w);
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t c0, c1;
    piece_bounds(channels, pieces, p, &c0, &c1);
    if (c1 <= c0) return;
    float* rows = col + c0 * taps * out_plane;
    if (padded_copy != nullptr) {
      pad_planes(x + c0 * h.in * w.in, padded_copy + c0 * padded_plane, c1 - c0, h, w);
      im2col_padded(padded_copy + c0 * padded_plane, rows, c1 - c0, h, w, 0, out_plane);
    } else {
      im2col_columns(x + c0 * h.in * w.in, rows, c1 - c0, h, w, 0, out_plane);
    }
  });
}

/// Sets columns [j0, j1) of `channels` output planes of `plane` elements,
/// from channel `first` on, to their bias (zero without one): where a
/// convolution, or a piece of one, starts.
template <typename T>
__attribute__((noinline)) void fill_columns_with_bias(T* out, const T* bias, int64_t first, int64_t channels,
                                                      int64_t plane, int64_t j0, int64_t j1) {
  for (int64_t c = 0; c < channels; ++c) {
    const T init = bias != nullptr ? bias[first + c] : static_cast<T>(0);
    for (int64_t j = j0; j < j1; ++j) out[c * plane + j] = init;
  }
}

}  // namespace kernels
}  // namespace etsb
