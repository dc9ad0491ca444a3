// Softmax and log-softmax along one dim, shared by _softmax and _log_softmax.
#pragma once

#include "kernel_util.h"

#include <cmath>
#include <type_traits>

namespace etsb {
namespace kernels {

/// Softmax (or, with Log, log-softmax) of `n` values spaced `stride` apart,
/// written with the same spacing. Subtracting the maximum keeps exp() from
/// overflowing; softmax multiplies by the reciprocal of the sum (one division
/// per row, like ATen), log-softmax subtracts max + log(sum).
/// Values are stored as T and computed in CT (float for Half and BFloat16).
template <bool Log, typename T, typename CT = float_compute_t<T>>
void softmax_row(const T* in, T* out, int64_t n, int64_t stride) {
  CT max = static_cast<CT>(in[0]);
  for (int64_t j = 1; j < n; ++j) {
    const CT v = static_cast<CT>(in[j * stride]);
    max = (v > max || std::isnan(v)) ? v : max;
  }
  CT sum = 0;
  if (Log) {
    for (int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<CT>(in[j * stride]) - max);
    const CT shift = max + std::log(sum);
    for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(static_cast<CT>(in[j * stride]) - shift);
    return;
  }
  if constexpr (std::is_same<T, CT>::value) {  // the exponentials kept in out, scaled in place
    for (int64_t j = 0; j < n; ++j) {
      const CT e = std::exp(in[j * stride] - max);
      out[j * stride] = e;
      sum += e;
    }
    const CT scale = static_cast<CT>(1) / sum;
    for (int64_t j = 0; j < n; ++j) out[j * stride] *= scale;
  } else {  // reduced precision: recompute rather than round the exponentials twice
    for (int64_t j = 0; j < n; ++j) sum += std::exp(static_cast<CT>(in[j * stride]) - max);
    const CT scale = static_cast<CT>(1) / sum;
    for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(std::exp(static_cast<CT>(in[j * stride]) - max) * scale);
  }
}

/// (Log-)softmax of self along `dim` (negative dims count from the end) for
/// Float, Double, Half and BFloat16 (computed in float); out has self's dtype
/// and is resized to its shape.
/// half_to_float (a Half input giving a Float output) is not supported: the
/// call fails if it is set. `Name` is the operator's switch name.
template <bool Log, const char* Name>
Tensor& softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !half_to_float, InvalidArgument, out, "%s: half_to_float is not supported", Name);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", Name);
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range", Name, dim);
  ET_KERNEL_CHECK(ctx, is_contiguous(self) && is_contiguous(out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, resize_to(out, self.sizes()), InvalidArgument, out);
  const auto sizes = self.sizes();
  const size_t rank = sizes.size();
  const int64_t n = rank == 0 ? 1 : sizes[d];
  const int64_t outer = rank == 0 ? 1 : size_product(sizes, 0, d);
  const int64_t inner = rank == 0 ? 1 : size_product(sizes, d + 1, rank);
  if (n == 0 || self.numel() == 0) return out;
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        softmax_row<Log>(in + base, result + base, n, inner);
      }
    }
  });
  return out;
}

}  // namespace kernels
}  // namespace etsb
