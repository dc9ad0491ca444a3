// Direct depthwise convolution for the commonest depthwise kernels, 3x3 and
// 5x5 with stride 1 (dilation 1 down the plane, padding up to K - 1 rows)
// or stride 2 (dilation 1, any padding), and on the same stride-2 rows a
// dense 3x3 stem of few input channels: read in place, no padded copy
// (depthwise_f32.h's other kernels make one), masked loads at the plane's
// edges. On x86-64, an AVX-512 and an AVX2 + FMA build
// chosen at run time; an older x86 CPU takes depthwise_f32.h's padded-copy
// kernels instead (depthwise_inplace_fits says no), so that x86 binaries carry
// two builds of this code, not three. Elsewhere (AArch64), one build on
// GCC's generic vectors (NEON).
#pragma once

#include "pool_util.h"

#include <cstdint>
#include <cstring>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_DEPTHWISE_INPLACE_X86 1
#endif

namespace etsb {
namespace kernels {

#if !defined(ETSB_DEPTHWISE_INPLACE_X86)
namespace depthwise_inplace_portable {
typedef float Vec4 __attribute__((vector_size(16)));
/// Lanes [lo, hi) of a Vec4.
struct Lanes {
  int64_t lo, hi;
};
/// The lanes m of the floats at p, the others zero: the whole vector at
/// once when m is all of it, else lane by lane.
inline Vec4 load_lanes(const float* p, Lanes m) {
  Vec4 v{0, 0, 0, 0};
  if (m.lo == 0 && m.hi == 4) {
    std::memcpy(&v, p, sizeof v);
  } else {
    for (int64_t i = m.lo; i < m.hi; ++i) v[i] = p[i];
  }
  return v;
}
#define ETSB_DW_VEC Vec4
#define ETSB_DW_W 4
#define ETSB_DW_MASK Lanes
#define ETSB_DW_LANES(lo, hi) (Lanes{(lo), (hi)})
#define ETSB_DW_LOAD(p, m) load_lanes((p), (m))
#define ETSB_DW_STORE(p, v) std::memcpy((p), &(v), sizeof(Vec4))
#define ETSB_DW_STOREM(p, v, m) \
  for (int64_t i_ = (m).lo; i_ < (m).hi; ++i_) (p)[i_] = (v)[i_]
#define ETSB_DW_SET1(x) (Vec4{(x), (x), (x), (x)})
#define ETSB_DW_FMA(a, b, c) ((a) * (b) + (c))
#define ETSB_DW_EVEN(a, b) (Vec4{(a)[0], (a)[2], (b)[0], (b)[2]})
#define ETSB_DW_ODD(a, b) (Vec4{(a)[1], (a)[3], (b)[1], (b)[3]})
#define ETSB_DW_NEXT(v, x) (Vec4{(v)[1], (v)[2], (v)[3], (x)})
#include "depthwise_inplace_body.inc"
}  // namespace depthwise_inplace_portable
#else
}  // namespace kernels
}  // namespace etsb
#include <immintrin.h>
namespace etsb {
namespace kernels {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace depthwise_inplace_avx2 {
/// Lanes [lo, hi) on, the rest off.
inline __m256i lanes_within(int64_t lo, int64_t hi) {
  const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_andnot_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(lo)), iota),
                             _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(hi)), iota));
}
/// Lanes 0, 2, 4, 6 of v, then 1, 3, 5, 7.
inline __m256 evens_first(__m256 v) {
  return _mm256_permutevar8x32_ps(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}
#define ETSB_DW_VEC __m256
#define ETSB_DW_W 8
#define ETSB_DW_MASK __m256i
#define ETSB_DW_LANES(lo, hi) lanes_within((lo), (hi))
// A plain load when every lane is on: it ran 1.2x faster than maskload over whole strips.
#define ETSB_DW_LOAD(p, m) \
  (_mm256_movemask_ps(_mm256_castsi256_ps(m)) == 0xff ? _mm256_loadu_ps(p) : _mm256_maskload_ps((p), (m)))
#define ETSB_DW_STORE(p, v) _mm256_storeu_ps((p), (v))
#define ETSB_DW_STOREM(p, v, m) _mm256_maskstore_ps((p), (m), (v))
#define ETSB_DW_SET1(x) _mm256_set1_ps(x)
#define ETSB_DW_FMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
// Each vector's even lanes to its low half, odd to its high one, then the halves paired across the two.
#define ETSB_DW_EVEN(a, b) _mm256_permute2f128_ps(evens_first(a), evens_first(b), 0x20)
#define ETSB_DW_ODD(a, b) _mm256_permute2f128_ps(evens_first(a), evens_first(b), 0x31)
#define ETSB_DW_NEXT(v, x) \
  _mm256_blend_ps(_mm256_permutevar8x32_ps((v), _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 0)), _mm256_set1_ps(x), 0x80)
#include "depthwise_inplace_body.inc"
}  // namespace depthwise_inplace_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace depthwise_inplace_avx512 {
#define ETSB_DW_VEC __m512
#define ETSB_DW_W 16
#define ETSB_DW_MASK __mmask16
#define ETSB_DW_LANES(lo, hi) static_cast<__mmask16>(((1u << (hi)) - 1) & ~((1u << (lo)) - 1))
#define ETSB_DW_LOAD(p, m) _mm512_maskz_loadu_ps((m), (p))
#define ETSB_DW_STORE(p, v) _mm512_storeu_ps((p), (v))
#define ETSB_DW_STOREM(p, v, m) _mm512_mask_storeu_ps((p), (m), (v))
#define ETSB_DW_SET1(x) _mm512_set1_ps(x)
#define ETSB_DW_FMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
#define ETSB_DW_EVEN(a, b) \
  _mm512_permutex2var_ps((a), _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30), (b))
#define ETSB_DW_ODD(a, b) \
  _mm512_permutex2var_ps((a), _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31), (b))
// Zero-masked with every lane kept: GCC 12 warns (maybe-uninitialized) on the unmasked
// intrinsic's undefined pass-through.
#define ETSB_DW_NEXT(v, x)                                                                                    \
  _mm512_castsi512_ps(                                                                                      \
      _mm512_maskz_alignr_epi32(0xFFFF, _mm512_castps_si512(_mm512_set1_ps(x)), _mm512_castps_si512(v), 1))
#include "depthwise_inplace_body.inc"
}  // namespace depthwise_inplace_avx512
#pragma GCC pop_options
#endif

/// Whether depthwise_inplace_f32 takes a convolution: a 3x3 or 5x5 kernel,
/// either stride 1 with dilation 1 down the plane (any across it) and at
/// most K - 1 rows of padding, or stride 2 with dilation 1 (any padding). On
/// x86-64 also whether this CPU runs one of its builds (AVX2 + FMA at least).
inline bool depthwise_inplace_fits(const Window& h, const Window& w) {
  const int64_t k = h.kernel;
  const bool stride1 = h.stride == 1 && w.stride == 1 && h.dilation == 1 && h.pad <= k - 1;
  const bool stride2 = h.stride == 2 && w.stride == 2 && h.dilation == 1 && w.dilation == 1;
  if (!((k == 3 || k == 5) && w.kernel == k && (stride1 || stride2))) return false;
#if defined(ETSB_DEPTHWISE_INPLACE_X86)
  return __builtin_cpu_supports("avx512f") || (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"));
#else
  return true;
#endif
}

/// Depthwise convolution of one image (one input channel per group,
/// `multiplier` output channels per input channel) with a kernel that
/// depthwise_inplace_fits, on the widest vector unit this CPU has. No scratch.
inline void depthwise_inplace_f32(const float* in, const float* weight, const float* bias, float* out,
                                  int64_t channels, int64_t multiplier, const Window& h, const Window& w) {
#if defined(ETSB_DEPTHWISE_INPLACE_X86)
  // Rows of up to 8 outputs fill an AVX2 vector: the AVX-512 build would leave half its lanes idle (and
  // ran 1.15-1.2x slower on 8 wide rows).
  if (w.out > 8 && __builtin_cpu_supports("avx512f")) {
    return depthwise_inplace_avx512::planes(in, weight, bias, out, channels, multiplier, h, w);
  }
  // depthwise_inplace_fits: AVX2 at least
  depthwise_inplace_avx2::planes(in, weight, bias, out, channels, multiplier, h, w);
#else
  depthwise_inplace_portable::planes(in, weight, bias, out, channels, multiplier, h, w);
#endif
}

/// Input channels up to which stem3x3_f32 takes a dense convolution.
constexpr int64_t kStemChannels = 4;
/// Output channels up to which it does: beyond them im2col and gemm ran
/// faster (one thread, gemm against these rows: 32 outputs from 224x224
/// 247 us against 271, from 64x64 20.3 against 22.1; 16 alike within 3%;
/// 8 from 64x64 6.8 against 5.7).
constexpr int64_t kStemOutChannels = 16;

/// Whether stem3x3_f32 takes a dense (one group) convolution: a 3x3 kernel
/// with stride 2 and dilation 1 over at most kStemChannels input channels
/// to 8 or 16 output channels (multiples of 8: one code path, no remainder
/// to build per instruction set), on a CPU that runs depthwise_inplace_f32's
/// builds.
inline bool stem3x3_fits(int64_t in_ch, int64_t out_ch, const Window& h, const Window& w) {
  return in_ch <= kStemChannels && out_ch % 8 == 0 && out_ch <= kStemOutChannels && h.kernel == 3 && h.stride == 2 &&
         depthwise_inplace_fits(h, w);
}

/// Output rows [r0, r1) of one image of a convolution that stem3x3_fits,
/// weight [OC, C, 3, 3], on the widest vector unit this CPU has (AVX2 for
/// rows of up to 8, as depthwise_inplace_f32).
inline void stem3x3_rows(const float* in, const float* weight, const float* bias, float* out, int64_t in_ch,
                         int64_t out_ch, const Window& h, const Window& w, int64_t r0, int64_t r1) {
#if defined(ETSB_DEPTHWISE_INPLACE_X86)
  if (w.out > 8 && __builtin_cpu_supports("avx512f")) {
    return depthwise_inplace_avx512::stem_rows(out, in, weight, bias, in_ch, out_ch, h, w, r0, r1);
  }
  depthwise_inplace_avx2::stem_rows(out, in, weight, bias, in_ch, out_ch, h, w, r0, r1);
#else
  depthwise_inplace_portable::stem_rows(out, in, weight, bias, in_ch, out_ch, h, w, r0, r1);
#endif
}

}  // namespace kernels
}  // namespace etsb
