// A tensor's bytes between the order .npy keeps them in (row-major over the
// logical sizes) and a dim order (the order in memory of the dimensions,
// outermost first: {0, 2, 3, 1} is channels-last for a 4-D tensor). A
// channels-last program (ExecuTorch's Cortex-M flow exports them so) expects
// its inputs in that order and leaves its outputs in it; .npy files are
// row-major. Copies only: no allocation, so a deploy build may use it too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace etsb_layout {

constexpr size_t kMaxLayoutDims = 16;

// Whether `dim_order` (of `dims` entries) is channels-last: 0, 2, 3, ..., dims-1, 1
// (at least 3 dims). ExecuTorch's kernels know two layouts, row-major and this one
// (its dim_order_util.h): a kernel writes any other dim order's data row-major
// (nonzero's output is labelled {1, 0}), so only this one is a layout to undo.
template <typename Order>
inline bool is_channels_last(const Order* dim_order, size_t dims) {
  if (dims < 3 || static_cast<size_t>(dim_order[0]) != 0 || static_cast<size_t>(dim_order[dims - 1]) != 1) return false;
  for (size_t i = 1; i + 1 < dims; ++i)
    if (static_cast<size_t>(dim_order[i]) != i + 1) return false;
  return true;
}

// Whether `dim_order` (of `dims` entries) is 0, 1, ..., dims-1: row-major.
template <typename Order>
inline bool is_row_major(const Order* dim_order, size_t dims) {
  for (size_t i = 0; i < dims; ++i)
    if (static_cast<size_t>(dim_order[i]) != i) return false;
  return true;
}

// Whether `dim_order` (of `dims` entries, at most kMaxLayoutDims) names each
// dimension once: a program's claim checked before it steers a copy.
template <typename Order>
inline bool is_permutation(const Order* dim_order, size_t dims) {
  if (dims > kMaxLayoutDims) return false;
  bool seen[kMaxLayoutDims] = {};
  for (size_t i = 0; i < dims; ++i) {
    size_t d = static_cast<size_t>(dim_order[i]);
    if (d >= dims || seen[d]) return false;
    seen[d] = true;
  }
  return true;
}

// Copies `element_size`-byte elements between `row_major` and `ordered`
// (a buffer laid out in `dim_order`), both holding the tensor of `sizes`:
// into `ordered` when `to_ordered`, else back into `row_major`. `dims` is at
// most kMaxLayoutDims and `dim_order` a permutation (the caller checked both).
template <typename Size, typename Order>
inline void copy_between(const Size* sizes, const Order* dim_order, size_t dims, size_t element_size,
                         uint8_t* row_major, uint8_t* ordered, bool to_ordered) {
  size_t stride[kMaxLayoutDims];  // the element stride of each logical dimension in `ordered`
  size_t count = 1;
  for (size_t k = dims; k-- > 0;) {
    stride[dim_order[k]] = count;
    count *= static_cast<size_t>(sizes[dim_order[k]]);
  }
  size_t index[kMaxLayoutDims] = {};
  size_t offset = 0;  // of the element `index` names, in `ordered`
  for (size_t n = 0; n < count; ++n) {
    uint8_t* logical = row_major + n * element_size;
    uint8_t* placed = ordered + offset * element_size;
    if (to_ordered) std::memcpy(placed, logical, element_size);
    else std::memcpy(logical, placed, element_size);
    // The next index in row-major order: the last dimension runs fastest.
    for (size_t d = dims; d-- > 0;) {
      offset += stride[d];
      if (++index[d] < static_cast<size_t>(sizes[d])) break;
      offset -= stride[d] * index[d];
      index[d] = 0;
    }
  }
}

}  // namespace etsb_layout
