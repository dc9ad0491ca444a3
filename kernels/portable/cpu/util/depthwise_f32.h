// The direct depthwise Float convolution kernels of op_convolution.cpp:
// vectorised along an output row (depthwise_planes), or, for small output
// planes and 7x7 of many channels, channels-last with the channels as the
// vector lanes (depthwise_lanes_f32.h); 3x3, and 5x5 beyond 7x7 outputs,
// with stride 1 or 2 in place (depthwise_inplace_f32.h) and small planes
// on AVX-512 (depthwise_same_f32.h, depthwise_pairs_f32.h,
// depthwise_tiny_f32.h) before those; and the dense few-channel 3x3
// stride-2 stem (stem3x3_f32). On x86-64 built for AVX-512 and AVX2 (the
// channels-last loop for AVX2 with FMA alone), not for older CPUs
// (depthwise_f32_runs).
#pragma once

#include "conv_f32.h"
#include "depthwise_inplace_f32.h"
#include "depthwise_lanes_f32.h"
#include "depthwise_pairs_f32.h"
#include "depthwise_rows_f32.h"
#include "depthwise_same_f32.h"
#include "depthwise_tiny_f32.h"
#include "gemm_f32.h"
#include "parallel_util.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// The floats depthwise_f32 needs as scratch: one input plane, padded and
/// split into `stride` phases per row, and an output plane on the padded
/// grid.
inline int64_t depthwise_scratch(const Window& h, const Window& w) {
  const int64_t padded_w = w.in + 2 * w.pad;
  return (h.in + 2 * h.pad + h.out) * w.stride * ((padded_w + w.stride - 1) / w.stride);
}

/// Output rows narrower than this, with stride 1, are computed as one run
/// across the padded plane's rows (see depthwise_plane).
constexpr int64_t kNarrowRow = 32;

/// One output plane of a depthwise convolution from its (padded, phased)
/// input plane `base`. With stride 1 and narrow rows, one long run: the
/// outputs on the padded plane's grid (row_len per row, the columns past
/// out_w wasted) into `wide` ((out_h - 1) * row_len + out_w floats), then
/// the plane's own columns copied out, so short rows still fill vectors.
inline void depthwise_plane(float* out, const float* base, const float* wt, float bias, const DepthwisePlane& p,
                            float* wide) {
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

/// Depthwise convolution of one image (one input channel per group,
/// `multiplier` output channels per input channel), direct, plane by plane
/// along its rows. Each input
/// plane is read in place when it needs no padding and has stride 1, else
/// copied into `scratch` (depthwise_scratch floats, its padding zeroed once)
/// by fill_phases, so that every tap reads a contiguous run for a whole
/// output row, which depthwise_plane vectorises.
inline void depthwise_planes(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                             int64_t multiplier, const Window& h, const Window& w, float* scratch) {
  const bool in_place = h.pad == 0 && w.pad == 0 && w.stride == 1;
  const int64_t phase_len = in_place ? w.in : (w.in + 2 * w.pad + w.stride - 1) / w.stride;
  const DepthwisePlane plane{h.out,      w.out,    h.kernel, w.kernel,
                             h.dilation, w.dilation, h.stride, w.stride,
                             in_place ? w.in : w.stride * phase_len, phase_len};
  const int64_t taps = h.kernel * w.kernel;
  float* wide = scratch + (h.in + 2 * h.pad) * w.stride * phase_len;
  if (!in_place) std::memset(scratch, 0, sizeof(float) * (h.in + 2 * h.pad) * w.stride * phase_len);
  for (int64_t c = 0; c < channels; ++c) {
    const float* x = in + c * h.in * w.in;
    if (!in_place) fill_phases(x, scratch, h, w, phase_len);
    for (int64_t m = 0; m < multiplier; ++m) {
      const int64_t oc = c * multiplier + m;
      depthwise_plane(out + oc * h.out * w.out, in_place ? x : scratch, weight + oc * taps,
                      bias != nullptr ? bias[oc] : 0.0f, plane, wide);
    }
  }
}

/// Whether this CPU runs depthwise_f32: on x86-64 only with AVX2 and FMA (its
/// kernels have no baseline build there; an older CPU takes im2col and
/// gemm_f32, as etsb's size configuration does everywhere).
inline bool depthwise_f32_runs() { return avx2_fma_runs(); }

/// Whether a depthwise convolution of `channels` planes runs channels-last
/// (depthwise_lanes): one output channel per input channel, a kernel of at
/// most kLanesTaps taps, a small output plane (or, for 5x5 and up that
/// does not run in place, enough channels, kLanesWideChannels, and a plane
/// within kLanesPadded), and not one depthwise_same, depthwise_pairs or
/// depthwise_tiny takes.
inline bool depthwise_in_lanes(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  if (depthwise_same_fits(h, w) || depthwise_pairs_fits(h, w) || depthwise_tiny_fits(multiplier, h, w) ||
      multiplier != 1 || h.kernel * w.kernel > kLanesTaps) {
    return false;
  }
  const int64_t out_plane = h.out * w.out;
  if (h.kernel * w.kernel < 25) return out_plane <= kLanesPlane;
  if (depthwise_inplace_fits(h, w)) return out_plane <= kLanesPlaneWide;  // 5x5 in place beyond 7x7
  return out_plane <= kLanesPlaneWide ||
         (channels >= (w.stride > 1 ? kLanesWideChannels / 2 : kLanesWideChannels) &&
          (h.in + 2 * h.pad) * (w.in + 2 * w.pad) <= kLanesPadded);
}

/// Depthwise convolution of one image (one input channel per group,
/// `multiplier` output channels per input channel): small 3x3 stride-1
/// planes of padding 1 on AVX-512 by whole-plane shifts (depthwise_same),
/// stride-2 ones from rows of 9 to 32 there (depthwise_pairs: two output
/// rows a vector up to 16), other small planes there by lane permutes
/// (depthwise_tiny), else channels-last when `lanes` (depthwise_in_lanes of
/// the whole convolution: a piece of its channels goes the same way) in
/// `scratch` (depthwise_f32_piece_scratch floats), else 3x3 and 5x5 with
/// stride 1 or 2 in place (depthwise_inplace_f32), else plane by plane from
/// a padded copy (depthwise_planes).
inline void depthwise_f32(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                          int64_t multiplier, const Window& h, const Window& w, bool lanes, float* scratch) {
  if (depthwise_same_fits(h, w)) return depthwise_same(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_pairs_fits(h, w)) return depthwise_pairs(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_tiny_fits(multiplier, h, w)) return depthwise_tiny(in, weight, bias, out, channels, h, w);
  if (lanes) return depthwise_lanes(in, weight, bias, out, channels, h, w, scratch);
  if (depthwise_inplace_fits(h, w)) return depthwise_inplace_f32(in, weight, bias, out, channels, multiplier, h, w);
  depthwise_planes(in, weight, bias, out, channels, multiplier, h, w, scratch);
}

/// Multiply-adds below which a piece of a depthwise convolution is not
/// worth a thread: gemm_f32.h's kGemmTaskWork over these direct kernels'
/// ~4x lower speed per multiply-add (bench/results/bench_profile.md: 14-25
/// GFLOP/s against gemm's 40-130).
constexpr int64_t kDepthwiseTaskWork = kGemmTaskWork / 4;

/// A channel's cost beyond its multiply-adds (its plane's setup; the
/// channels-last path's transposes), in those of kDepthwiseTaskWork:
/// MobileNet-v2's 3x3 convolutions of 4x4 planes took ~18 ns a channel for
/// 144 multiply-adds.
constexpr int64_t kDepthwiseChannelWork = 256;

/// The pieces depthwise_f32_cut cuts one image's channels into for the
/// thread pool (parallel_pieces), the channels-last path's included.
inline int64_t depthwise_f32_pieces(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  return parallel_pieces(channels * (multiplier * h.out * w.out * h.kernel * w.kernel + kDepthwiseChannelWork),
                         kDepthwiseTaskWork, channels);
}

/// The floats of scratch one piece of depthwise_f32_cut needs: the
/// channels-last path's for one group of channels, the others' for one
/// plane (none for depthwise_same, depthwise_pairs, depthwise_tiny and
/// depthwise_inplace_f32: depthwise_same_fits and depthwise_pairs_fits imply
/// depthwise_inplace_fits).
inline int64_t depthwise_f32_piece_scratch(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  if (depthwise_in_lanes(channels, multiplier, h, w)) return depthwise_lanes_scratch(channels, h, w);
  return depthwise_tiny_fits(multiplier, h, w) || depthwise_inplace_fits(h, w) ? 0 : depthwise_scratch(h, w);
}

/// depthwise_f32 of one image with its channels cut into `pieces`
/// (depthwise_f32_pieces) on the thread pool, piece p with scratch + p *
/// depthwise_f32_piece_scratch floats. Each plane is computed alike
/// whatever the cut.
inline void depthwise_f32_cut(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                              int64_t multiplier, const Window& h, const Window& w, float* scratch, int64_t pieces) {
  const int64_t per_piece = depthwise_f32_piece_scratch(channels, multiplier, h, w);
  const int64_t taps = h.kernel * w.kernel;
  const bool lanes = depthwise_in_lanes(channels, multiplier, h, w);
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t c0, c1;
    piece_bounds(channels, pieces, p, &c0, &c1);
    if (c1 <= c0) return;
    depthwise_f32(in + c0 * h.in * w.in, weight + c0 * multiplier * taps,
                  bias != nullptr ? bias + c0 * multiplier : nullptr, out + c0 * multiplier * h.out * w.out, c1 - c0,
                  multiplier, h, w, lanes, scratch != nullptr ? scratch + p * per_piece : nullptr);
  });
}

/// A dense (one group) convolution, direct (no im2col, no scratch) when
/// stem3x3_fits, each image's output rows cut into pieces for the thread
/// pool: every output computed alike whatever the cut. False (nothing
/// written) for a convolution that does not fit.
inline bool stem3x3_f32(const float* in, const float* weight, const float* bias, float* out, int64_t batch,
                        int64_t in_ch, int64_t out_ch, const Window& h, const Window& w) {
  if (!stem3x3_fits(in_ch, out_ch, h, w)) return false;
  const int64_t pieces = parallel_pieces(out_ch * h.out * w.out * in_ch * 9, kGemmTaskWork, h.out);
  for (int64_t b = 0; b < batch; ++b) {
    const float* x = in + b * in_ch * h.in * w.in;
    float* y = out + b * out_ch * h.out * w.out;
    parallel_pieces_run(pieces, [&](int64_t p) {
      int64_t r0, r1;
      piece_bounds(h.out, pieces, p, &r0, &r1);
      if (r1 > r0) stem3x3_rows(x, weight, bias, y, in_ch, out_ch, h, w, r0, r1);
    });
  }
  return true;
}

}  // namespace kernels
}  // namespace etsb
