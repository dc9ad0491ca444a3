// The direct depthwise Float convolution kernels of op_convolution.cpp:
// vectorised along an output row (depthwise_planes), or, for small output
// planes, channels-last with the channels as the vector lanes
// (depthwise_lanes); 3x3 with stride 1 or 2 in place (depthwise3x3_f32.h)
// and small planes on AVX-512 (depthwise_same_f32.h, depthwise_pairs_f32.h,
// depthwise_tiny_f32.h) before those; and the
// dense few-channel 3x3 stride-2 stem (stem3x3_f32). On x86-64 built for
// AVX-512 and AVX2 (the channels-last loop for AVX2 alone), not for older
// CPUs (depthwise_f32_runs).
#pragma once

#include "conv_f32.h"
#include "depthwise3x3_f32.h"
#include "depthwise_pairs_f32.h"
#include "depthwise_rows_f32.h"
#include "depthwise_same_f32.h"
#include "depthwise_tiny_f32.h"
#include "gemm_f32.h"
#include "parallel_util.h"
#include "transpose_tiles.h"

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

/// The floats depthwise_lanes needs as scratch for `channels` planes: the
/// input padded and channels-last, the weights tap-major, the bias, and the
/// output channels-last.
inline int64_t depthwise_lanes_scratch(int64_t channels, const Window& h, const Window& w) {
  const int64_t padded = (h.in + 2 * h.pad) * (w.in + 2 * w.pad);
  return channels * (padded + h.kernel * w.kernel + 1 + h.out * w.out);
}

/// ot[(oh, ow), c] = bt[c] + sum over taps t of wt[t, c] * xt[position of
/// tap t, c]: a depthwise convolution channels-last, the channels the
/// vector lanes (any stride, dilation and plane size fill them alike).
/// off[t]: where tap t reads, from an output's first input position.
/// On x86-64 one AVX2 build alone (no faster on AVX-512: short rows of
/// channels), which only CPUs with AVX2 run (depthwise_f32_runs).
#if defined(ETSB_X86_BUILDS)
ETSB_AVX2_BUILD
#else
ETSB_HOT_LOOP
#endif
static void depthwise_lanes_points(float* __restrict ot, const float* __restrict xt, const float* __restrict wt,
                                   const float* __restrict bt, const int64_t* off, int64_t taps, int64_t channels,
                                   const Window& h, const Window& w, int64_t padded_w) {
  for (int64_t oh = 0; oh < h.out; ++oh) {
    for (int64_t ow = 0; ow < w.out; ++ow) {
      float* __restrict o = ot + (oh * w.out + ow) * channels;
      const float* base = xt + (oh * h.stride * padded_w + ow * w.stride) * channels;
      if (taps == 9) {
        const float *s0 = base + off[0], *s1 = base + off[1], *s2 = base + off[2], *s3 = base + off[3],
                    *s4 = base + off[4], *s5 = base + off[5], *s6 = base + off[6], *s7 = base + off[7],
                    *s8 = base + off[8];
        const float* w0 = wt;
        for (int64_t c = 0; c < channels; ++c) {
          // Three partial sums: shorter chains of dependent multiply-adds.
          const float top = bt[c] + w0[c] * s0[c] + w0[channels + c] * s1[c] + w0[2 * channels + c] * s2[c];
          const float mid = w0[3 * channels + c] * s3[c] + w0[4 * channels + c] * s4[c] +
                            w0[5 * channels + c] * s5[c];
          const float bottom = w0[6 * channels + c] * s6[c] + w0[7 * channels + c] * s7[c] +
                               w0[8 * channels + c] * s8[c];
          o[c] = top + mid + bottom;
        }
        continue;
      }
      for (int64_t c = 0; c < channels; ++c) o[c] = bt[c];
      for (int64_t t = 0; t < taps; ++t) {
        const float* __restrict src = base + off[t];
        const float* __restrict wv = wt + t * channels;
        for (int64_t c = 0; c < channels; ++c) o[c] += wv[c] * src[c];
      }
    }
  }
}

/// Kernels of up to this many taps (8x8) may run channels-last.
constexpr int64_t kLanesTaps = 64;
/// Output planes of up to this many positions (4x4) run channels-last:
/// below it, a plane's rows are too short to fill vectors.
constexpr int64_t kLanesPlane = 16;
/// The same for kernels of 25 taps and more (5x5, 7x7): up to 7x7 planes,
/// whose rows of 7 the row kernels (depthwise_rows_square) take in runs of
/// 4 and 1 (EfficientNet-B0's 5x5 on 14x14 to 7x7 with stride 2: 397 us
/// row by row, 169 us channels-last).
constexpr int64_t kLanesPlaneWide = 49;

/// Depthwise convolution of one image, one output channel per input channel
/// and a kernel of up to kLanesTaps taps, channels-last in `scratch`
/// (depthwise_lanes_scratch floats): the input padded (its border zeroed,
/// not the whole copy) and transposed, the weights tap-major, then
/// depthwise_lanes_points, and the output transposed back. The three moves
/// are 2-D transposes of 4-byte words (transpose_tiles: 4x4 vector blocks;
/// element by element they had taken a third of the time: MobileNet-v3-Large's
/// 5x5 layers on 672 channels of 14x14 and 960 of 7x7, 0.57 -> 0.475 ms a
/// run; the bits are the same).
inline void depthwise_lanes(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                            const Window& h, const Window& w, float* scratch) {
  const int64_t padded_w = w.in + 2 * w.pad;
  const int64_t padded_h = h.in + 2 * h.pad;
  const int64_t taps = h.kernel * w.kernel;
  const int64_t out_plane = h.out * w.out;
  float* xt = scratch;
  float* wt = xt + padded_h * padded_w * channels;
  float* bt = wt + taps * channels;
  float* ot = bt + channels;
  const auto words = [](const float* p) { return reinterpret_cast<const uint32_t*>(p); };
  const auto words_out = [](float* p) { return reinterpret_cast<uint32_t*>(p); };
  const auto zero = [channels](float* at, int64_t positions) {
    std::memset(at, 0, sizeof(float) * positions * channels);
  };
  zero(xt, h.pad * padded_w);                                         // the rows above
  zero(xt + (h.pad + h.in) * padded_w * channels, h.pad * padded_w);  // and below
  for (int64_t ih = 0; ih < h.in; ++ih) {
    float* row = xt + (ih + h.pad) * padded_w * channels;
    zero(row, w.pad);                              // the row's left padding
    zero(row + (w.pad + w.in) * channels, w.pad);  // and right
    // xt[(ih, iw), c] = in[c, ih, iw]: the row's [channels x w.in] transposed
    transpose_tiles(words(in + ih * w.in), h.in * w.in, words_out(row + w.pad * channels), channels, w.in,
                    channels);
  }
  transpose_tiles(words(weight), taps, words_out(wt), channels, taps, channels);  // wt[t, c] = weight[c, t]
  for (int64_t c = 0; c < channels; ++c) bt[c] = bias != nullptr ? bias[c] : 0.0f;
  int64_t off[kLanesTaps] = {};  // taps <= kLanesTaps; zeroed so that -O2 -Wall sees it set
  for (int64_t t = 0; t < taps; ++t) {
    off[t] = ((t / w.kernel) * h.dilation * padded_w + (t % w.kernel) * w.dilation) * channels;
  }
  depthwise_lanes_points(ot, xt, wt, bt, off, taps, channels, h, w, padded_w);
  // out[c, j] = ot[j, c]
  transpose_tiles(words(ot), channels, words_out(out), out_plane, channels, out_plane);
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

/// Whether this CPU runs depthwise_f32: on x86-64 only with AVX2 (its
/// kernels have no baseline build there; an older CPU takes im2col and
/// gemm_f32, as etsb's size configuration does everywhere).
inline bool depthwise_f32_runs() { return avx2_runs(); }

/// Whether a depthwise convolution runs channels-last (depthwise_lanes):
/// one output channel per input channel, a small output plane, a kernel of
/// at most kLanesTaps taps, and not one depthwise_same, depthwise_pairs or
/// depthwise_tiny takes.
inline bool depthwise_in_lanes(int64_t multiplier, const Window& h, const Window& w) {
  return !depthwise_same_fits(h, w) && !depthwise_pairs_fits(h, w) && !depthwise_tiny_fits(multiplier, h, w) &&
         multiplier == 1 && h.kernel * w.kernel <= kLanesTaps &&
         h.out * w.out <= (h.kernel * w.kernel >= 25 ? kLanesPlaneWide : kLanesPlane);
}

/// The floats of scratch depthwise_f32 needs (none for depthwise_same, depthwise_pairs, depthwise_tiny and
/// depthwise3x3_f32: depthwise_same_fits and depthwise_pairs_fits imply depthwise3x3_fits).
inline int64_t depthwise_f32_scratch(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  if (depthwise_in_lanes(multiplier, h, w)) return depthwise_lanes_scratch(channels, h, w);
  return depthwise_tiny_fits(multiplier, h, w) || depthwise3x3_fits(h, w) ? 0 : depthwise_scratch(h, w);
}

/// Depthwise convolution of one image (one input channel per group,
/// `multiplier` output channels per input channel): small 3x3 stride-1
/// planes of padding 1 on AVX-512 by whole-plane shifts (depthwise_same),
/// stride-2 ones from rows of 9 to 32 there (depthwise_pairs: two output
/// rows a vector up to 16), other small planes there by lane permutes
/// (depthwise_tiny), else channels-last when the output
/// plane is small (depthwise_lanes), else 3x3 with stride 1 or 2 in place
/// (depthwise3x3_f32), else plane by plane from a padded copy
/// (depthwise_planes). scratch: depthwise_f32_scratch floats.
inline void depthwise_f32(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                          int64_t multiplier, const Window& h, const Window& w, float* scratch) {
  if (depthwise_same_fits(h, w)) return depthwise_same(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_pairs_fits(h, w)) return depthwise_pairs(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_tiny_fits(multiplier, h, w)) return depthwise_tiny(in, weight, bias, out, channels, h, w);
  if (depthwise_in_lanes(multiplier, h, w)) return depthwise_lanes(in, weight, bias, out, channels, h, w, scratch);
  if (depthwise3x3_fits(h, w)) return depthwise3x3_f32(in, weight, bias, out, channels, multiplier, h, w);
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
/// channels-last path's for all channels, the others' for one plane
/// whatever the channels.
inline int64_t depthwise_f32_piece_scratch(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  return depthwise_f32_scratch(depthwise_in_lanes(multiplier, h, w) ? channels : 1, multiplier, h, w);
}

/// depthwise_f32 of one image with its channels cut into `pieces`
/// (depthwise_f32_pieces) on the thread pool, piece p with scratch + p *
/// depthwise_f32_piece_scratch floats. Each plane is computed alike
/// whatever the cut.
inline void depthwise_f32_cut(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                              int64_t multiplier, const Window& h, const Window& w, float* scratch, int64_t pieces) {
  const int64_t per_piece = depthwise_f32_piece_scratch(channels, multiplier, h, w);
  const int64_t taps = h.kernel * w.kernel;
  parallel_pieces_run(pieces, [&](int64_t p) {
    int64_t c0, c1;
    piece_bounds(channels, pieces, p, &c0, &c1);
    if (c1 <= c0) return;
    depthwise_f32(in + c0 * h.in * w.in, weight + c0 * multiplier * taps,
                  bias != nullptr ? bias + c0 * multiplier : nullptr, out + c0 * multiplier * h.out * w.out, c1 - c0,
                  multiplier, h, w, scratch != nullptr ? scratch + p * per_piece : nullptr);
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
