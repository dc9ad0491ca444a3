// Softmax and log-softmax along one dim, shared by _softmax and _log_softmax.
#pragma once

#include "fast_math.h"
#include "kernel_util.h"

#include <cmath>
#include <type_traits>

namespace etsb {
namespace kernels {

/// Softmax (or, with Log, log-softmax) of `n` contiguous values of T, in CT
/// (float for Half and BFloat16): the maximum and the sum kept in eight
/// partial values and every pass unrolled by eight, so that the compiler
/// vectorises it (fast_exp has no calls or branches). Subtracting the maximum
/// keeps exp() from overflowing; softmax multiplies by the reciprocal of the
/// sum, log-softmax subtracts max + log(sum).
template <bool Log, typename T, typename CT = float_compute_t<T>>
void softmax_contiguous(const T* in, T* out, int64_t n) {
  if constexpr (std::is_same<T, float>::value) {  // the vectorised loops of fast_math.h
    const float max = max_f32(in, n);
    exp_shifted_f32(in, out, n, max);
    const float sum = sum_f32(out, n);
    if (Log) {
      scale_shift_f32(in, out, n, 1.0f, -(max + std::log(sum)));
    } else {
      scale_shift_f32(out, out, n, 1.0f / sum, 0.0f);
    }
    return;
  }
  constexpr int64_t kLanes = 8;
  CT part[kLanes];
  for (int64_t u = 0; u < kLanes; ++u) part[u] = static_cast<CT>(in[0]);
  int64_t j = 0;
  bool nan = false;
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t u = 0; u < kLanes; ++u) {
      const CT v = static_cast<CT>(in[j + u]);
      nan = nan || v != v;
      part[u] = v > part[u] ? v : part[u];
    }
  }
  CT max = part[0];
  for (int64_t u = 1; u < kLanes; ++u) max = part[u] > max ? part[u] : max;
  for (; j < n; ++j) {
    const CT v = static_cast<CT>(in[j]);
    nan = nan || v != v;
    max = v > max ? v : max;
  }
  if (nan) max = std::nan("");
  for (int64_t u = 0; u < kLanes; ++u) part[u] = 0;
  for (j = 0; j + kLanes <= n; j += kLanes) {
    CT e[kLanes];
    for (int64_t u = 0; u < kLanes; ++u) e[u] = fast_exp(static_cast<CT>(in[j + u]) - max);
    for (int64_t u = 0; u < kLanes; ++u) part[u] += e[u];
    if (!Log) {
      for (int64_t u = 0; u < kLanes; ++u) out[j + u] = static_cast<T>(e[u]);
    }
  }
  CT sum = 0;
  for (int64_t u = 0; u < kLanes; ++u) sum += part[u];
  for (; j < n; ++j) {
    const CT e = fast_exp(static_cast<CT>(in[j]) - max);
    sum += e;
    if (!Log) out[j] = static_cast<T>(e);
  }
  if (Log) {
    const CT shift = max + std::log(sum);
    for (j = 0; j < n; ++j) out[j] = static_cast<T>(static_cast<CT>(in[j]) - shift);
    return;
  }
  const CT scale = static_cast<CT>(1) / sum;
  if constexpr (std::is_same<T, CT>::value) {
    for (j = 0; j < n; ++j) out[j] *= scale;
  } else {  // reduced precision: recompute rather than round the exponentials twice
    for (j = 0; j < n; ++j) out[j] = static_cast<T>(fast_exp(static_cast<CT>(in[j]) - max) * scale);
  }
}

/// As softmax_contiguous for `n` values spaced `stride` apart (a softmax
/// over a dim that is not the last).
template <bool Log, typename T, typename CT = float_compute_t<T>>
void softmax_row(const T* in, T* out, int64_t n, int64_t stride) {
  CT max = static_cast<CT>(in[0]);
  for (int64_t j = 1; j < n; ++j) {
    const CT v = static_cast<CT>(in[j * stride]);
    max = (v > max || std::isnan(v)) ? v : max;
  }
  CT sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += fast_exp(static_cast<CT>(in[j * stride]) - max);
  if (Log) {
    const CT shift = max + std::log(sum);
    for (int64_t j = 0; j < n; ++j) out[j * stride] = static_cast<T>(static_cast<CT>(in[j * stride]) - shift);
    return;
  }
  const CT scale = static_cast<CT>(1) / sum;
  for (int64_t j = 0; j < n; ++j) {
    out[j * stride] = static_cast<T>(fast_exp(static_cast<CT>(in[j * stride]) - max) * scale);
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
      if (inner == 1) {
        softmax_contiguous<Log>(in + o * n, result + o * n, n);
        continue;
      }
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
