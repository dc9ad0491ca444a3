// aten::addmm.out: out = beta * self + alpha * (mat1 @ mat2).
#include "util/matmul_util.h"
#include "util/widened_io.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// out[i][j] = beta * self[i][j] (self broadcast to m x n by element strides
/// row_step, col_step; beta == 0 ignores self entirely, NaNs included, as
/// ATen does).
template <typename T>
void init_with_bias(T* out, const T* self, int64_t m, int64_t n, int64_t row_step, int64_t col_step, T beta,
                    bool ignore_self) {
  for (int64_t i = 0; i < m; ++i) {
    T* row = out + i * n;
    const T* src = self + i * row_step;
    if (ignore_self) {
      for (int64_t j = 0; j < n; ++j) row[j] = 0;
    } else if (col_step == 0) {
      const T v = k::wrapping_mul(beta, src[0]);
      for (int64_t j = 0; j < n; ++j) row[j] = v;
    } else if (beta == static_cast<T>(1)) {
      for (int64_t j = 0; j < n; ++j) row[j] = src[j];
    } else {
      for (int64_t j = 0; j < n; ++j) row[j] = k::wrapping_mul(beta, src[j]);
    }
  }
}

/// out[i][j] = beta * self[i][j] + alpha * sum over p of mat1[i][p] *
/// mat2[p][j], summed in Acc and narrowed once (self broadcast as in
/// init_with_bias; ignore_self: beta == 0). The path of the integers
/// (wrapping, in uint64_t) and of Half and BFloat16 (in float), one build
/// per Acc for all of them (widened_io.h): the i-k-j loops of the Float and
/// Double paths would cost a build per dtype.
template <typename Acc>
__attribute__((noinline)) void addmm_widened(const k::WidenedIo<Acc>& io, const void* self, const void* a,
                                             const void* b, void* out, int64_t m, int64_t n, int64_t kk,
                                             int64_t row_step, int64_t col_step, Acc beta, Acc alpha,
                                             bool ignore_self) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc sum = Acc(0);
      for (int64_t p = 0; p < kk; ++p) sum += io.load(a, i * kk + p) * io.load(b, p * n + j);
      const Acc base = ignore_self ? Acc(0) : beta * io.load(self, i * row_step + j * col_step);
      io.store(out, i * n + j, base + alpha * sum);
    }
  }
}

}  // namespace

/// out = beta * self + alpha * (mat1 @ mat2) for 2-D mat1 [m, k] and mat2
/// [k, n], with self broadcastable to [m, n] (typically a bias of [n]). Real,
/// Half and BFloat16 (accumulated in float) dtypes, all four tensors alike
/// and contiguous; beta and alpha are converted to that dtype (floating ones
/// truncated for integers, as ExecuTorch's portable kernel does). out is
/// resized to [m, n]. Float runs gemm_f32, Double the portable i-k-j loops
/// (matmul_util.h), the others one shared loop per sum type (addmm_widened).
Tensor& addmm_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                  const Scalar& beta, const Scalar& alpha, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, mat1.dim() == 2 && mat2.dim() == 2 && mat1.sizes()[1] == mat2.sizes()[0],
                      InvalidArgument, out, "addmm.out: mat1 and mat2 must be [m, k] and [k, n]");
  const auto dtype = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx,
                      self.scalar_type() == dtype && mat1.scalar_type() == dtype && mat2.scalar_type() == dtype,
                      InvalidArgument, out, "addmm.out: all tensors must share one dtype");
  const int64_t m = mat1.sizes()[0];
  const int64_t kk = mat1.sizes()[1];
  const int64_t n = mat2.sizes()[1];
  // self broadcasts to [m, n]: each of its (right-aligned) dims is 1 or full.
  const auto ss = self.sizes();
  const int64_t self_rows = self.dim() == 2 ? ss[0] : 1;
  const int64_t self_cols = self.dim() >= 1 ? ss[self.dim() - 1] : 1;
  ET_KERNEL_CHECK_MSG(ctx,
                      self.dim() <= 2 && (self_rows == 1 || self_rows == m) && (self_cols == 1 || self_cols == n),
                      InvalidArgument, out, "addmm.out: self does not broadcast to [m, n]");
  ET_KERNEL_CHECK(ctx,
                  k::is_contiguous(self) && k::is_contiguous(mat1) && k::is_contiguous(mat2) &&
                      k::is_contiguous(out),
                  InvalidArgument, out);
  const ::executorch::aten::SizesType sizes[2] = {static_cast<::executorch::aten::SizesType>(m),
                                                  static_cast<::executorch::aten::SizesType>(n)};
  ET_KERNEL_CHECK(ctx, k::resize_to(out, {sizes, 2}), InvalidArgument, out);
  if (m == 0 || n == 0) return out;
  const int64_t row_step = (self_rows == m && m != 1) ? self_cols : 0;
  const int64_t col_step = (self_cols == n && n != 1) ? 1 : 0;

  ET_SWITCH_REALHBF16_TYPES(dtype, ctx, "addmm.out", CTYPE, [&]() {
    if constexpr (std::is_floating_point<CTYPE>::value) {
      const CTYPE b = k::scalar_to<CTYPE>(beta);
      const CTYPE a = k::scalar_to<CTYPE>(alpha);
      CTYPE* c = out.mutable_data_ptr<CTYPE>();
      init_with_bias(c, self.const_data_ptr<CTYPE>(), m, n, row_step, col_step, b, b == static_cast<CTYPE>(0));
      if (a == static_cast<CTYPE>(1)) {
        k::gemm_accumulate(m, n, kk, mat1.const_data_ptr<CTYPE>(), kk, mat2.const_data_ptr<CTYPE>(), n, c, n);
      } else if (a != static_cast<CTYPE>(0)) {
        k::gemm_accumulate_scaled(m, n, kk, a, mat1.const_data_ptr<CTYPE>(), kk, mat2.const_data_ptr<CTYPE>(), n,
                                  c, n);
      }
    } else {
      // Integers: beta and alpha as the dtype (floating ones truncated), then wrapping; Half and
      // BFloat16: each element accumulated in float, bias folded in, rounded once.
      using Acc = k::widened_t<CTYPE>;
      using Factor = typename std::conditional<std::is_integral<CTYPE>::value, CTYPE, float>::type;
      const Factor b = k::scalar_to<Factor>(beta);
      const Factor a = k::scalar_to<Factor>(alpha);
      addmm_widened<Acc>(k::widened_io<CTYPE>(), self.const_data_ptr<CTYPE>(), mat1.const_data_ptr<CTYPE>(),
                         mat2.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), m, n, kk, row_step, col_step,
                         k::acc_of<Acc>(b), k::acc_of<Acc>(a), b == static_cast<Factor>(0));
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
