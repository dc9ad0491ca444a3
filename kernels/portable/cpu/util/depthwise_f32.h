// The direct depthwise Float convolution kernels of op_convolution.cpp:
// vectorised along an output row (depthwise_planes), or, for small output
// planes and 5x5 and up of many channels, channels-last with the channels
// as the vector lanes (depthwise_lanes); 3x3 with stride 1 or 2 in place
// (depthwise3x3_f32.h) and small planes on AVX-512 (depthwise_same_f32.h,
// depthwise_pairs_f32.h, depthwise_tiny_f32.h) before those; and the dense
// few-channel 3x3 stride-2 stem (stem3x3_f32). On x86-64 built for AVX-512
// and AVX2 (the channels-last loop for AVX2 with FMA alone), not for older
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

/// The channels depthwise_lanes moves and computes at a time: four of
/// depthwise_lanes_points' vectors.
constexpr int64_t kLanesGroup = 32;

/// The lanes a group of `channels` (up to kLanesGroup) takes channels-last:
/// whole vectors of 8, the lanes past the channels zero.
inline int64_t depthwise_lanes_width(int64_t channels) { return (channels + 7) / 8 * 8; }

/// The floats depthwise_lanes needs as scratch for `channels` planes: for
/// a group of up to kLanesGroup of them (depthwise_lanes_width lanes), the
/// input padded and channels-last, the weights tap-major, the bias, and the
/// output channels-last.
inline int64_t depthwise_lanes_scratch(int64_t channels, const Window& h, const Window& w) {
  const int64_t lanes = depthwise_lanes_width(channels < kLanesGroup ? channels : kLanesGroup);
  const int64_t padded = (h.in + 2 * h.pad) * (w.in + 2 * w.pad);
  return lanes * (padded + h.kernel * w.kernel + 1 + h.out * w.out);
}

/// Lanes of depthwise_lanes_block: 8 floats (an AVX2 register; two NEON
/// ones).
typedef float DepthwiseLanes __attribute__((vector_size(32)));

/// ot at P output points along a row (`o`, the next point `channels` on;
/// its input `point_step` floats on from `base`) for channels [c, c + 8V):
/// P x V vectors of sums held in registers across all the taps (the bias,
/// then each tap's product in order), a tap's weights loaded once for the
/// P points.
template <int P, int V>
__attribute__((always_inline)) inline void depthwise_lanes_block(float* __restrict o, const float* __restrict base,
                                                                 int64_t point_step, const float* __restrict wt,
                                                                 const float* __restrict bt, const int64_t* off,
                                                                 int64_t taps, int64_t channels, int64_t c) {
  DepthwiseLanes sum[P][V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    DepthwiseLanes b;
    __builtin_memcpy(&b, bt + c + 8 * v, sizeof b);
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) sum[p][v] = b;
  }
  for (int64_t t = 0; t < taps; ++t) {
    const float* s = base + off[t] + c;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      DepthwiseLanes wv;
      __builtin_memcpy(&wv, wt + t * channels + c + 8 * v, sizeof wv);
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) {
        DepthwiseLanes x;
        __builtin_memcpy(&x, s + p * point_step + 8 * v, sizeof x);
        sum[p][v] += wv * x;
      }
    }
  }
#pragma GCC unroll 2
  for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) __builtin_memcpy(o + p * channels + c + 8 * v, &sum[p][v], sizeof sum[p][v]);
  }
}

/// depthwise_lanes_block<P, V> at every output point for channels
/// [c, c + 8V): two points of a row at a time, then one.
template <int V>
__attribute__((always_inline)) inline void depthwise_lanes_channels(float* __restrict ot, const float* __restrict xt,
                                                                    const float* __restrict wt,
                                                                    const float* __restrict bt, const int64_t* off,
                                                                    int64_t taps, int64_t channels, const Window& h,
                                                                    const Window& w, int64_t padded_w, int64_t c) {
  const int64_t point_step = w.stride * channels;
  for (int64_t oh = 0; oh < h.out; ++oh) {
    float* row = ot + oh * w.out * channels;
    const float* in = xt + oh * h.stride * padded_w * channels;
    int64_t ow = 0;
    for (; ow + 2 <= w.out; ow += 2) {
      depthwise_lanes_block<2, V>(row + ow * channels, in + ow * point_step, point_step, wt, bt, off, taps,
                                  channels, c);
    }
    if (ow < w.out) {
      depthwise_lanes_block<1, V>(row + ow * channels, in + ow * point_step, point_step, wt, bt, off, taps,
                                  channels, c);
    }
  }
}

/// ot[(oh, ow), c] = bt[c] + sum over taps t of wt[t, c] * xt[position of
/// tap t, c], summed in that order: a depthwise convolution channels-last,
/// the channels the vector lanes (any stride, dilation and plane size fill
/// them alike), for one group of channels (up to kLanesGroup, `channels` a
/// multiple of 8: its input, 15 KB for 11x11 padded positions, and its
/// weights stay in L1). off[t]: where tap t reads, from an output's first
/// input position. Blocks of 32 channels, then of 8. MobileNet-v3-Large's
/// 5x5 on 960 channels of 7x7 (bench_conv's driver, one thread): 111 us
/// loading and storing each point's row of all the channels once a tap
/// (GCC's vectoriser), 83 us by these blocks over all the channels at once,
/// 66 us by groups with fused multiply-adds.
/// On x86-64 one AVX2 + FMA build alone (no faster on AVX-512: short rows
/// of channels), which only CPUs with both run (depthwise_f32_runs).
#if defined(ETSB_X86_BUILDS)
ETSB_AVX2_FMA_BUILD
#else
ETSB_HOT_LOOP
#endif
static void depthwise_lanes_points(float* __restrict ot, const float* __restrict xt, const float* __restrict wt,
                                   const float* __restrict bt, const int64_t* off, int64_t taps, int64_t channels,
                                   const Window& h, const Window& w, int64_t padded_w) {
  int64_t c = 0;
  for (; c + 32 <= channels; c += 32) {
    depthwise_lanes_channels<4>(ot, xt, wt, bt, off, taps, channels, h, w, padded_w, c);
  }
  for (; c < channels; c += 8) depthwise_lanes_channels<1>(ot, xt, wt, bt, off, taps, channels, h, w, padded_w, c);
}

/// Kernels of up to this many taps (8x8) may run channels-last.
constexpr int64_t kLanesTaps = 64;
/// Output planes of up to this many positions (4x4) run channels-last:
/// below it, a plane's rows are too short to fill vectors.
constexpr int64_t kLanesPlane = 16;
/// The same for kernels of 25 taps and more (5x5, 7x7) of few channels: up
/// to 7x7 planes, whose rows of 7 the row kernels (depthwise_rows_square)
/// take in runs of 4 and 1 (EfficientNet-B0's 5x5 on 14x14 to 7x7 with
/// stride 2: 397 us row by row, 169 us channels-last).
constexpr int64_t kLanesPlaneWide = 49;
/// From this many channels (half as many with stride 2, which the row
/// kernels take phase by phase), kernels of 25 taps and more run
/// channels-last on any plane of up to kLanesPadded padded input positions
/// (a group's copy, 512 KB, within L2): MobileNet-v3-Large's and
/// EfficientNet-B0's 5x5 layers on 28x28 to 56x56 planes took 1.4-1.7x the
/// time row by row (120 channels of 28x28: 154 -> 111 us; 240 from 56x56
/// with stride 2: 434 -> 298 us; 20 from 30x30: 31 -> 11.5 us). Below it
/// rows of 32 fill the row kernels' vectors better (24 channels of 32x32,
/// stride 1: 30 us row by row, 44 channels-last; 3 channels of 64x64: 14.6
/// and 179).
constexpr int64_t kLanesWideChannels = 32;
constexpr int64_t kLanesPadded = 64 * 64;

/// depthwise_lanes for one group of up to kLanesGroup channels, on
/// depthwise_lanes_width lanes: the input padded (its border zeroed, not
/// the whole copy, unless lanes past the channels are) and transposed, the
/// weights tap-major, then depthwise_lanes_points, and the output
/// transposed back. The three moves
/// are 2-D transposes of 4-byte words (transpose_tiles: 4x4 vector blocks;
/// element by element they had taken a third of the time: MobileNet-v3-Large's
/// 5x5 layers on 672 channels of 14x14 and 960 of 7x7, 0.57 -> 0.475 ms a
/// run; the bits are the same).
inline void depthwise_lanes_group(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                                  const Window& h, const Window& w, float* scratch) {
  const int64_t padded_w = w.in + 2 * w.pad;
  const int64_t padded_h = h.in + 2 * h.pad;
  const int64_t taps = h.kernel * w.kernel;
  const int64_t out_plane = h.out * w.out;
  const int64_t lanes = depthwise_lanes_width(channels);
  float* xt = scratch;
  float* wt = xt + padded_h * padded_w * lanes;
  float* bt = wt + taps * lanes;
  float* ot = bt + lanes;
  const auto words = [](const float* p) { return reinterpret_cast<const uint32_t*>(p); };
  const auto words_out = [](float* p) { return reinterpret_cast<uint32_t*>(p); };
  const auto zero = [lanes](float* at, int64_t positions) { std::memset(at, 0, sizeof(float) * positions * lanes); };
  if (lanes != channels) {
    zero(xt, padded_h * padded_w + taps + 1);  // the input, weights and bias, their lanes past the channels too
  } else {
    zero(xt, h.pad * padded_w);                                      // the rows above
    zero(xt + (h.pad + h.in) * padded_w * lanes, h.pad * padded_w);  // and below
  }
  for (int64_t ih = 0; ih < h.in; ++ih) {
    float* row = xt + (ih + h.pad) * padded_w * lanes;
    if (lanes == channels) {
      zero(row, w.pad);                           // the row's left padding
      zero(row + (w.pad + w.in) * lanes, w.pad);  // and right
    }
    // xt[(ih, iw), c] = in[c, ih, iw]: the row's [channels x w.in] transposed
    transpose_tiles(words(in + ih * w.in), h.in * w.in, words_out(row + w.pad * lanes), lanes, w.in, channels);
  }
  transpose_tiles(words(weight), taps, words_out(wt), lanes, taps, channels);  // wt[t, c] = weight[c, t]
  for (int64_t c = 0; c < channels; ++c) bt[c] = bias != nullptr ? bias[c] : 0.0f;
  int64_t off[kLanesTaps] = {};  // taps <= kLanesTaps; zeroed so that -O2 -Wall sees it set
  for (int64_t t = 0; t < taps; ++t) {
    off[t] = ((t / w.kernel) * h.dilation * padded_w + (t % w.kernel) * w.dilation) * lanes;
  }
  depthwise_lanes_points(ot, xt, wt, bt, off, taps, lanes, h, w, padded_w);
  // out[c, j] = ot[j, c]
  transpose_tiles(words(ot), lanes, words_out(out), out_plane, channels, out_plane);
}

/// Depthwise convolution of one image, one output channel per input channel
/// and a kernel of up to kLanesTaps taps, channels-last in `scratch`
/// (depthwise_lanes_scratch floats), kLanesGroup channels at a time
/// (depthwise_lanes_group).
inline void depthwise_lanes(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                            const Window& h, const Window& w, float* scratch) {
  const int64_t taps = h.kernel * w.kernel;
  for (int64_t c = 0; c < channels; c += kLanesGroup) {
    const int64_t group = channels - c < kLanesGroup ? channels - c : kLanesGroup;
    depthwise_lanes_group(in + c * h.in * w.in, weight + c * taps, bias != nullptr ? bias + c : nullptr,
                          out + c * h.out * w.out, group, h, w, scratch);
  }
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
inline bool depthwise_f32_runs() { return avx2_fma_runs(); }

/// Whether a depthwise convolution of `channels` planes runs channels-last
/// (depthwise_lanes): one output channel per input channel, a kernel of at
/// most kLanesTaps taps, a small output plane (or, for 5x5 and up, enough
/// channels, kLanesWideChannels, and a plane within kLanesPadded), and not
/// one depthwise_same, depthwise_pairs or depthwise_tiny takes.
inline bool depthwise_in_lanes(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  if (depthwise_same_fits(h, w) || depthwise_pairs_fits(h, w) || depthwise_tiny_fits(multiplier, h, w) ||
      multiplier != 1 || h.kernel * w.kernel > kLanesTaps) {
    return false;
  }
  const int64_t out_plane = h.out * w.out;
  if (h.kernel * w.kernel < 25) return out_plane <= kLanesPlane;
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
/// `scratch` (depthwise_f32_piece_scratch floats), else 3x3 with stride 1
/// or 2 in place (depthwise3x3_f32), else plane by plane from a padded copy
/// (depthwise_planes).
inline void depthwise_f32(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                          int64_t multiplier, const Window& h, const Window& w, bool lanes, float* scratch) {
  if (depthwise_same_fits(h, w)) return depthwise_same(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_pairs_fits(h, w)) return depthwise_pairs(in, weight, bias, out, channels, multiplier, h, w);
  if (depthwise_tiny_fits(multiplier, h, w)) return depthwise_tiny(in, weight, bias, out, channels, h, w);
  if (lanes) return depthwise_lanes(in, weight, bias, out, channels, h, w, scratch);
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
/// channels-last path's for one group of channels, the others' for one
/// plane (none for depthwise_same, depthwise_pairs, depthwise_tiny and
/// depthwise3x3_f32: depthwise_same_fits and depthwise_pairs_fits imply
/// depthwise3x3_fits).
inline int64_t depthwise_f32_piece_scratch(int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
  if (depthwise_in_lanes(channels, multiplier, h, w)) return depthwise_lanes_scratch(channels, h, w);
  return depthwise_tiny_fits(multiplier, h, w) || depthwise3x3_fits(h, w) ? 0 : depthwise_scratch(h, w);
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
