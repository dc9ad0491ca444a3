// Transposes of the two innermost dims of a strided box (copy_util.h's
// copy_walk takes them when those dims swap unit strides: permute_copy of a
// linear layer's weight, a change of dim order): square tiles of any width,
// 4-byte words through 16-byte vectors where there are some, and the
// transposes of a box cut by strips of rows on the thread pool.
#pragma once

#include "parallel_util.h"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace etsb {
namespace kernels {

/// The side of transpose_tiles' square tiles, and the rows of a strip
/// (transpose_strips cuts between strips).
constexpr int64_t kTransposeTile = 8;

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__)) && !defined(ETSB_KERNELS_ONE_PATH)
/// 4-byte words moved through 16-byte vectors (SSE2 and NEON: every such
/// CPU's baseline), in transpose_words_4x4.
#define ETSB_TRANSPOSE_VECTORS 1
typedef uint32_t TransposeWords __attribute__((vector_size(16)));

/// dst[r * rs + c] = src[r + c * cs] for rows and cols below 4, 4-byte
/// words: four vector loads, two rounds of interleaving, four vector stores.
inline void transpose_words_4x4(const uint32_t* src, int64_t cs, uint32_t* dst, int64_t rs) {
  TransposeWords a, b, c, d;
  std::memcpy(&a, src, 16);
  std::memcpy(&b, src + cs, 16);
  std::memcpy(&c, src + 2 * cs, 16);
  std::memcpy(&d, src + 3 * cs, 16);
  const TransposeWords ab_lo = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  const TransposeWords ab_hi = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const TransposeWords cd_lo = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  const TransposeWords cd_hi = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  const TransposeWords r0 = __builtin_shufflevector(ab_lo, cd_lo, 0, 1, 4, 5);
  const TransposeWords r1 = __builtin_shufflevector(ab_lo, cd_lo, 2, 3, 6, 7);
  const TransposeWords r2 = __builtin_shufflevector(ab_hi, cd_hi, 0, 1, 4, 5);
  const TransposeWords r3 = __builtin_shufflevector(ab_hi, cd_hi, 2, 3, 6, 7);
  std::memcpy(dst, &r0, 16);
  std::memcpy(dst + rs, &r1, 16);
  std::memcpy(dst + 2 * rs, &r2, 16);
  std::memcpy(dst + 3 * rs, &r3, 16);
}

/// dst[r * rs + c] = src[r + c * cs] over rows [r0, r1) and columns
/// [c0, c1), one word at a time: what transpose_words' blocks leave over.
__attribute__((noinline)) inline void transpose_words_plain(const uint32_t* src, int64_t cs, uint32_t* dst,
                                                            int64_t rs, int64_t r0, int64_t r1, int64_t c0,
                                                            int64_t c1) {
  for (int64_t r = r0; r < r1; ++r) {
    for (int64_t c = c0; c < c1; ++c) dst[r * rs + c] = src[r + c * cs];
  }
}

/// transpose_tiles of 4-byte words in tiles of kTransposeTile rows by 64
/// columns, 4x4 blocks at a time: a classifier's 1000 x 1280 weight, out
/// of cache, in ~0.7 ms instead of ~1.4 ms of 8x8 scalar tiles (the rows
/// of a tile read whole lines of src, its columns a long run of each dst row).
/// That is the memory's speed: in MobileNet-v2 at 224 px it took 0.58-0.61
/// ms a run, a memcpy of the same 5 MB out of cache 0.55 ms; 8x8 AVX2 blocks
/// (0.18 ms against 0.31 in cache) and non-temporal stores gained nothing there.
/// Out of line: one copy for the kernels that move words this way
/// (permute_copy, the channels-last depthwise convolution's three moves),
/// which the linker keeps once.
__attribute__((noinline)) inline void transpose_words(const uint32_t* src, int64_t cs, uint32_t* dst, int64_t rs,
                                                      int64_t rows, int64_t cols) {
  constexpr int64_t kCols = 64;
  for (int64_t r0 = 0; r0 < rows; r0 += kTransposeTile) {
    const int64_t r1 = r0 + kTransposeTile < rows ? r0 + kTransposeTile : rows;
    const int64_t rv = r0 + ((r1 - r0) & ~int64_t{3});  // the rows of whole blocks
    for (int64_t c0 = 0; c0 < cols; c0 += kCols) {
      const int64_t c1 = c0 + kCols < cols ? c0 + kCols : cols;
      const int64_t cv = c0 + ((c1 - c0) & ~int64_t{3});
      for (int64_t r = r0; r < rv; r += 4) {
        for (int64_t c = c0; c < cv; c += 4) transpose_words_4x4(src + r + c * cs, cs, dst + r * rs + c, rs);
      }
      transpose_words_plain(src, cs, dst, rs, r0, rv, cv, c1);  // the columns left over
      transpose_words_plain(src, cs, dst, rs, rv, r1, c0, c1);  // the rows left over
    }
  }
}
#endif

/// dst[r * rs + c] = src[r + c * cs] for r < rows, c < cols: a 2-D
/// transpose in square tiles of kTransposeTile, so that both sides stay
/// within a few cache lines while a tile moves (4-byte words of one type
/// through vectors where there are some: transpose_words).
template <typename In, typename Out>
inline void transpose_tiles(const In* src, int64_t cs, Out* dst, int64_t rs, int64_t rows, int64_t cols) {
#if defined(ETSB_TRANSPOSE_VECTORS)
  if constexpr (std::is_same<In, Out>::value && std::is_same<In, uint32_t>::value) {
    return transpose_words(src, cs, dst, rs, rows, cols);
  }
#endif
  constexpr int64_t kTile = kTransposeTile;
  for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
    const int64_t r1 = r0 + kTile < rows ? r0 + kTile : rows;
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t c1 = c0 + kTile < cols ? c0 + kTile : cols;
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t c = c0; c < c1; ++c) dst[r * rs + c] = static_cast<Out>(src[r + c * cs]);
      }
    }
  }
}

/// The transposes of a box (`p`, copy_util.h's CopyPlan) whose two
/// innermost dims swap unit strides, one for each index of the dims outside
/// them (`count` of them), cut by strips of kTransposeTile rows on the
/// thread pool (parallel_range, pieces of ~kElementwiseTaskWork elements):
/// each element is moved alone, so the cut changes nothing but the time.
template <typename T, typename Plan>
inline void transpose_strips(const T* src, T* dst, const Plan& p, int64_t count) {
  const size_t outer = p.ndim - 2;
  const int64_t rows = p.sizes[outer], cols = p.sizes[outer + 1];
  const int64_t cs = p.src[outer + 1], rs = p.dst[outer];
  const int64_t strips = (rows + kTransposeTile - 1) / kTransposeTile;
  const int64_t strip_work = kTransposeTile * cols;
  parallel_range(0, count * strips, (kElementwiseTaskWork + strip_work - 1) / strip_work,
                 [&](int64_t u0, int64_t u1) {
                   while (u0 < u1) {
                     const int64_t batch = u0 / strips, first = u0 % strips;
                     const int64_t last = first + (u1 - u0) < strips ? first + (u1 - u0) : strips;
                     int64_t so = 0, dof = 0, rest = batch;  // the batch's offsets on each side
                     for (size_t d = outer; d-- > 0;) {
                       const int64_t i = rest % p.sizes[d];
                       rest /= p.sizes[d];
                       so += i * p.src[d];
                       dof += i * p.dst[d];
                     }
                     const int64_t r0 = first * kTransposeTile;
                     const int64_t r1 = last * kTransposeTile < rows ? last * kTransposeTile : rows;
                     transpose_tiles(src + so + r0, cs, dst + dof + r0 * rs, rs, r1 - r0, cols);
                     u0 += last - first;
                   }
                 });
}

}  // namespace kernels
}  // namespace etsb
