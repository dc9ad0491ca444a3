// The Float convolution without im2col, where gemm_f32.h's gemm_taps_f32
// runs (x86-64 with AVX-512, outside etsb's size configuration): the input
// is copied once padded and split into stride phases (conv_f32.h's
// pad_planes), and the matrix product reads each tap's run of an output row
// from that copy in place, through a table of one offset per (channel, tap).
// im2col wrote KH * KW floats per input float first (on bench_conv's ResNet
// stem, 11 of 56 us). And the products of output columns too few for
// gemm_f32's vectors (dot_columns: patches as rows, dot_f32.h).
#pragma once

#include "conv_f32.h"
#include "dot_f32.h"
#include "gemm_f32.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// Whether conv2d_taps takes a convolution of this geometry: gemm_taps_f32
/// runs here and the output rows are whole vectors of it (a 7x7 stem's and
/// a 3x3's 16- and 32-wide outputs; narrower ones keep im2col).
inline bool conv2d_taps_runs(const Window& h, const Window& w) {
  const int64_t width = gemm_taps_width();
  return width > 0 && w.out % width == 0 && h.kernel * w.kernel > 1;
}

/// The floats of scratch conv2d_taps takes for `channels` input planes: the
/// padded copy (rounded up to an even count) and the offsets (int64_t).
inline int64_t conv2d_taps_floats(int64_t channels, const Window& h, const Window& w) {
  return (padded_planes_floats(channels, h, w) + 1) / 2 * 2 + 2 * channels * h.kernel * w.kernel;
}

/// out [out_ch, OH * OW] = bias (null: zero) + weight [out_ch, channels * KH
/// * KW] x x's patches, x being `channels` planes, through `scratch`
/// (conv2d_taps_floats); the output's columns cut into `pieces` of whole
/// `unit`s (a multiple of gemm_taps_width()) for the thread pool. Every
/// output takes the same code whatever the cut.
inline void conv2d_taps(const float* x, const float* weight, const float* bias, float* out, int64_t channels,
                        int64_t out_ch, const Window& h, const Window& w, float* scratch, int64_t pieces,
                        int64_t unit) {
  const int64_t taps = h.kernel * w.kernel;
  const int64_t depth = channels * taps;
  const int64_t phase_len = (w.in + 2 * w.pad + w.stride - 1) / w.stride;
  const int64_t row_len = w.stride * phase_len;
  const int64_t plane = (h.in + 2 * h.pad) * row_len;
  int64_t* off = reinterpret_cast<int64_t*>(scratch + (padded_planes_floats(channels, h, w) + 1) / 2 * 2);
  pad_planes(x, scratch, channels, h, w);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t at = t % w.kernel * w.dilation;  // the tap's padded column from its output's first
      off[c * taps + t] = c * plane + t / w.kernel * h.dilation * row_len + at % w.stride * phase_len + at / w.stride;
    }
  }
  const int64_t out_plane = h.out * w.out;
  const int64_t units = (out_plane + unit - 1) / unit;
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t u0, u1;
    piece_bounds(units, pieces, p, &u0, &u1);
    const int64_t lo = u0 * unit, hi = u1 * unit < out_plane ? u1 * unit : out_plane;
    if (hi > lo) {
      gemm_taps_f32(out_ch, lo, hi, depth, weight, depth, scratch, off, w.out, h.stride * row_len, out, out_plane,
                    bias);
    }
  });
}

/// Output columns [j0, OH * OW) of out_ch planes by dot_f32: their patches as rows (patch_rows, into `rows`) and
/// each weight row against them, cut into `pieces` by output channel (the patches by position). Out of line: the
/// convolution calls it for a tiny plane's every column and for a plane's last one or two.
__attribute__((noinline)) inline void dot_columns(const float* x, float* rows, const float* weight, const float* bias,
                                                  float* o, int64_t channels, int64_t out_ch, const Window& h,
                                                  const Window& w, int64_t j0, int64_t pieces) {
  const int64_t depth = channels * h.kernel * w.kernel, out_plane = h.out * w.out, n = out_plane - j0;
  if (pieces == 1) {  // called directly: through parallel_pieces_run's lambdas, 0.3-0.5 us slower
    patch_rows(x, rows, channels, h, w, j0, out_plane);
    dot_f32(out_ch, n, depth, weight, depth, rows, depth, o + j0, out_plane, /*accumulate=*/false, bias);
    return;
  }
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t a, b;
    piece_bounds(n, pieces, p, &a, &b);
    patch_rows(x, rows + a * depth, channels, h, w, j0 + a, j0 + b);
  });
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t r0, r1;
    piece_bounds(out_ch, pieces, p, &r0, &r1);
    dot_f32(r1 - r0, n, depth, weight + r0 * depth, depth, rows, depth, o + r0 * out_plane + j0, out_plane,
            /*accumulate=*/false, bias != nullptr ? bias + r0 : nullptr);
  });
}

}  // namespace kernels
}  // namespace etsb
