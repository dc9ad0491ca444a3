// Integer results of mixed-dtype calls at the result dtype's width.
//
// The mixed-dtype paths compute integers in int64_t (with_compute_type),
// while ATen computes in the result dtype, so its results wrap at that
// dtype's width: Char 100 * Char 100 is 16, even when out is Long. Wrapping
// the int64_t result to the width reproduces that, since +, - and * commute
// with truncation modulo 2^bits. A value computation, not a dtype switch:
// nothing here is instantiated per dtype.
#pragma once

#include "kernel_util.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// The width of an operator's result dtype, to wrap int64_t results to it.
struct ResultWidth {
  int bits = 64;
  bool is_unsigned = false;

  /// x as the result dtype would hold it (sign-extended back to int64_t);
  /// floating and Bool compute types are returned unchanged.
  template <typename CT>
  CT wrap(CT x) const {
    if constexpr (std::is_same<CT, int64_t>::value) {
      if (bits >= 64) return x;
      const uint64_t mask = (uint64_t{1} << bits) - 1;
      uint64_t v = static_cast<uint64_t>(x) & mask;
      if (!is_unsigned && (v >> (bits - 1)) != 0) v |= ~mask;
      return static_cast<int64_t>(v);
    } else {
      return x;
    }
  }
};

/// The ResultWidth of `result`: its bit width for integral dtypes (Byte, the
/// one unsigned dtype the kernels take, unsigned), 64 (no wrapping) otherwise.
inline ResultWidth result_width(ScalarType result) {
  ResultWidth w;
  if (is_integral_no_bool(result)) {
    w.bits = 8 * static_cast<int>(::executorch::runtime::elementSize(result));
    w.is_unsigned = result == ScalarType::Byte;
  }
  return w;
}

}  // namespace kernels
}  // namespace etsb
