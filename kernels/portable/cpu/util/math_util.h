// Scalar math shared by several kernels, with ATen's semantics where C++'s
// differ: NaN-propagating minimum and maximum, integer powers, remainders.
#pragma once

#include "kernel_util.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace etsb {
namespace kernels {

/// Whether x is NaN (false for integral types; Half and BFloat16 included).
template <typename T>
inline bool is_nan(T x) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::isnan(x);
  } else if constexpr (std::is_same<T, ::executorch::aten::Half>::value ||
                       std::is_same<T, ::executorch::aten::BFloat16>::value) {
    return std::isnan(static_cast<float>(x));
  } else {
    (void)x;
    return false;
  }
}

/// The smallest value of T: -infinity where T has one (floating types,
/// Half and BFloat16 included), else its lowest value.
template <typename T>
inline T lowest_value() {
  if constexpr (std::is_same<T, ::executorch::aten::Half>::value ||
                std::is_same<T, ::executorch::aten::BFloat16>::value) {
    return static_cast<T>(-std::numeric_limits<float>::infinity());
  } else if constexpr (std::numeric_limits<T>::has_infinity) {
    return -std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

/// The largest value of T: +infinity where T has one (floating types,
/// Half and BFloat16 included), else its highest value.
template <typename T>
inline T highest_value() {
  if constexpr (std::is_same<T, ::executorch::aten::Half>::value ||
                std::is_same<T, ::executorch::aten::BFloat16>::value) {
    return static_cast<T>(std::numeric_limits<float>::infinity());
  } else if constexpr (std::numeric_limits<T>::has_infinity) {
    return std::numeric_limits<T>::infinity();
  } else {
    return std::numeric_limits<T>::max();
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

/// x / y rounded toward zero ("trunc"): for integers C's division (callers
/// reject a zero divisor; dividing the most negative value by -1 wraps), for
/// floating types trunc of the true quotient.
template <typename T>
inline T divide_trunc(T x, T y) {
  if constexpr (std::is_floating_point<T>::value) {
    return std::trunc(x / y);
  } else if constexpr (std::is_same<T, bool>::value) {
    return x;
  } else {
    return y == static_cast<T>(-1) ? wrapping_sub(T(0), x) : static_cast<T>(x / y);
  }
}

/// x / y rounded toward negative infinity ("floor"), as ATen computes it:
/// for floating types from fmod, so that the result is exact where the true
/// quotient is an integer (and inf or NaN for a zero divisor); for integers
/// the truncated quotient, one less where the signs differ and it was inexact.
template <typename T>
inline T divide_floor(T x, T y) {
  if constexpr (std::is_floating_point<T>::value) {
    if (y == 0) return x / y;
    const T mod = std::fmod(x, y);
    T div = (x - mod) / y;
    if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), x / y);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += 1;
    return floor_div;
  } else if constexpr (std::is_same<T, bool>::value) {
    return x;
  } else {
    if (y == static_cast<T>(-1)) return wrapping_sub(T(0), x);
    const T q = static_cast<T>(x / y);
    return (x % y != 0 && ((x < 0) != (y < 0))) ? static_cast<T>(q - 1) : q;
  }
}

/// x mod y with the sign of y (Python's %, ATen's remainder): the truncating
/// remainder, plus y where it is non-zero and its sign differs from y's
/// (callers reject a zero integer divisor; -1 is handled, where % overflows).
template <typename T>
inline T remainder_floor(T x, T y) {
  if constexpr (std::is_same<T, bool>::value) {
    (void)y;
    return x;
  } else {
    T r = remainder_trunc(x, y);
    if (r != T(0) && ((r < T(0)) != (y < T(0)))) r = static_cast<T>(r + y);
    return r;
  }
}

/// x << y as ATen shifts: through the unsigned type (no signed overflow), and
/// 0 for a negative count or one of x's width or more. Bool shifts as int.
template <typename T>
inline T shift_left(T x, T y) {
  if constexpr (std::is_same<T, bool>::value) {
    (void)y;
    return x;  // 1 << 0 and 1 << 1 are both non-zero
  } else if constexpr (std::is_integral<T>::value) {
    constexpr int64_t width = static_cast<int64_t>(sizeof(T)) * 8;
    const int64_t count = static_cast<int64_t>(y);
    if (count < 0 || count >= width) return T(0);
    using U = typename std::make_unsigned<T>::type;
    return static_cast<T>(static_cast<U>(static_cast<U>(x) << count));
  } else {
    (void)y;
    return x;  // floating types are rejected before any call
  }
}

/// x >> y as ATen shifts: arithmetic for signed types; a negative count or
/// one past the value bits gives the sign fill (0 or -1). Bool shifts as int.
template <typename T>
inline T shift_right(T x, T y) {
  if constexpr (std::is_same<T, bool>::value) {
    return x && !y;
  } else if constexpr (std::is_integral<T>::value) {
    constexpr int64_t value_bits = static_cast<int64_t>(sizeof(T)) * 8 - (std::is_signed<T>::value ? 1 : 0);
    const int64_t count = static_cast<int64_t>(y);
    if (count < 0 || count >= value_bits) return static_cast<T>(x >> value_bits);
    return static_cast<T>(x >> count);
  } else {
    (void)y;
    return x;  // floating types are rejected before any call
  }
}

}  // namespace kernels
}  // namespace etsb
