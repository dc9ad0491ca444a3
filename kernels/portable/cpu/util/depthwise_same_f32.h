// Depthwise Float convolution, 3x3 with stride 1 and padding 1 (the output
// plane the input's: MobileNet-v2's stride-1 layers) on small planes, on
// AVX-512, in NCHW as it is: a channel's whole plane (up to 64 floats, four
// vectors) is loaded once, shifted a column left and right within the
// vectors (lanes at a row's ends masked to the padding's zero), each kernel
// row's three taps summed over those, and the top and bottom rows' sums
// shifted a row into the middle one's by a permute: 4 lane shifts and 9
// multiply-adds a vector, no copy and no per-row setup, which
// depthwise_tiny_f32.h (a permute per tap) and depthwise_inplace_f32.h (a pass
// per 8-wide row) spent on 4x4 and 8x8 planes. x86-64 with GCC only, as
// those.
#pragma once

#include "depthwise_tiny_f32.h"
#include "pool_util.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// Input (= output) plane floats depthwise_same takes at most (four
/// vectors), and the widest rows (a row's shift within two vectors).
constexpr int64_t kSameIn = 64, kSameWidth = 15;

/// Whether depthwise_same takes a depthwise convolution: a 3x3 kernel with
/// stride 1, dilation 1 and padding 1 on both axes, planes of more than
/// kTinyOut / 2 floats (smaller ones depthwise_tiny packs two or more to a
/// vector: 2x2 planes ran 1.2x faster there) and up to kSameIn, rows of up
/// to kSameWidth, and a CPU with AVX-512.
inline bool depthwise_same_fits(const Window& h, const Window& w) {
  const int64_t plane = h.in * w.in;
  return is_3x3_padded_by_1(h, w, 1) && plane > kTinyOut / 2 && plane <= kSameIn && w.in <= kSameWidth &&
         depthwise_avx512_runs();
}

#if defined(ETSB_DEPTHWISE_TINY)
#pragma GCC push_options
#pragma GCC target("avx512f")
namespace depthwise_same_avx512 {

/// What run works out once a call, per vector of the plane: the lanes
/// inside it whose left, right, upper and lower neighbours are too, and the
/// permutes that bring each lane the sum one row up and one row down.
struct Shifts {
  __mmask16 left[4], right[4], up[4], down[4], inside[4];
  __m512i from_up, from_down;
};

/// run for planes of V vectors: per channel, the plane loaded once, its
/// columns shifted left and right (masked at the row ends) and each kernel
/// row's three taps summed (rows 0, 1 and 2: r0, r1 from the bias, r2),
/// then r0 shifted down a row and r2 up one into r1. Every output sums
/// alike whatever the cut of the channels.
template <int V>
inline void sweep(const float* in, const float* weight, const float* bias, float* out, int64_t out_channels,
                  int64_t multiplier, int64_t plane, const Shifts& s) {
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t oc = 0; oc < out_channels; ++oc) {
    const float* xp = in + oc / multiplier * plane;
    const float* k = weight + oc * 9;
    const __m512 start = _mm512_set1_ps(bias != nullptr ? bias[oc] : 0.0f);
    __m512 x[V], r0[V], r1[V], r2[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) x[v] = _mm512_maskz_loadu_ps(s.inside[v], xp + 16 * v);
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m512i here = _mm512_castps_si512(x[v]);
      const __m512i before = _mm512_castps_si512(v > 0 ? x[v - 1] : zero);
      const __m512i after = _mm512_castps_si512(v + 1 < V ? x[v + 1] : zero);
      // Zero-masked forms: GCC 12 warns (maybe-uninitialized) on the unmasked ones' undefined pass-through.
      const __m512 xl = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(s.left[v], here, before, 15));
      const __m512 xr = _mm512_castsi512_ps(_mm512_maskz_alignr_epi32(s.right[v], after, here, 1));
      r0[v] = _mm512_fmadd_ps(_mm512_set1_ps(k[2]), xr,
                              _mm512_fmadd_ps(_mm512_set1_ps(k[1]), x[v], _mm512_mul_ps(_mm512_set1_ps(k[0]), xl)));
      r1[v] = _mm512_fmadd_ps(
          _mm512_set1_ps(k[5]), xr,
          _mm512_fmadd_ps(_mm512_set1_ps(k[4]), x[v], _mm512_fmadd_ps(_mm512_set1_ps(k[3]), xl, start)));
      r2[v] = _mm512_fmadd_ps(_mm512_set1_ps(k[8]), xr,
                              _mm512_fmadd_ps(_mm512_set1_ps(k[7]), x[v], _mm512_mul_ps(_mm512_set1_ps(k[6]), xl)));
    }
    float* o = out + oc * plane;
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      const __m512 up = _mm512_maskz_permutex2var_ps(s.up[v], v > 0 ? r0[v - 1] : zero, s.from_up, r0[v]);
      const __m512 down = _mm512_maskz_permutex2var_ps(s.down[v], r2[v], s.from_down, v + 1 < V ? r2[v + 1] : zero);
      _mm512_mask_storeu_ps(o + 16 * v, s.inside[v], _mm512_add_ps(_mm512_add_ps(r1[v], up), down));
    }
  }
}

/// depthwise_same on AVX-512: the masks and permutes (Shifts), then sweep.
inline void run(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                int64_t multiplier, const Window& h, const Window& w) {
  const int64_t width = w.in, plane = h.in * w.in, vectors = (plane + 15) / 16;
  alignas(64) int32_t row[kSameIn], col[kSameIn];
  for (int64_t p = 0, r = 0, c = 0; p < 16 * vectors; ++p) {
    row[p] = static_cast<int32_t>(r);
    col[p] = static_cast<int32_t>(c);
    if (++c < width) continue;
    c = 0;
    ++r;
  }
  Shifts s;
  const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i shift = _mm512_set1_epi32(static_cast<int>(width));
  // Lane j takes the sum of position j - width (one row up) from the vector before (indices below 16) or its
  // own, and that of j + width from its own or the vector after.
  s.from_up = _mm512_add_epi32(iota, _mm512_sub_epi32(_mm512_set1_epi32(16), shift));
  s.from_down = _mm512_add_epi32(iota, shift);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i last_row = _mm512_set1_epi32(static_cast<int>(h.in - 1));
  const __m512i last_col = _mm512_set1_epi32(static_cast<int>(width - 1));
  for (int64_t v = 0; v < vectors; ++v) {
    const int64_t left = plane - 16 * v;
    const __mmask16 inside = static_cast<__mmask16>(left >= 16 ? 0xFFFFu : (1u << left) - 1);
    const __m512i rows = _mm512_load_si512(row + 16 * v), cols = _mm512_load_si512(col + 16 * v);
    s.inside[v] = inside;
    s.left[v] = _mm512_mask_cmpgt_epi32_mask(inside, cols, zero);
    s.right[v] = _mm512_mask_cmplt_epi32_mask(inside, cols, last_col);
    s.up[v] = _mm512_mask_cmpgt_epi32_mask(inside, rows, zero);
    s.down[v] = _mm512_mask_cmplt_epi32_mask(inside, rows, last_row);
  }
  const int64_t out_channels = channels * multiplier;
  if (vectors == 1) return sweep<1>(in, weight, bias, out, out_channels, multiplier, plane, s);
  if (vectors == 2) return sweep<2>(in, weight, bias, out, out_channels, multiplier, plane, s);
  if (vectors == 3) return sweep<3>(in, weight, bias, out, out_channels, multiplier, plane, s);
  sweep<4>(in, weight, bias, out, out_channels, multiplier, plane, s);
}

}  // namespace depthwise_same_avx512
#pragma GCC pop_options
#endif

/// Depthwise convolution of `channels` input planes, `multiplier` output
/// channels each, that depthwise_same_fits, on AVX-512. No scratch.
inline void depthwise_same(const float* in, const float* weight, const float* bias, float* out, int64_t channels,
                           int64_t multiplier, const Window& h, const Window& w) {
#if defined(ETSB_DEPTHWISE_TINY)
  depthwise_same_avx512::run(in, weight, bias, out, channels, multiplier, h, w);
#else
  unused_without_avx512(in, weight, bias, out, channels, multiplier, h, w);
#endif
}

}  // namespace kernels
}  // namespace etsb
