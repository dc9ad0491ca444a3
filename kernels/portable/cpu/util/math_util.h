// Scalar math shared by several kernels, with ATen's semantics where C++'s
// differ: NaN-propagating minimum and maximum, integer powers, remainders.
#pragma once

#include "kernel_util.h"

#include <cmath>
#include <type_traits>

namespace etsb {
namespace kernels {

/// Whether x is NaN (false for non-floating types).
template <typename T>
inline bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::isnan(x);
  } else {
    (void)x;
    return false;
  }
}

/// The smaller of x and y; NaN if either is (ATen's minimum).
template <typename T>
inline T nan_minimum(T x, T y) {
  if (is_nan(x)) return x;
  if (is_nan(y)) return y;
  return y < x ? y : x;
}

/// The larger of x and y; NaN if either is (ATen's maximum).
template <typename T>
inline T nan_maximum(T x, T y) {
  if (is_nan(x)) return x;
  if (is_nan(y)) return y;
  return y > x ? y : x;
}

/// base ** exp: std::pow for floating types; for integers, exact
/// exponentiation by squaring with wrap-around, and for a negative exponent
/// what ATen gives (1 for base 1, +-1 for base -1, 0 otherwise).
template <typename T>
inline T power(T base, T exp) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::pow(base, exp);
  } else if constexpr (std::is_same<T, bool>::value) {
    return base || !exp;
  } else {
    if (exp < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exp % 2 == 0) ? T(1) : T(-1);
      return 0;
    }
    T result = 1;
    while (exp != 0) {
      if (exp & 1) result = wrapping_mul(result, base);
      base = wrapping_mul(base, base);
      exp = static_cast<T>(exp >> 1);
    }
    return result;
  }
}

/// fmod(x, y): std::fmod for floating types, the truncating remainder for
/// integers (callers reject a zero divisor; -1 is handled, where % overflows).
template <typename T>
inline T remainder_trunc(T x, T y) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::fmod(x, y);
  } else if constexpr (std::is_same<T, bool>::value) {
    return x;
  } else {
    return y == static_cast<T>(-1) ? T(0) : static_cast<T>(x % y);
  }
}

}  // namespace kernels
}  // namespace etsb
