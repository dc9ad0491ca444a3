// Index tensors (index_select, index.Tensor, gather, scatter, embedding):
// reading Long or Int indices, checking them against the size they index, and
// the walk of an index along one dim shared by gather, scatter and scatter_add.
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

/// Size of dim j of `t`, a 0-dim tensor counting as [1] (ATen's view of
/// scalars in gather and scatter).
inline int64_t size_or_one(const Tensor& t, int64_t j) { return t.dim() == 0 ? 1 : t.sizes()[j]; }

/// Rank of `t`, a 0-dim tensor counting as rank 1.
inline int64_t rank_or_one(const Tensor& t) { return t.dim() > 0 ? t.dim() : 1; }

/// ATen's shape rule of gather and scatter: `index` has `target`'s rank (0-dim
/// counting as 1) and is no larger than target in every dim but `d`, nor than
/// `bound` (scatter's src, when given) in any dim.
inline bool index_fits(const Tensor& target, int64_t d, const Tensor& index, const Tensor* bound) {
  const int64_t rank = rank_or_one(target);
  if (rank_or_one(index) != rank || (bound != nullptr && rank_or_one(*bound) != rank)) return false;
  for (int64_t j = 0; j < rank; ++j) {
    const int64_t n = size_or_one(index, j);
    if (j != d && n > size_or_one(target, j)) return false;
    if (bound != nullptr && n > size_or_one(*bound, j)) return false;
  }
  return true;
}

/// Whether every element of `index` lies in [-size, size); if not, the first
/// one that does not is stored in *bad.
inline bool indices_in_range(const Tensor& index, int64_t size, int64_t* bad) {
  const int64_t n = index.numel();
  for (int64_t i = 0; i < n; ++i) {
    int64_t unused = 0;
    if (!wrap_index(index_at(index, i), size, &unused)) {
      *bad = index_at(index, i);
      return false;
    }
  }
  return true;
}

/// Walks a contiguous `index` (checked by index_fits and indices_in_range)
/// in order, calling visit(i, target_offset, other_offset) for its element i
/// at coordinates c: target_offset is the contiguous offset in `target` of c
/// with c[d] replaced by the (wrapped) index value, other_offset that of c in
/// `other` (the tensor read or written alongside: gather's out, scatter's src).
template <typename Visit>
inline void walk_index_along(const Tensor& target, int64_t d, const Tensor& index, const Tensor& other,
                             const Visit& visit) {
  const int64_t n = index.numel();
  const int64_t rank = rank_or_one(index);
  int64_t target_strides[kMaxDim];
  int64_t other_strides[kMaxDim];
  int64_t t_run = 1, o_run = 1;
  for (int64_t j = rank; j-- > 0;) {
    target_strides[j] = t_run;
    other_strides[j] = o_run;
    t_run *= size_or_one(target, j);
    o_run *= size_or_one(other, j);
  }
  const int64_t size = size_or_one(target, d);
  int64_t at[kMaxDim] = {0};  // the position in index's shape
  int64_t base = 0;           // target offset of `at` without dim d
  int64_t other_offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t picked = 0;
    wrap_index(index_at(index, i), size, &picked);
    visit(i, base + picked * target_strides[d], other_offset);
    for (int64_t j = rank; j-- > 0;) {
      const int64_t step_t = j == d ? 0 : target_strides[j];
      if (++at[j] < size_or_one(index, j)) {
        base += step_t;
        other_offset += other_strides[j];
        break;
      }
      base -= step_t * (at[j] - 1);
      other_offset -= other_strides[j] * (at[j] - 1);
      at[j] = 0;
    }
  }
}

}  // namespace kernels
}  // namespace etsb
