// Dispatch on element width: kernels that only move elements call their body
// with the unsigned word as wide as one element (1, 2, 4 or 8 bytes), and a
// dtype-selective build keeps only the widths of the dtypes selected for the
// operator (copy_util.h's walks use it).
#pragma once

#include "elementwise_util.h"

namespace etsb {
namespace kernels {

/// The bytes of one element of `dtype` (0 for a value that names none), as
/// the runtime's elementSize says, at compile time.
constexpr size_t width_of(ScalarType dtype) {
#define ETSB_WIDTH_OF(ctype, name) \
  if (dtype == ScalarType::name) return sizeof(ctype);
  ET_FORALL_SCALAR_TYPES(ETSB_WIDTH_OF)
#undef ETSB_WIDTH_OF
  return 0;
}

/// Whether this build may move elements `bytes` wide for the operator whose
/// switches are named `name` (nullptr: any operator): always, except in a
/// dtype-selective build, where only the widths of its selected dtypes.
constexpr bool may_take_width(const char* name, size_t bytes) {
  if (name == nullptr) return true;
  for (int t = 0; t < static_cast<int>(ScalarType::NumOptions); ++t) {
    const auto dtype = static_cast<ScalarType>(t);
    if (width_of(dtype) == bytes && may_take_dtype(name, dtype)) return true;
  }
  return false;
}

/// Calls `body(Word{})` with the unsigned integer type as wide as one element
/// of `dtype`; false (body not called) for widths other than 1, 2, 4, 8, and
/// for the widths a dtype-selective build leaves out of the operator `Name`
/// (its switch name; nullptr keeps every width): the kernel then fails the
/// call, as for a dtype it does not take.
template <const char* Name = nullptr, typename Body>
ET_INLINE bool with_element_word(ScalarType dtype, const Body& body) {
  switch (::executorch::runtime::elementSize(dtype)) {
    case 1:
      if constexpr (may_take_width(Name, 1)) return body(uint8_t{}), true;
      return false;
    case 2:
      if constexpr (may_take_width(Name, 2)) return body(uint16_t{}), true;
      return false;
    case 4:
      if constexpr (may_take_width(Name, 4)) return body(uint32_t{}), true;
      return false;
    case 8:
      if constexpr (may_take_width(Name, 8)) return body(uint64_t{}), true;
      return false;
    default: return false;
  }
}

}  // namespace kernels
}  // namespace etsb
