// exp and erf for Float written so that the compiler vectorises loops over
// them (no calls, branches as selects): what softmax, sigmoid and gelu spend
// their time in. Accuracy: exp_f32 within 5 ulp (relative 2.5e-7) where the
// result is a normal float; erf_f32 within 5e-7 absolute (Abramowitz and
// Stegun 7.1.26, the formula ATen's vectorised erf uses too). Other dtypes
// keep the C library's functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace etsb {
namespace kernels {

/// e^r for |r| <= ln 2 / 2 by its Taylor polynomial to degree 6 (Horner):
/// exp_f32's and sigmoid_f32's, always in line (also into loops built with
/// other optimize options, where a plain inline function is not).
__attribute__((always_inline)) inline float exp_reduced_f32(float r) {
  float p = 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  return p * r + 1.0f;
}

/// e^x for float: x = n ln2 + r with |r| <= ln2 / 2, e^r by its Taylor
/// polynomial to degree 6, 2^n built in the exponent bits. Large x gives
/// +inf, x below about -87.3 (where e^x is no longer a normal float) gives
/// 0, an absolute error below 1.2e-38; NaN stays NaN.
inline float exp_f32(float x) {
  // Written so that NaN clamps too (every comparison with it is false): the
  // conversion to int below must not see it.
  const float clamped = x > -87.3f ? (x < 88.7f ? x : 88.7f) : -87.3f;
  // Rounded to the nearest integer by adding and subtracting 1.5 * 2^23 (no
  // call to a rounding function, which baseline x86-64 lacks an instruction for).
  const float n = (clamped * 1.44269504f + 12582912.0f) - 12582912.0f;
  const float r = clamped - n * 0.693145752f - n * 1.42860677e-6f;  // ln 2 in two parts
  const float p = exp_reduced_f32(r);
  // 2^n as two factors, each a normal float for every n in [-126, 128].
  const int32_t half = static_cast<int32_t>(n) / 2;
  const int32_t bits_a = (half + 127) << 23;
  const int32_t bits_b = (static_cast<int32_t>(n) - half + 127) << 23;
  float scale_a, scale_b;
  std::memcpy(&scale_a, &bits_a, sizeof scale_a);
  std::memcpy(&scale_b, &bits_b, sizeof scale_b);
  const float result = p * scale_a * scale_b;
  return x != x ? x : (x > 88.72f ? __builtin_inff() : (x < -87.3f ? 0.0f : result));
}

/// erf(x) for float: sign(x) (1 - poly(t) t e^{-x^2}) with t = 1 / (1 +
/// 0.3275911 |x|) (Abramowitz and Stegun 7.1.26).
inline float erf_f32(float x) {
  const float a = x < 0 ? -x : x;
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  float p = 1.061405429f;
  p = p * t - 1.453152027f;
  p = p * t + 1.421413741f;
  p = p * t - 0.284496736f;
  p = p * t + 0.254829592f;
  const float y = 1.0f - p * t * exp_f32(-a * a);
  return x != x ? x : (x < 0 ? -y : y);
}

// ETSB_HOT_LOOP: a function built once per x86 vector width (AVX-512, AVX2,
// baseline), chosen when the program loads, with GCC's loop vectoriser on
// (at -O2 it leaves loops of unknown length alone). On AArch64, NEON is in
// every CPU: one build, vectorised. The functions are static (each kernel
// file its own copy, which the linker drops where unused).
// ETSB_KERNELS_ONE_PATH (etsb's size configuration) keeps the one build the
// compile flags target: no copies, no CPU detection, no vectoriser of its own.
// ETSB_NARROW_LOOP: the same without the AVX-512 build, for loops that run
// no faster on it than on AVX2 (copies, short rows: measured on an AVX-512
// CPU), so that they cost two builds of code, not three.
// ETSB_ONE_BUILD_LOOP: one build, the baseline's, with the vectoriser on, for
// copies whose time is small beside the work they feed (im2col before a
// matrix product: its AVX2 build gained ResNet-18's 1x1 stride-2
// convolutions 3%, 0.01 ms a run, for 3 KB of code in every binary with a
// convolution).
// ETSB_NARROW_SELECTS: ETSB_NARROW_LOOP for a loop whose selects take an arm
// computed by floating-point arithmetic (sigmoid's e * d or d): without
// -fno-trapping-math GCC if-converts such a select only where it can mask
// (AVX-512), and leaves the AVX2 and baseline builds scalar. No kernel reads
// the floating-point exception flags, so the results are the same. (Its one
// user, sigmoid, has an AVX-512 build written by hand: sigmoid_f32.h.)
// ETSB_AVX512_BUILD and ETSB_AVX2_BUILD (x86-64 only, ETSB_X86_BUILDS): one
// build for one of those, for code that only CPUs with AVX2 run (the caller
// asks avx2_runs() and takes another path without it): no baseline build.
// ETSB_AVX2_FMA_BUILD: the same with fused multiply-adds (avx2_fma_runs()).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_HOT_LOOP \
  __attribute__((unused, target_clones("avx512f", "avx2", "default"), optimize("vect-cost-model=dynamic")))
#define ETSB_NARROW_LOOP \
  __attribute__((unused, target_clones("avx2", "default"), optimize("vect-cost-model=dynamic")))
#define ETSB_NARROW_SELECTS \
  __attribute__((unused, target_clones("avx2", "default"), optimize("vect-cost-model=dynamic", "no-trapping-math")))
#define ETSB_ONE_BUILD_LOOP __attribute__((unused, optimize("vect-cost-model=dynamic")))
#define ETSB_X86_BUILDS 1
#define ETSB_AVX512_BUILD __attribute__((unused, target("avx512f"), optimize("vect-cost-model=dynamic")))
#define ETSB_AVX2_BUILD __attribute__((unused, target("avx2"), optimize("vect-cost-model=dynamic")))
#define ETSB_AVX2_FMA_BUILD __attribute__((unused, target("avx2,fma"), optimize("vect-cost-model=dynamic")))
#elif defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_HOT_LOOP __attribute__((unused, optimize("vect-cost-model=dynamic")))
#define ETSB_NARROW_LOOP ETSB_HOT_LOOP
#define ETSB_NARROW_SELECTS __attribute__((unused, optimize("vect-cost-model=dynamic", "no-trapping-math")))
#define ETSB_ONE_BUILD_LOOP ETSB_HOT_LOOP
#else
#define ETSB_HOT_LOOP __attribute__((unused))
#define ETSB_NARROW_LOOP ETSB_HOT_LOOP
#define ETSB_NARROW_SELECTS ETSB_HOT_LOOP
#define ETSB_ONE_BUILD_LOOP ETSB_HOT_LOOP
#endif

/// Whether this CPU runs the code built only for AVX2 and up
/// (ETSB_AVX2_BUILD): always where there are no such builds.
inline bool avx2_runs() {
#if defined(ETSB_X86_BUILDS)
  return __builtin_cpu_supports("avx2");
#else
  return true;
#endif
}

/// Whether this CPU runs code built only for AVX2 with FMA
/// (ETSB_AVX2_FMA_BUILD, dot_f32.h's builds): asked of the CPU on any x86-64
/// (where GCC builds for those by target attributes on every system), true
/// elsewhere.
inline bool avx2_fma_runs() {
#if defined(__GNUC__) && defined(__x86_64__)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return true;
#endif
}

/// out[i] = in[i] * Phi(in[i]) for Float, with erf (gelu, approximate "none").
/// -inf gives 0, the limit (the formula would give -inf * 0, NaN), as
/// ExecuTorch's portable kernel does; a select, so the loop still vectorises.
ETSB_HOT_LOOP static void gelu_erf_f32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    const float y = 0.5f * x * (1.0f + erf_f32(x * 0.70710678f));
    out[i] = x == -__builtin_inff() ? 0.0f : y;
  }
}

/// tanh(x) for float: sign(x) (1 - e^{-2|x|}) / (1 + e^{-2|x|}), within
/// 1e-7 absolute of the exact value (NaN stays NaN).
inline float tanh_f32(float x) {
  const float a = x < 0 ? -x : x;
  const float e = exp_f32(-2.0f * a);
  const float y = (1.0f - e) / (1.0f + e);
  return x != x ? x : (x < 0 ? -y : y);
}

/// out[i] = tanh(in[i]) for Float.
ETSB_HOT_LOOP static void tanh_loop_f32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = tanh_f32(in[i]);
}

/// out[i] = gelu(in[i]) with ATen's tanh approximation for Float: 0.5 x (1 +
/// tanh(u)) = x / (1 + e^{-2u}), u = sqrt(2 / pi) (x + 0.044715 x^3); -inf
/// gives 0, the limit (the formula: -inf / inf, NaN).
ETSB_HOT_LOOP static void gelu_tanh_f32(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    const float u = 0.7978845608f * (x + 0.044715f * x * x * x);
    const float y = x / (1.0f + exp_f32(-2.0f * u));
    out[i] = x == -__builtin_inff() ? 0.0f : y;
  }
}

/// out[i] = in[i] clamped into [low, high] for Float (bounds not NaN, low
/// applied first as ATen does; a NaN element stays NaN). Memory-bound: two
/// builds (ETSB_NARROW_LOOP).
ETSB_NARROW_LOOP static void clamp_f32(const float* in, float* out, int64_t n, bool has_low, float low, bool has_high,
                                       float high) {
  const float lo = has_low ? low : -__builtin_inff();
  const float hi = has_high ? high : __builtin_inff();
  for (int64_t i = 0; i < n; ++i) {
    const float x = in[i] < lo ? lo : in[i];
    out[i] = x > hi ? hi : x;
  }
}

// Reductions keep 16 partial results (the compiler may not reorder a float
// sum itself), which it then holds in one or two vector registers.

/// The sum of n floats in 16 partial sums: sum_f32's loop, always in line
/// so that each build it goes into vectorises it its own way.
__attribute__((always_inline)) inline float sum_16_partials(const float* in, int64_t n) {
  float part[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int u = 0; u < 16; ++u) part[u] += in[i + u];
  }
  float sum = 0;
  for (; i < n; ++i) sum += in[i];
  for (int u = 0; u < 16; ++u) sum += part[u];
  return sum;
}

/// The sum of n floats. Two builds (ETSB_NARROW_LOOP): its one chain of
/// 16-float adds ran no faster on AVX-512 than AVX2's two of 8 (0.044-0.063
/// ns an element either way, rows of 196 to 50,000), and softmax and layer
/// norm each carry a copy.
ETSB_NARROW_LOOP static float sum_f32(const float* in, int64_t n) { return sum_16_partials(in, n); }

#if defined(ETSB_X86_BUILDS)
/// sum_f32's AVX2 build alone, for callers with a loop of their own where
/// AVX2 does not run (avx2_runs): mean and sum's long rows, without a
/// baseline copy and a resolver (0.4 KB of each model's kernel code).
ETSB_AVX2_BUILD static float sum_avx2_f32(const float* in, int64_t n) { return sum_16_partials(in, n); }
#endif

/// The sum of (in[i] - center)^2 over n floats.
ETSB_HOT_LOOP static float squares_f32(const float* in, int64_t n, float center) {
  float part[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int u = 0; u < 16; ++u) part[u] += (in[i + u] - center) * (in[i + u] - center);
  }
  float sum = 0;
  for (; i < n; ++i) sum += (in[i] - center) * (in[i] - center);
  for (int u = 0; u < 16; ++u) sum += part[u];
  return sum;
}

/// The largest of n > 0 floats, NaN if any is NaN.
ETSB_HOT_LOOP static float max_f32(const float* in, int64_t n) {
  float part[16];
  for (int u = 0; u < 16; ++u) part[u] = in[0];
  int32_t nans[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    for (int u = 0; u < 16; ++u) {
      nans[u] |= in[i + u] != in[i + u];
      part[u] = in[i + u] > part[u] ? in[i + u] : part[u];
    }
  }
  float max = in[0];
  bool nan = false;
  for (; i < n; ++i) {
    nan = nan || in[i] != in[i];
    max = in[i] > max ? in[i] : max;
  }
  for (int u = 0; u < 16; ++u) {
    nan = nan || nans[u] != 0;
    max = part[u] > max ? part[u] : max;
  }
  return nan ? __builtin_nanf("") : max;
}

/// out[i] = e^(in[i] - shift) for Float.
ETSB_HOT_LOOP static void exp_shifted_f32(const float* in, float* out, int64_t n, float shift) {
  for (int64_t i = 0; i < n; ++i) out[i] = exp_f32(in[i] - shift);
}

// The binary maps below stream memory, as fast on AVX2 as on AVX-512
// (ETSB_NARROW_LOOP): two builds each, not three.

/// out[i] = a[i] + b[i] for Float (add's alpha of 1; out may be a or b).
ETSB_NARROW_LOOP static void add_f32(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

/// out[i] = a[i] * b[i] for Float (out may be a or b).
ETSB_NARROW_LOOP static void mul_f32(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
}

/// out[i] = a[i] + s for Float: add of a one-element operand (hardswish's
/// x + 3; out may be a).
ETSB_NARROW_LOOP static void add_scalar_f32(const float* a, float s, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + s;
}

/// out[i] = a[i] * s for Float (out may be a).
ETSB_NARROW_LOOP static void mul_scalar_f32(const float* a, float s, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] * s;
}

/// out[i] = a[i] / b[i] for Float (out may be a or b).
ETSB_NARROW_LOOP static void div_f32(const float* a, const float* b, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] / b[i];
}

/// out[i] = a[i] / s for Float: a true division each, not a product by 1 / s
/// (hardswish's x / 6; out may be a).
ETSB_NARROW_LOOP static void div_scalar_f32(const float* a, float s, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] / s;
}

/// out[i] = s / a[i] for Float (out may be a).
ETSB_NARROW_LOOP static void rdiv_scalar_f32(const float* a, float s, float* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = s / a[i];
}

/// out[i] = in[i] * scale + shift for Float.
ETSB_HOT_LOOP static void scale_shift_f32(const float* in, float* out, int64_t n, float scale, float shift) {
  for (int64_t i = 0; i < n; ++i) out[i] = in[i] * scale + shift;
}

/// out[i] = ((in[i] - mean) * rstd) * weight[i] + bias[i] for Float (layer
/// norm with both affine parameters).
ETSB_HOT_LOOP static void normalise_affine_f32(const float* in, float* out, int64_t n, float mean, float rstd,
                                               const float* weight, const float* bias) {
  for (int64_t i = 0; i < n; ++i) out[i] = (in[i] - mean) * rstd * weight[i] + bias[i];
}

/// e^x: exp_f32 for float, the C library's for double.
inline float fast_exp(float x) { return exp_f32(x); }
inline double fast_exp(double x) { return std::exp(x); }

/// erf(x): erf_f32 for float, the C library's for double.
inline float fast_erf(float x) { return erf_f32(x); }
inline double fast_erf(double x) { return std::erf(x); }

}  // namespace kernels
}  // namespace etsb
