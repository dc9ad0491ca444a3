// Channels-last depthwise Float convolution (depthwise_f32.h takes it for
// small output planes, and for 5x5 and up of many channels): a group of up
// to 32 channels at a time moved into a padded channels-last copy, its sums
// held in registers across the taps with the channels as the vector lanes,
// and moved back. On x86-64 one AVX2 + FMA build (depthwise_f32_runs).
#pragma once

#include "conv_f32.h"
#include "fast_math.h"
#include "transpose_tiles.h"

#include <cstdint>
#include <cstring>

namespace etsb {
namespace kernels {

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
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) sum[p][v] = b;
  }
  const float* w_tap = wt + c;  // tap t's weights for these channels, a row of `channels` on per tap
  for (int64_t t = 0; t < taps; ++t, w_tap += channels) {
    // The points' inputs as pointers of their own, the vectors at constant offsets from them (indexed
    // from one base, GCC computed an address per load: 1.05x the time)
    const float* at[P];
#pragma GCC unroll 4
    for (int p = 0; p < P; ++p) at[p] = base + off[t] + c + p * point_step;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      DepthwiseLanes wv;
      __builtin_memcpy(&wv, w_tap + 8 * v, sizeof wv);
#pragma GCC unroll 4
      for (int p = 0; p < P; ++p) {
        DepthwiseLanes x;
        __builtin_memcpy(&x, at[p] + 8 * v, sizeof x);
        sum[p][v] += wv * x;
      }
    }
  }
#pragma GCC unroll 4
  for (int p = 0; p < P; ++p) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) __builtin_memcpy(o + p * channels + c + 8 * v, &sum[p][v], sizeof sum[p][v]);
  }
}

/// depthwise_lanes_block<P, V> at every output point for channels
/// [c, c + 8V): three points of a row at a time (a tap's weights loaded once
/// for 3 x V products: two had taken 1.04-1.08x the time), then one (a
/// block of two as well cost 0.7 KB for 14x14's rows alone).
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
    for (; ow + 3 <= w.out; ow += 3) {
      depthwise_lanes_block<3, V>(row + ow * channels, in + ow * point_step, point_step, wt, bt, off, taps,
                                  channels, c);
    }
    for (; ow < w.out; ++ow) {
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
/// (GCC's vectoriser), 83 us by blocks of two points over all the channels
/// at once, 66 us by groups with fused multiply-adds, 60 us by blocks of
/// three points.
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
/// The same for kernels of 25 taps and more (5x5, 7x7): up to 7x7 planes,
/// whose rows of 7 the row kernels (depthwise_rows_square) take in runs of
/// 4 and 1 (EfficientNet-B0's 5x5 on 14x14 to 7x7 with stride 2: 397 us row
/// by row, 169 us channels-last) and depthwise_inplace_f32's 5x5 strips
/// fill 7 lanes of 8 (MobileNet-v3-Large's 960 channels of 7x7: 60 us either
/// way). Larger 5x5 planes run in place (depthwise_in_lanes).
constexpr int64_t kLanesPlaneWide = 49;
/// From this many channels (half as many with stride 2, which the row
/// kernels take phase by phase), kernels of 25 taps and more that do not
/// run in place (7x7) run channels-last on any plane of up to kLanesPadded
/// padded input positions (a group's copy, 512 KB, within L2): measured on
/// 5x5 layers before they ran in place, 28x28 to 56x56 planes took 1.4-1.7x
/// the time row by row (120 channels of 28x28: 154 -> 111 us; 240 from
/// 56x56 with stride 2: 434 -> 298 us; 20 from 30x30: 31 -> 11.5 us). Below
/// it rows of 32 fill the row kernels' vectors better (24 channels of
/// 32x32, stride 1: 30 us row by row, 44 channels-last; 3 channels of
/// 64x64: 14.6 and 179).
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

}  // namespace kernels
}  // namespace etsb
