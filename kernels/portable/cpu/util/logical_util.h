// Logical operators (logical_and, logical_or, logical_xor): operands of any
// dtypes read as truth values, broadcast, stored as 1 / 0 in out's dtype.
#pragma once

#include "binary_op_util.h"

namespace etsb {
namespace kernels {

/// out = op(bool(a), bool(b)) with broadcasting; a, b and out of any real,
/// Bool, Half or BFloat16 dtypes, each independent; out is resized. All-Bool
/// calls take the typed loop, others convert per element. `Name` is the
/// operator's switch name.
template <const char* Name, typename Op>
inline Tensor& logical_binary_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                                  const Op& op) {
  ScalarType result;  // ATen's promotion does not apply: the result is a truth value
  if (!prepare_binary(ctx, Name, a, b, out, &result)) return out;
  if (a.scalar_type() == ScalarType::Bool && b.scalar_type() == ScalarType::Bool &&
      out.scalar_type() == ScalarType::Bool) {
    binary_same_dtype<bool, bool>(a, b, out, op);
    return out;
  }
  binary_mixed<bool, Name>(ctx, a, b, out, op);
  return out;
}

}  // namespace kernels
}  // namespace etsb
