// The Float convolution without im2col, where gemm_f32.h's gemm_taps_f32
// runs (x86-64 with AVX-512, outside etsb's size configuration): the input
// is copied once padded and split into stride phases (conv_f32.h's
// pad_planes), and the matrix product reads each tap's run of an output row
// from that copy in place, through a table of one offset per (channel, tap).
// im2col wrote KH * KW floats per input float first (on bench_conv's ResNet
// stem, 11 of 56 us).
#pragma once

#include "conv_f32.h"
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

}  // namespace kernels
}  // namespace etsb
