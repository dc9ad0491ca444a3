// Depthwise Float convolution of small planes on AVX-512, in NCHW as it is:
// whole input planes (up to 64 floats each, four vectors) are loaded as
// they lie, and every kernel tap picks its inputs for a vector of outputs
// (one output plane of up to 16, or several channels' together) with one
// or two lane permutes, zero where the tap falls in the padding. No copy,
// no transpose, no masked row loads: MobileNet-v2's 8x8, 4x4 and 2x2
// planes spent most of their time on those in depthwise_f32.h's other
// kernels. x86-64 with GCC only (other CPUs and compilers take those).
#pragma once

#include "pool_util.h"

#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_DEPTHWISE_TINY 1
#endif

#if defined(ETSB_DEPTHWISE_TINY)
#include <immintrin.h>
#endif

namespace etsb {
namespace kernels {

/// Input plane floats, output plane floats and taps depthwise_tiny takes at most.
constexpr int64_t kTinyIn = 64, kTinyOut = 16, kTinyTaps = 25;
/// Strides, paddings and dilations up to which depthwise_tiny takes a
/// convolution: its table's lane arithmetic is in 32 bits.
constexpr int64_t kTinyStep = 1 << 16;

/// The channels depthwise_tiny puts in one vector: as many output planes as
/// 16 lanes hold, and, when more than one, their input planes within two
/// vectors and their weights within two vectors (one channel's input plane
/// may take four).
inline int64_t depthwise_tiny_group(const Window& h, const Window& w) {
  const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out, taps = h.kernel * w.kernel;
  int64_t g = kTinyOut / out_plane;
  if (32 / in_plane < g) g = 32 / in_plane;
  if (32 / taps < g) g = 32 / taps;
  return g < 1 ? 1 : g;
}

/// Whether this build has the AVX-512 depthwise kernels and the CPU runs them.
inline bool depthwise_avx512_runs() {
#if defined(ETSB_DEPTHWISE_TINY)
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

/// Whether a convolution's window is 3x3 at `stride` on both axes, dilation 1, padding 1.
inline bool is_3x3_padded_by_1(const Window& h, const Window& w, int64_t stride) {
  return h.kernel == 3 && w.kernel == 3 && h.stride == stride && w.stride == stride && h.dilation == 1 &&
         w.dilation == 1 && h.pad == 1 && w.pad == 1;
}

/// Takes the arguments a kernel's entry point has no use for in a build without its AVX-512 body.
template <typename... Arguments>
inline void unused_without_avx512(const Arguments&...) {}

/// Whether depthwise_tiny takes a depthwise convolution: one output channel
/// per input channel, planes within kTinyIn and kTinyOut floats, at most
/// kTinyTaps taps, and a CPU with AVX-512.
inline bool depthwise_tiny_fits(int64_t multiplier, const Window& h, const Window& w) {
#if defined(ETSB_DEPTHWISE_TINY)
  return multiplier == 1 && h.in * w.in <= kTinyIn && h.out * w.out <= kTinyOut &&
         h.kernel * w.kernel <= kTinyTaps && h.stride <= kTinyStep && w.stride <= kTinyStep &&
         h.pad <= kTinyStep && w.pad <= kTinyStep && h.dilation <= kTinyStep && w.dilation <= kTinyStep &&
         __builtin_cpu_supports("avx512f");
#else
  unused_without_avx512(multiplier, h, w);
  return false;
#endif
}

#if defined(ETSB_DEPTHWISE_TINY)
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace depthwise_tiny_avx512 {

/// The first n floats from p (n <= 16), the rest zero.
__attribute__((always_inline)) inline __m512 load_first(const float* p, int64_t n) {
  return n >= 16 ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p);
}

/// What run works out once per call: the geometry, and per tap each lane's
/// input among the (up to) four loaded vectors, as an index into the first
/// pair (lanes in `low`) or the second (in `high`), zero lanes in neither.
struct Table {
  alignas(64) int32_t index[kTinyTaps][16];
  alignas(64) int32_t chan[16];  // lane j's channel in the vector (0 past the group's lanes)
  __mmask16 low[kTinyTaps], high[kTinyTaps];
  int64_t group, in_plane, out_plane, taps;
};

/// One vector of outputs in the making: its channels' input planes (up to
/// four vectors), their weights (two vectors, when more than one channel)
/// and the sums so far.
struct Lanes {
  __m512 v0, v1, v2, v3, wlo, whi, acc, odd;  // odd: the odd taps' sum, apart (a shorter chain)
};

/// The `r` channels from c0 on, their sums at their bias. lane_channel:
/// each lane's channel among them.
__attribute__((always_inline)) inline Lanes start(const Table& tb, const float* in, const float* weight,
                                                  const float* bias, int64_t c0, int64_t r, __m512i lane_channel) {
  const __m512 zero = _mm512_setzero_ps();
  const float* x = in + c0 * tb.in_plane;
  const int64_t n_in = r * tb.in_plane;
  Lanes l{load_first(x, n_in), n_in > 16 ? load_first(x + 16, n_in - 16) : zero,
          n_in > 32 ? load_first(x + 32, n_in - 32) : zero, n_in > 48 ? load_first(x + 48, n_in - 48) : zero,
          zero, zero, zero, zero};
  if (tb.group == 1) {
    l.acc = _mm512_set1_ps(bias != nullptr ? bias[c0] : 0.0f);
    return l;
  }
  // The zero-masked form with every lane kept: GCC 12 warns (maybe-uninitialized) on the
  // unmasked intrinsic's undefined pass-through.
  l.acc = bias != nullptr ? _mm512_maskz_permutexvar_ps(0xFFFF, lane_channel, load_first(bias + c0, r)) : zero;
  const float* ws = weight + c0 * tb.taps;
  l.wlo = load_first(ws, r * tb.taps);
  l.whi = r * tb.taps > 16 ? load_first(ws + 16, r * tb.taps - 16) : zero;
  return l;
}

/// acc plus tap t of l: index, the lanes from the first pair of vectors and
/// from the second (Wide: any); its weight w (One: one channel a vector) or
/// each lane's weight's place in wlo, whi (wat).
template <bool One, bool Wide>
__attribute__((always_inline)) inline __m512 tap(const Lanes& l, __m512 acc, __m512i index, __mmask16 low,
                                                 __mmask16 high, float w, __m512i wat) {
  __m512 xs = _mm512_maskz_permutex2var_ps(low, l.v0, index, l.v1);
  if (Wide) xs = _mm512_mask_mov_ps(xs, high, _mm512_permutex2var_ps(l.v2, index, l.v3));
  const __m512 wt = One ? _mm512_set1_ps(w) : _mm512_permutex2var_ps(l.wlo, wat, l.whi);
  return _mm512_fmadd_ps(wt, xs, acc);
}

/// Where each lane's weight of tap t lies in wlo, whi (first_weight: tap 0's).
inline __m512i weight_at(__m512i first_weight, int64_t t) {
  return _mm512_add_epi32(first_weight, _mm512_set1_epi32(static_cast<int>(t)));
}

/// Stores the first n floats of v at p (n <= 16).
__attribute__((always_inline)) inline void store_first(float* p, __m512 v, int64_t n) {
  if (n >= 16) {
    _mm512_storeu_ps(p, v);
  } else {
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v);
  }
}

/// run's loop over the channels, two vectors at a time (two chains of
/// dependent multiply-adds in flight, each split in even and odd taps), for
/// One channel a vector or more, and Wide planes (inputs in the second pair
/// of vectors) or not. Every lane sums the same way in both loops. The taps'
/// even/odd steps are spelled out in each loop: through a shared helper, GCC
/// kept 4x4 planes' sums less well (8% slower in bench_conv).
template <bool One, bool Wide>
inline void sweep(const Table& tb, const float* in, const float* weight, const float* bias, float* out,
                  int64_t channels) {
  const int64_t group = tb.group, taps = tb.taps, out_plane = tb.out_plane;
  const __m512i lane_channel = _mm512_load_si512(tb.chan);
  const __m512i first_weight = _mm512_mullo_epi32(lane_channel, _mm512_set1_epi32(static_cast<int>(taps)));
  int64_t c0 = 0;
  for (; c0 + 2 * group <= channels; c0 += 2 * group) {
    Lanes a = start(tb, in, weight, bias, c0, group, lane_channel);
    Lanes b = start(tb, in, weight, bias, c0 + group, group, lane_channel);
    const float* wa = weight + c0 * taps;
    const float* wb = wa + group * taps;
    for (int64_t t = 0; t < taps; ++t) {
      const __m512i idx = _mm512_load_si512(tb.index[t]);
      const __m512i wat = One ? idx : weight_at(first_weight, t);
      if (t % 2 == 0) {
        a.acc = tap<One, Wide>(a, a.acc, idx, tb.low[t], tb.high[t], wa[t], wat);
        b.acc = tap<One, Wide>(b, b.acc, idx, tb.low[t], tb.high[t], wb[t], wat);
      } else {
        a.odd = tap<One, Wide>(a, a.odd, idx, tb.low[t], tb.high[t], wa[t], wat);
        b.odd = tap<One, Wide>(b, b.odd, idx, tb.low[t], tb.high[t], wb[t], wat);
      }
    }
    store_first(out + c0 * out_plane, _mm512_add_ps(a.acc, a.odd), group * out_plane);
    store_first(out + (c0 + group) * out_plane, _mm512_add_ps(b.acc, b.odd), group * out_plane);
  }
  for (; c0 < channels; c0 += group) {
    const int64_t r = channels - c0 < group ? channels - c0 : group;  // channels in this vector
    Lanes a = start(tb, in, weight, bias, c0, r, lane_channel);
    const float* wa = weight + c0 * taps;
    for (int64_t t = 0; t < taps; ++t) {
      const __m512i idx = _mm512_load_si512(tb.index[t]);
      const __m512i wat = One ? idx : weight_at(first_weight, t);
      if (t % 2 == 0) {
        a.acc = tap<One, Wide>(a, a.acc, idx, tb.low[t], tb.high[t], wa[t], wat);
      } else {
        a.odd = tap<One, Wide>(a, a.odd, idx, tb.low[t], tb.high[t], wa[t], wat);
      }
    }
    store_first(out + c0 * out_plane, _mm512_add_ps(a.acc, a.odd), r * out_plane);
  }
}

/// Depthwise convolution of `channels` planes, `group` channels per vector
/// (depthwise_tiny_group): the table, then sweep. Each output lane (channel
/// g = j / out_plane of the vector's, position j % out_plane) sums its bias
/// and its taps in the same order whatever the grouping: the same result
/// for any cut of the channels.
inline void run(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                int64_t group, const Window& h, const Window& w) {
  Table tb;
  tb.group = group;
  tb.in_plane = h.in * w.in;
  tb.out_plane = h.out * w.out;
  tb.taps = h.kernel * w.kernel;
  // Built on every call, so in vectors (a scalar loop over taps and lanes took ~0.2 us, a quarter of a
  // 96-channel 4x4 layer): each lane's channel and output position once, then per tap its input.
  alignas(64) int32_t row[16], col[16];
  for (int64_t j = 0, g = 0, oh = 0, ow = 0; j < 16; ++j) {
    const bool used = j < group * tb.out_plane;
    tb.chan[j] = used ? static_cast<int32_t>(g) : 0;
    row[j] = static_cast<int32_t>(oh * h.stride - h.pad);
    col[j] = static_cast<int32_t>(ow * w.stride - w.pad);
    if (++ow < w.out) continue;
    ow = 0;
    if (++oh < h.out) continue;
    oh = 0;
    ++g;
  }
  const __mmask16 used = static_cast<__mmask16>((1u << (group * tb.out_plane)) - 1);  // group * out_plane <= 16
  const __m512i first =
      _mm512_mullo_epi32(_mm512_load_si512(tb.chan), _mm512_set1_epi32(static_cast<int>(tb.in_plane)));
  const __m512i rows = _mm512_load_si512(row), cols = _mm512_load_si512(col);
  const __m512i in_h = _mm512_set1_epi32(static_cast<int>(h.in)), in_w = _mm512_set1_epi32(static_cast<int>(w.in));
  const __m512i zero = _mm512_setzero_si512(), half = _mm512_set1_epi32(32), low5 = _mm512_set1_epi32(31);
  for (int64_t kh = 0, t = 0; kh < h.kernel; ++kh) {
    const __m512i ih = _mm512_add_epi32(rows, _mm512_set1_epi32(static_cast<int>(kh * h.dilation)));
    const __mmask16 inside_h =
        _mm512_mask_cmplt_epi32_mask(_mm512_mask_cmpge_epi32_mask(used, ih, zero), ih, in_h);
    const __m512i row_at = _mm512_add_epi32(first, _mm512_mullo_epi32(ih, in_w));
    for (int64_t kw = 0; kw < w.kernel; ++kw, ++t) {
      const __m512i iw = _mm512_add_epi32(cols, _mm512_set1_epi32(static_cast<int>(kw * w.dilation)));
      const __mmask16 inside =
          _mm512_mask_cmplt_epi32_mask(_mm512_mask_cmpge_epi32_mask(inside_h, iw, zero), iw, in_w);
      const __m512i at = _mm512_add_epi32(row_at, iw);  // the lane's input among the loaded floats
      _mm512_store_si512(tb.index[t], _mm512_and_si512(at, low5));
      tb.low[t] = _mm512_mask_cmplt_epi32_mask(inside, at, half);
      tb.high[t] = _mm512_mask_cmpge_epi32_mask(inside, at, half);
    }
  }
  const bool wide = group * tb.in_plane > 32;
  if (group == 1) {
    if (wide) return sweep<true, true>(tb, in, weight, bias, out, channels);
    return sweep<true, false>(tb, in, weight, bias, out, channels);
  }
  sweep<false, false>(tb, in, weight, bias, out, channels);  // not wide: depthwise_tiny_group
}

}  // namespace depthwise_tiny_avx512
#pragma GCC pop_options
#endif

/// Depthwise convolution of `channels` small planes (depthwise_tiny_fits)
/// on AVX-512. No scratch.
inline void depthwise_tiny(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                           const Window& h, const Window& w) {
#if defined(ETSB_DEPTHWISE_TINY)
  depthwise_tiny_avx512::run(in, weight, bias, out, channels, depthwise_tiny_group(h, w), h, w);
#else
  unused_without_avx512(in, weight, bias, out, channels, h, w);
#endif
}

}  // namespace kernels
}  // namespace etsb
