// Single-precision matrix products fast enough for real models: register-
// blocked tiles (an MR x NR block of C held in vector registers while k
// runs), cache blocking over k and n. On x86-64 one build per instruction
// set (AVX-512, AVX2 + FMA) chosen at run time, and plain loops for a CPU
// with neither; elsewhere (AArch64) one build on GCC's generic vectors
// (NEON). No packing, so no scratch memory: B's rows are read in place, A's
// elements broadcast. ETSB_KERNELS_ONE_PATH (etsb's size configuration)
// keeps the generic-vector build alone: what the compile flags target
// (SSE2 on x86-64), without CPU detection.
//
// Used by mm, bmm, addmm and convolution for Float; other dtypes keep the
// portable loops of matmul_util.h.
//
// Large products run on ExecuTorch's thread pool when the binary links one
// (parallel_util.h): C is cut into blocks of whole register tiles (columns
// in multiples of NR, or rows in multiples of MR), each computed by one
// thread over the whole of k. A reduction is never split, and every element
// of C takes the same code path whatever the cut, so results are
// bit-identical on any number of threads.
#pragma once

#include <cstdint>

#include "parallel_util.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_GEMM_X86 1
#endif

namespace etsb {
namespace kernels {

// Whether gemm_f32's register tiles fetch the rows of A the next tile down
// will read (a line of each row every 16 steps of k): a convolution's weights,
// read once a run and out of cache, stream ahead of the products instead of
// on demand. The pointwise convolutions at 224 px (--profile, the min of
// two): MobileNet-v3-Large's 4.49 -> 4.25 ms a run, EfficientNet-B0's 7.64 ->
// 7.06 (its 1152 x 192 by 7x7 planes 1.26 -> 0.95 ms); not in the size
// configuration (code for no cache).
#if defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_GEMM_PREFETCH 0
#else
#define ETSB_GEMM_PREFETCH 1
#endif

// Whether gemm_f32 takes row_init, its register tiles starting from it
// (gemm_f32_body.inc): not in the size configuration, whose callers write C
// first and pass null (no code for it in the tiles).
#if defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_GEMM_ROW_INIT 0
#else
#define ETSB_GEMM_ROW_INIT 1
#endif

#if !defined(ETSB_GEMM_X86)
namespace gemm_portable {
typedef float Vec4 __attribute__((vector_size(16)));
#define ETSB_VEC Vec4
#define ETSB_W 4
#define ETSB_LOAD(p) \
  ([](const float* q) { Vec4 v; __builtin_memcpy(&v, q, sizeof v); return v; }(p))
#define ETSB_STORE(p, v) __builtin_memcpy((p), &(v), sizeof(Vec4))
#define ETSB_LOADN(p, n) \
  ([](const float* q, int64_t count) { Vec4 v{0, 0, 0, 0}; __builtin_memcpy(&v, q, count * sizeof(float)); \
     return v; }((p), (n)))
#define ETSB_STOREN(p, v, n) __builtin_memcpy((p), &(v), (n) * sizeof(float))
#define ETSB_SET1(x) (Vec4{(x), (x), (x), (x)})
#define ETSB_ZERO() (Vec4{0, 0, 0, 0})
#define ETSB_FMA(a, b, c) ((a) * (b) + (c))
#define ETSB_MR 4
#define ETSB_NV 2
#include "gemm_f32_body.inc"
}  // namespace gemm_portable
#else
}  // namespace kernels
}  // namespace etsb
#include <immintrin.h>
namespace etsb {
namespace kernels {

#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace gemm_avx2 {
/// Lanes [0, n) on, the rest off: the mask of a partial vector.
inline __m256i lanes_below(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
#define ETSB_VEC __m256
#define ETSB_W 8
#define ETSB_LOAD(p) _mm256_loadu_ps(p)
#define ETSB_STORE(p, v) _mm256_storeu_ps((p), (v))
#define ETSB_LOADN(p, n) _mm256_maskload_ps((p), lanes_below(n))
#define ETSB_STOREN(p, v, n) _mm256_maskstore_ps((p), lanes_below(n), (v))
#define ETSB_SET1(x) _mm256_set1_ps(x)
#define ETSB_ZERO() _mm256_setzero_ps()
#define ETSB_FMA(a, b, c) _mm256_fmadd_ps((a), (b), (c))
#define ETSB_MR 6
#define ETSB_NV 2
#include "gemm_f32_body.inc"
}  // namespace gemm_avx2
#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f")
namespace gemm_avx512 {
#define ETSB_VEC __m512
#define ETSB_W 16
#define ETSB_LOAD(p) _mm512_loadu_ps(p)
#define ETSB_STORE(p, v) _mm512_storeu_ps((p), (v))
#define ETSB_LOADN(p, n) _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (n)) - 1), (p))
#define ETSB_STOREN(p, v, n) _mm512_mask_storeu_ps((p), static_cast<__mmask16>((1u << (n)) - 1), (v))
#define ETSB_SET1(x) _mm512_set1_ps(x)
#define ETSB_ZERO() _mm512_setzero_ps()
#define ETSB_FMA(a, b, c) _mm512_fmadd_ps((a), (b), (c))
// 8 rows, not the 12 the registers would hold: the CNNs' channel counts are
// multiples of 8 (16, 40, 64, 1280), which 12 leaves a 4-row tail of half the
// speed (bench_conv: 0.85-0.96x the time on ResNet's and MobileNet-v2's 1x1s).
#define ETSB_MR 8
#define ETSB_NV 2
#define ETSB_GEMM_TAPS 1
#include "gemm_f32_body.inc"
#undef ETSB_GEMM_TAPS
}  // namespace gemm_avx512
#pragma GCC pop_options

namespace gemm_baseline {
constexpr int64_t kMR = 1;
constexpr int64_t kNR = 8;
/// gemm's contract in plain loops, for an x86 CPU without AVX2 + FMA (made
/// before 2013, or a small core): C's row i gathers A's row times B's rows
/// in order of k, a loop along the row that GCC vectorises for SSE2. Its
/// own register-tiled build would be another 5 KB in every x86 binary with
/// a matrix product, for CPUs few deployments still have.
inline void gemm(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col, const float* b,
                 int64_t ldb, float* c, int64_t ldc, bool accumulate, const float* row_init) {
  for (int64_t i = 0; i < m; ++i) {
    float* __restrict ci = c + i * ldc;
    if (!accumulate) {
      const float init = row_init != nullptr ? row_init[i] : 0.0f;
      for (int64_t j = 0; j < n; ++j) ci[j] = init;
    }
    for (int64_t p = 0; p < k; ++p) {
      const float aip = a[i * a_row + p * a_col];
      const float* __restrict bp = b + p * ldb;
      for (int64_t j = 0; j < n; ++j) ci[j] += aip * bp[j];
    }
  }
}
}  // namespace gemm_baseline
#endif

// Multiply-adds below which a block is not worth a thread (~1 us of work at
// this engine's speed). ExecuTorch's pool hands a piece to a worker that is
// still spinning (busy up to ~10 us before) in 0.2-0.4 us, but to a worker
// asleep in ~28 us on this project's 2-vCPU machine: what pays is small
// pieces, op after op, that keep the workers awake. Measured there on two
// threads (the best of 3000 runs, the machine shared): 147K multiply-adds
// cut in two ran 1.1-1.3x faster, 295K 1.45-1.55x, 590K 1.7x.
constexpr int64_t kGemmTaskWork = int64_t{1} << 16;

/// gemm_f32 with one instruction set's `gemm` (register tiles of MR x NR):
/// on the calling thread when the product is small or the binary has one
/// thread, else cut into blocks of whole tiles along the dimension with more
/// of them (columns of C, or its rows) and run on the thread pool.
template <int64_t MR, int64_t NR, typename Gemm>
inline void gemm_f32_blocks(const Gemm& gemm, int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row,
                            int64_t a_col, const float* b, int64_t ldb, float* c, int64_t ldc, bool accumulate,
                            const float* row_init) {
  const int64_t work = m * n * (k > 0 ? k : 1);
  if (work < 2 * kGemmTaskWork || parallel_threads() <= 1) {
    return gemm(m, n, k, a, a_row, a_col, b, ldb, c, ldc, accumulate, row_init);
  }
  const int64_t col_tiles = (n + NR - 1) / NR;
  const int64_t row_tiles = (m + MR - 1) / MR;
  if (col_tiles >= row_tiles) {
    const int64_t tile_work = m * NR * (k > 0 ? k : 1);
    parallel_range(0, col_tiles, (kGemmTaskWork + tile_work - 1) / tile_work, [&](int64_t t0, int64_t t1) {
      const int64_t j0 = t0 * NR;
      const int64_t j1 = t1 * NR < n ? t1 * NR : n;
      gemm(m, j1 - j0, k, a, a_row, a_col, b + j0, ldb, c + j0, ldc, accumulate, row_init);
    });
  } else {
    const int64_t tile_work = MR * n * (k > 0 ? k : 1);
    parallel_range(0, row_tiles, (kGemmTaskWork + tile_work - 1) / tile_work, [&](int64_t t0, int64_t t1) {
      const int64_t i0 = t0 * MR;
      const int64_t i1 = t1 * MR < m ? t1 * MR : m;
      gemm(i1 - i0, n, k, a + i0 * a_row, a_row, a_col, b, ldb, c + i0 * ldc, ldc, accumulate,
           row_init != nullptr ? row_init + i0 : nullptr);
    });
  }
}

/// C[m x n] = (accumulate ? C : row_init) + A[m x k] * B[k x n] in single
/// precision, where row_init is row_init[i] along C's row i (zero when it
/// is null: a convolution's bias, set in the registers that sum the row
/// instead of written to C first), on the widest vector unit this CPU has
/// (and on the thread pool when the binary links one: see gemm_f32_blocks).
/// A's element (i, p) is at a[i * a_row + p * a_col]; B and C are row-major
/// with leading dims ldb and ldc; C must not overlap A or B. row_init must
/// be null where ETSB_GEMM_ROW_INIT is 0 (the size configuration).
inline void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t a_row, int64_t a_col, const float* b,
                     int64_t ldb, float* c, int64_t ldc, bool accumulate, const float* row_init = nullptr) {
  if (m <= 0 || n <= 0) return;
#if defined(ETSB_GEMM_X86)
  if (__builtin_cpu_supports("avx512f")) {
    return gemm_f32_blocks<gemm_avx512::kMR, gemm_avx512::kNR>(gemm_avx512::gemm, m, n, k, a, a_row, a_col, b, ldb,
                                                               c, ldc, accumulate, row_init);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return gemm_f32_blocks<gemm_avx2::kMR, gemm_avx2::kNR>(gemm_avx2::gemm, m, n, k, a, a_row, a_col, b, ldb, c,
                                                           ldc, accumulate, row_init);
  }
  gemm_f32_blocks<gemm_baseline::kMR, gemm_baseline::kNR>(gemm_baseline::gemm, m, n, k, a, a_row, a_col, b, ldb, c,
                                                          ldc, accumulate, row_init);
#else
  gemm_f32_blocks<gemm_portable::kMR, gemm_portable::kNR>(gemm_portable::gemm, m, n, k, a, a_row, a_col, b, ldb, c,
                                                          ldc, accumulate, row_init);
#endif
}

/// The output row lengths gemm_taps_f32 takes must be multiples of this: 16
/// where it runs (x86-64 with AVX-512, not the size configuration), 0 where
/// it does not (convolutions take im2col there).
inline int64_t gemm_taps_width() {
#if defined(ETSB_GEMM_X86)
  return __builtin_cpu_supports("avx512f") ? 16 : 0;
#else
  return 0;
#endif
}

/// A convolution's product without im2col, where gemm_taps_width() > 0: C's
/// columns [j0, j1) = row_init + A[m x k] * B, B's element (p, j) at
/// base[off[p] + (j / row_cols) * row_step + j % row_cols] (row_cols and
/// j0, j1 multiples of gemm_taps_width()); see gemm_avx512::gemm_taps.
inline void gemm_taps_f32(int64_t m, int64_t j0, int64_t j1, int64_t k, const float* a, int64_t lda,
                          const float* base, const int64_t* off, int64_t row_cols, int64_t row_step, float* c,
                          int64_t ldc, const float* row_init) {
#if defined(ETSB_GEMM_X86)
  gemm_avx512::gemm_taps(m, j0, j1, k, a, lda, base, off, row_cols, row_step, c, ldc, row_init);
#else  // never called here: gemm_taps_width() is 0, and conv2d_taps_runs false
  (void)m, (void)j0, (void)j1, (void)k, (void)a, (void)lda, (void)base, (void)off, (void)row_cols, (void)row_step;
  (void)c, (void)ldc, (void)row_init;
  __builtin_trap();
#endif
}

}  // namespace kernels
}  // namespace etsb
