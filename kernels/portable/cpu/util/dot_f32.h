// Single-precision matrix products against a transposed right operand
// (C = A . B^T, every row of A and of B contiguous), for outputs too narrow
// for gemm_f32.h's vectors of output columns: a convolution whose output
// plane has a few positions (1x1 to 2x3) over deep patches. On x86-64 an
// AVX2 + FMA build, taken when the CPU has them (dot_f32_runs: an older CPU
// leaves these products to gemm_f32, whose portable build it runs anyway),
// and the same 8-float vectors in tiles of 4 rows where AVX-512VL gives 32
// registers; elsewhere, or under ETSB_KERNELS_ONE_PATH, a build on GCC's
// generic vectors. No 16-float build: its vectors along patches of 80-128
// floats ran slower than AVX2's (a longer remainder, wider sums).
#pragma once

#include "fast_math.h"

#include <cstdint>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_DOT_X86 1
#endif

namespace etsb {
namespace kernels {

#if !defined(ETSB_DOT_X86)
namespace dot_portable {
typedef float DVec4 __attribute__((vector_size(16)));
#define ETSB_DVEC DVec4
#define ETSB_DW 4
#define ETSB_DLOAD(p) \
  ([](const float* q) { DVec4 v; __builtin_memcpy(&v, q, sizeof v); return v; }(p))
#define ETSB_DZERO() (DVec4{0, 0, 0, 0})
#define ETSB_DFMA(a, b, c) ((a) * (b) + (c))
#define ETSB_DSUM4(s, v) \
  for (int q = 0; q < 4; ++q) (s)[q] = lanes_sum((v)[q])
#define ETSB_DR 3
#include "dot_f32_body.inc"
}  // namespace dot_portable
#else
}  // namespace kernels
}  // namespace etsb
#include <immintrin.h>
namespace etsb {
namespace kernels {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace dot_avx2 {
#define ETSB_DR 3
#include "dot_f32_avx8.inc"
}  // namespace dot_avx2
#pragma GCC pop_options

// The same 8-float vectors where the CPU has AVX-512: its 32 registers hold
// tiles of 4 rows (16 sums, no 3-row tail), each vector of B loaded serving
// more products than AVX2's 16 registers allow. 4 rows ran as fast as 6 on
// the CNNs' small planes in 2.2 KB less code.
#pragma GCC push_options
#pragma GCC target("avx2,fma,avx512f,avx512vl")
namespace dot_avx512vl {
#define ETSB_DR 4
#define ETSB_DCOLUMN dot_avx2::dot_column  // the AVX2 build's (dot_f32_body.inc says why)
#include "dot_f32_avx8.inc"
}  // namespace dot_avx512vl
#pragma GCC pop_options

#endif

/// Whether dot_f32 runs on this CPU: on x86-64, only with AVX2 + FMA.
inline bool dot_f32_runs() { return avx2_fma_runs(); }

/// C[m x n] = (accumulate ? C : row_init) + A[m x k] . B^T in single
/// precision, row_init[i] along C's row i (zero when null), B given as its
/// n rows of k: A's row i at a + i * lda, B's row j at b + j * ldb, C
/// row-major with leading dim ldc, not overlapping A or B. Only where
/// dot_f32_runs.
inline void dot_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                    float* c, int64_t ldc, bool accumulate, const float* row_init = nullptr) {
  if (m <= 0 || n <= 0) return;
#if defined(ETSB_DOT_X86)
  if (__builtin_cpu_supports("avx512vl")) {
    return dot_avx512vl::dot(m, n, k, a, lda, b, ldb, c, ldc, accumulate, row_init);
  }
  dot_avx2::dot(m, n, k, a, lda, b, ldb, c, ldc, accumulate, row_init);
#else
  dot_portable::dot(m, n, k, a, lda, b, ldb, c, ldc, accumulate, row_init);
#endif
}

}  // namespace kernels
}  // namespace etsb
