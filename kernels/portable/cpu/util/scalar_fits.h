// Whether a Scalar argument (a fill value, a clamp bound, an alpha, a slope)
// can be converted to the dtype it is used in without overflow. ATen and
// ExecuTorch refuse such a call instead of computing with a wrapped or
// infinite value; the kernels that take Scalars share this one rule.
#pragma once

#include "kernel_util.h"

#include <cmath>
#include <limits>

namespace etsb {
namespace kernels {

/// How a negative integer Scalar meets an unsigned dtype (Byte).
enum class NegativeToUnsigned {
  /// Refused: the value itself must be representable (clamp bounds, alpha).
  kRefused,
  /// Accepted down to -max, stored modulo 2^bits as ATen's checked
  /// conversion does (fill values, hardtanh bounds): -1 into Byte is 255.
  kWraps,
};

namespace detail {

/// The finite range of a numeric dtype, as doubles (every bound is exactly
/// representable, so comparing an int64_t converted to double is exact).
struct DtypeRange {
  double lowest;
  double highest;
  bool integral;
};

/// The range of `t`; false for dtypes without a finite numeric range (Bool
/// takes any value as true/false; complex and others are not bounded here).
/// A plain switch rather than ET_SWITCH: it reads constants and instantiates
/// no per-dtype code, so there is nothing for a dtype-selective build to drop.
inline bool dtype_range(ScalarType t, DtypeRange* range) {
  switch (t) {
    case ScalarType::Byte: *range = {0.0, 255.0, true}; return true;
    case ScalarType::Char: *range = {-128.0, 127.0, true}; return true;
    case ScalarType::Short: *range = {-32768.0, 32767.0, true}; return true;
    case ScalarType::Int: *range = {-2147483648.0, 2147483647.0, true}; return true;
    case ScalarType::Long: *range = {-0x1p63, 0x1p63, true}; return true;  // INT64_MAX rounds up to 2^63
    case ScalarType::Half: *range = {-65504.0, 65504.0, false}; return true;
    case ScalarType::BFloat16: *range = {-0x1.fep127, 0x1.fep127, false}; return true;
    case ScalarType::Float:
      *range = {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), false};
      return true;
    case ScalarType::Double:
      *range = {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false};
      return true;
    default: return false;
  }
}

}  // namespace detail

/// Whether `s` converts to dtype `t` without overflow. Boolean Scalars and
/// Bool (or unbounded) dtypes always fit. A floating Scalar fits a floating
/// dtype when it is infinite, NaN or within the dtype's finite range, and an
/// integral dtype when it is finite and within its range (the fraction is
/// dropped). An integral Scalar fits when within the range, except that
/// `negative` may let negatives wrap into an unsigned dtype.
inline bool scalar_fits(const Scalar& s, ScalarType t,
                        NegativeToUnsigned negative = NegativeToUnsigned::kRefused) {
  detail::DtypeRange range;
  if (s.isBoolean() || !detail::dtype_range(t, &range)) return true;
  if (s.isFloatingPoint()) {
    const double d = s.to<double>();
    if (!std::isfinite(d)) return !range.integral;
    return d >= range.lowest && d <= range.highest;
  }
  const double v = static_cast<double>(s.to<int64_t>());
  const bool wraps = negative == NegativeToUnsigned::kWraps && range.integral && range.lowest == 0.0;
  return v >= (wraps ? -range.highest : range.lowest) && v <= range.highest;
}

/// The dtype an arithmetic kernel with result dtype `result` converts its
/// Scalar operands to (the dtype scalar_fits checks them against): Float for
/// Half and BFloat16, which compute in float, the result itself otherwise.
inline ScalarType scalar_compute_dtype(ScalarType result) {
  return result == ScalarType::Half || result == ScalarType::BFloat16 ? ScalarType::Float : result;
}

}  // namespace kernels
}  // namespace etsb
