// Index tensors (index_select, index.Tensor, gather, embedding): reading Long
// or Int indices, and checking them against the size they index.
#pragma once

#include "kernel_util.h"

namespace etsb {
namespace kernels {

/// Whether `t` can hold indices (Long or Int, as ATen accepts).
inline bool is_index_dtype(ScalarType t) { return t == ScalarType::Long || t == ScalarType::Int; }

/// Element i of an index tensor of Long or Int (checked by is_index_dtype).
inline int64_t index_at(const Tensor& index, int64_t i) {
  if (index.scalar_type() == ScalarType::Int) return index.const_data_ptr<int32_t>()[i];
  return index.const_data_ptr<int64_t>()[i];
}

/// Wraps a possibly negative index into [0, size); false if out of range.
inline bool wrap_index(int64_t index, int64_t size, int64_t* out) {
  if (index < -size || index >= size) return false;
  *out = index < 0 ? index + size : index;
  return true;
}

}  // namespace kernels
}  // namespace etsb
