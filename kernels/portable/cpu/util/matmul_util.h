// Dense matrix products for addmm, bmm, mm and convolution: Float goes to
// gemm_f32.h; other dtypes take the portable loops below.
//
// Loop order i-k-j: for each output row, add a scaled row of B per k. The
// innermost loop then walks B and C contiguously (no strided reads of a
// column, no horizontal sums), and four k steps are fused into one pass over
// the C row so that C is loaded and stored a quarter as often. Rows are
// unrolled by 8 so that -O2 vectorises them (see elementwise_util.h).
#pragma once

#include "complex_util.h"
#include "gemm_f32.h"
#include "kernel_util.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// c[j] += a0 * b0[j] + a1 * b1[j] + a2 * b2[j] + a3 * b3[j] for j < n.
template <typename T>
ET_INLINE void axpy4(T* c, T a0, const T* b0, T a1, const T* b1, T a2, const T* b2, T a3, const T* b3, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    T r[8];
    for (int u = 0; u < 8; ++u) {
      r[u] = wrapping_fma(wrapping_fma(wrapping_fma(wrapping_fma(c[j + u], a0, b0[j + u]), a1, b1[j + u]), a2,
                                       b2[j + u]),
                          a3, b3[j + u]);
    }
    for (int u = 0; u < 8; ++u) c[j + u] = r[u];
  }
  for (; j < n; ++j) {
    c[j] = wrapping_fma(wrapping_fma(wrapping_fma(wrapping_fma(c[j], a0, b0[j]), a1, b1[j]), a2, b2[j]), a3, b3[j]);
  }
}

/// c[j] += a * b[j] for j < n.
template <typename T>
ET_INLINE void axpy(T* c, T a, const T* b, int64_t n) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    T r[8];
    for (int u = 0; u < 8; ++u) r[u] = wrapping_fma(c[j + u], a, b[j + u]);
    for (int u = 0; u < 8; ++u) c[j + u] = r[u];
  }
  for (; j < n; ++j) c[j] = wrapping_fma(c[j], a, b[j]);
}

/// C[m x n] += A[m x k] * B[k x n], all row-major with leading dims lda, ldb,
/// ldc (in elements). C must not overlap A or B.
template <typename T>
inline void gemm_accumulate(
    int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_same<T, float>::value) {
    return gemm_f32(m, n, k, a, lda, 1, b, ldb, c, ldc, /*accumulate=*/true);  // register-blocked, vectorised
  }
  for (int64_t i = 0; i < m; ++i) {
    const T* a_row = a + i * lda;
    T* c_row = c + i * ldc;
    int64_t p = 0;
    for (; p + 4 <= k; p += 4) {
      axpy4(c_row, a_row[p], b + p * ldb, a_row[p + 1], b + (p + 1) * ldb, a_row[p + 2], b + (p + 2) * ldb,
            a_row[p + 3], b + (p + 3) * ldb, n);
    }
    for (; p < k; ++p) axpy(c_row, a_row[p], b + p * ldb, n);
  }
}

/// C += alpha * A * B: as gemm_accumulate, with alpha folded into A's
/// elements as they are read (no extra pass over C).
template <typename T>
inline void gemm_accumulate_scaled(
    int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
    int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    const T* a_row = a + i * lda;
    T* c_row = c + i * ldc;
    for (int64_t p = 0; p < k; ++p) axpy(c_row, wrapping_mul(alpha, a_row[p]), b + p * ldb, n);
  }
}

/// C[m x n] = A[m x k] * B[k x n] for Half and BFloat16 (Acc float) and
/// complex dtypes (Acc their compute type): each element accumulated in Acc
/// and rounded once (as ATen computes them), then passed through
/// `finish(i, j, sum)` (addmm folds its bias in there).
template <typename Acc = float, typename T, typename Finish>
inline void gemm_widened(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
                         int64_t ldc, const Finish& finish) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc sum = Acc(0);
      for (int64_t p = 0; p < k; ++p) sum += static_cast<Acc>(a[i * lda + p]) * static_cast<Acc>(b[p * ldb + j]);
      c[i * ldc + j] = static_cast<T>(finish(i, j, sum));
    }
  }
}

/// out[i] = a[i] @ b[i] for `batch` row-major products of [n x m] by
/// [m x p] matrices stored back to back; a, b and out share one real, Half
/// or BFloat16 dtype (or a complex one, where `Complex`: bmm takes them, mm
/// does not) and are contiguous, and out already has its shape. False with
/// ctx failed (a log naming `Name`, the operator's switch name) otherwise.
template <const char* Name, bool Complex = false>
inline bool batched_matmul(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out,
                           int64_t batch, int64_t n, int64_t m, int64_t p) {
  const ScalarType dtype = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, a.scalar_type() == dtype && b.scalar_type() == dtype, InvalidArgument, false,
                      "%s: all tensors must share one dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(a) && is_contiguous(b) && is_contiguous(out), InvalidArgument, false,
                      "%s: tensors must be contiguous", Name);
  if constexpr (Complex) {  // not compiled at all for the others
    if (is_complex(dtype)) {
      ET_SWITCH_COMPLEXH_TYPES(dtype, ctx, Name, CTYPE, [&]() {
        for (int64_t i = 0; i < batch; ++i) {
          gemm_widened<complex_compute_t<CTYPE>>(
              n, p, m, a.const_data_ptr<CTYPE>() + i * n * m, m, b.const_data_ptr<CTYPE>() + i * m * p, p,
              out.mutable_data_ptr<CTYPE>() + i * n * p, p, [](int64_t, int64_t, auto sum) { return sum; });
        }
      });
      return true;
    }
  }
  if (dtype == ScalarType::Half || dtype == ScalarType::BFloat16) {
    ET_SWITCH_TWO_TYPES(Half, BFloat16, dtype, ctx, Name, CTYPE, [&]() {
      for (int64_t i = 0; i < batch; ++i) {
        gemm_widened(n, p, m, a.const_data_ptr<CTYPE>() + i * n * m, m, b.const_data_ptr<CTYPE>() + i * m * p, p,
                     out.mutable_data_ptr<CTYPE>() + i * n * p, p, [](int64_t, int64_t, float sum) { return sum; });
      }
    });
    return true;
  }
  ET_SWITCH_REAL_TYPES(dtype, ctx, Name, CTYPE, [&]() {
    const CTYPE* pa = a.const_data_ptr<CTYPE>();
    const CTYPE* pb = b.const_data_ptr<CTYPE>();
    CTYPE* pc = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < batch * n * p; ++i) pc[i] = 0;
    for (int64_t i = 0; i < batch; ++i) {
      gemm_accumulate(n, p, m, pa + i * n * m, m, pb + i * m * p, p, pc + i * n * p, p);
    }
  });
  return true;
}

}  // namespace kernels
}  // namespace etsb
