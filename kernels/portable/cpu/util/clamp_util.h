// Clamping into [low, high] (clamp, hardtanh), shared by the operators that
// take their bounds as Scalars.
#pragma once

#include "fast_math.h"
#include "math_util.h"
#include "unary_util.h"

#include <cmath>
#include <type_traits>

namespace etsb {
namespace kernels {

/// x clamped into [low, high] as ATen's clamp does: min(max(x, low), high),
/// so high wins when low > high; a NaN in x or in a bound gives NaN.
template <typename T>
inline T clamp_value(T x, bool has_low, T low, bool has_high, T high) {
  if ((has_low && is_nan(low)) || (has_high && is_nan(high))) return has_low && is_nan(low) ? low : high;
  if (has_low && x < low) x = low;
  if (has_high && x > high) x = high;
  return x;
}

/// out = self clamped into the optional Scalar bounds, in `result` (see
/// map_scalar_op_out for dtypes and paths). `Name` is the switch name.
template <const char* Name>
inline Tensor& clamp_scalars_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar* low,
                                 const Scalar* high, ScalarType result, Tensor& out) {
  return map_scalar_op_out<Name>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const bool has_low = low != nullptr;
    const bool has_high = high != nullptr;
    const CT lo = has_low ? scalar_to<CT>(*low) : CT(0);
    const CT hi = has_high ? scalar_to<CT>(*high) : CT(0);
    return [=](CT x) { return clamp_value(x, has_low, lo, has_high, hi); };
  }, [&](const float* in, float* dst, int64_t n) {
    const float lo = low != nullptr ? scalar_to<float>(*low) : 0.0f;
    const float hi = high != nullptr ? scalar_to<float>(*high) : 0.0f;
    if (is_nan(lo) || is_nan(hi)) return false;  // the general loop's NaN rule
    clamp_f32(in, dst, n, low != nullptr, lo, high != nullptr, hi);
    return true;
  });
}

}  // namespace kernels
}  // namespace etsb
