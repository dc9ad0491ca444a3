// Advanced indexing (index.Tensor, index_put): NumPy's rules planned once.
// Index tensors (Long or Int, None leaving a dim whole, Bool or Byte masks)
// broadcast together; the result's dims are the broadcast shape and self's
// other dims in NumPy's order; for_each_block walks the result a block at a
// time, giving the offset each block has in self. No allocation.
#pragma once

#include <optional>

#include "broadcast_util.h"
#include "copy_util.h"
#include "index_util.h"

namespace etsb {
namespace kernels {

using ::executorch::aten::ArrayRef;
using ::executorch::runtime::KernelRuntimeContext;

/// Whether an index tensor is a boolean mask (Bool, or Byte as ATen reads it).
inline bool is_mask(const Tensor& t) {
  return t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte;
}

/// One listed index tensor: a Long or Int index into self's dim `dim`, or a
/// mask over self's dims [dim, dim + its rank), which indexes like one 1-D
/// index per dim holding the coordinates of its true elements, in order.
struct IndexSource {
  const Tensor* t;
  bool mask;
  int64_t dim;
  int64_t count;                 // a mask's true elements
  int64_t strides[kMaxDim];      // along the broadcast dims (0 where it repeats)
  int64_t seen = -1, flat = -1;  // a mask's cursor: its seen-th true element is at flat
};

/// One dim of the result: a dim of self walked as is, or a dim of the
/// broadcast shape of the index tensors.
struct IndexResultDim {
  bool from_index;
  int64_t dim;  // self's dim, or the broadcast dim
  int64_t size;
};

/// The indexing, planned: the sources, which self dims they index, their
/// broadcast shape and the result's dims in order (the first n_outer are
/// walked one by one, the rest form a block contiguous in self and out).
struct IndexPlan {
  IndexSource sources[kMaxDim];
  size_t n_sources = 0;
  bool indexed[kMaxDim] = {false};
  int64_t first = -1, last = -1;  // the first and last indexed self dims
  Shape broadcast;
  IndexResultDim dims[2 * kMaxDim];
  size_t n_dims = 0, n_outer = 0;
  int64_t tail_from = 0;  // the first self dim of the block
};

/// Stretches `shape` (a broadcast) by a 1-D shape [n]; false if they clash.
inline bool broadcast_with_1d(Shape* shape, int64_t n) {
  if (shape->ndim == 0) return shape->push(n);
  SizesType& last = shape->sizes[shape->ndim - 1];
  if (last != n && last != 1 && n != 1) return false;
  if (last == 1) last = static_cast<SizesType>(n);
  return true;
}

/// Fills the plan's sources from `indices` (None leaves a dim whole) with
/// their broadcast shape; false with ctx failed on a bad index tensor.
inline bool collect_sources(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                            ArrayRef<std::optional<Tensor>> indices, IndexPlan* p) {
  const Tensor* plain[kMaxDim];
  size_t n_plain = 0;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i, ++dim) {
    if (!indices[i].has_value()) continue;
    const Tensor& t = *indices[i];
    const bool mask = is_mask(t);
    ET_KERNEL_CHECK_MSG(ctx, (mask || is_index_dtype(t.scalar_type())) && is_contiguous(t), InvalidArgument,
                        false, "%s: indices must be contiguous Long, Int, Bool or Byte tensors", name);
    const int64_t span = mask ? t.dim() : 1;
    ET_KERNEL_CHECK_MSG(ctx, span >= 1 && dim + span <= self.dim(), InvalidArgument, false,
                        "%s: index %zu indexes too many dimensions (or is a 0-dim mask)", name, i);
    IndexSource& s = p->sources[p->n_sources++];
    s = {&t, mask, dim, 0, {0}};
    for (int64_t j = 0; j < span; ++j) {
      ET_KERNEL_CHECK_MSG(ctx, !mask || t.sizes()[j] == self.sizes()[dim + j], InvalidArgument, false,
                          "%s: mask %zu does not match self's shape at dim %" PRId64, name, i, dim + j);
      p->indexed[dim + j] = true;
    }
    if (p->first < 0) p->first = dim;
    dim += span - 1;
    p->last = dim;
    if (!mask) plain[n_plain++] = &t;
    if (mask) {
      const uint8_t* m = static_cast<const uint8_t*>(t.const_data_ptr());
      for (ssize_t e = 0; e < t.numel(); ++e) s.count += m[e] != 0;
    }
  }
  ET_KERNEL_CHECK_MSG(ctx, dim <= self.dim(), InvalidArgument, false, "%s: indexing too many dimensions", name);
  bool fits = n_plain == 0 || broadcast_shape(plain, n_plain, &p->broadcast);
  for (size_t i = 0; fits && i < p->n_sources; ++i) {
    if (p->sources[i].mask) fits = broadcast_with_1d(&p->broadcast, p->sources[i].count);
  }
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false, "%s: index shapes do not broadcast", name);
  return true;
}

/// Each source's stride along each broadcast dim: a mask is 1-D of its count.
inline void source_strides(IndexPlan* p) {
  const Shape& b = p->broadcast;
  for (size_t i = 0; i < p->n_sources; ++i) {
    IndexSource& s = p->sources[i];
    const size_t r = s.mask ? 1 : static_cast<size_t>(s.t->dim());
    int64_t running = 1;
    for (size_t d = b.ndim; d-- > 0;) {
      const size_t back = b.ndim - 1 - d;
      const int64_t size = back >= r ? 1 : (s.mask ? s.count : s.t->sizes()[r - 1 - back]);
      s.strides[d] = size == 1 ? 0 : running;
      running *= size;
    }
  }
}

/// The result's dims: when the indexed dims are adjacent, the broadcast
/// shape takes their place, otherwise it comes first, followed by self's
/// other dims (NumPy's rule).
inline void plan_result(const Tensor& self, IndexPlan* p) {
  const int64_t rank = self.dim();
  bool adjacent = true;
  for (int64_t d = p->first; p->n_sources > 0 && d <= p->last; ++d) adjacent = adjacent && p->indexed[d];
  const auto add_self_dims = [&](int64_t from, int64_t to) {
    for (int64_t d = from; d < to; ++d) {
      if (!p->indexed[d]) p->dims[p->n_dims++] = {false, d, self.sizes()[d]};
    }
  };
  const auto add_index_dims = [&]() {
    for (size_t b = 0; b < p->broadcast.ndim; ++b) {
      p->dims[p->n_dims++] = {true, static_cast<int64_t>(b), p->broadcast.sizes[b]};
    }
  };
  p->tail_from = p->n_sources == 0 ? 0 : p->last + 1;
  if (p->n_sources > 0 && adjacent) {
    add_self_dims(0, p->first);
    add_index_dims();
  } else if (p->n_sources > 0) {
    add_index_dims();
    add_self_dims(0, p->tail_from);
  }
  p->n_outer = p->n_dims;
  add_self_dims(p->tail_from, rank);
}

/// Adds to `offset` where source s points in self at broadcast position
/// `pos`; false with ctx failed on an index out of range.
inline bool source_offset(KernelRuntimeContext& ctx, const char* name, const Tensor& self, const int64_t* self_strides,
                          IndexSource& s, int64_t pos, int64_t* offset) {
  if (!s.mask) {
    const int64_t raw = index_at(*s.t, pos);
    int64_t at = 0;
    ET_KERNEL_CHECK_MSG(ctx, wrap_index(raw, self.sizes()[s.dim], &at), InvalidArgument, false,
                        "%s: index %" PRId64 " out of range for dim %" PRId64 " of size %d", name, raw, s.dim,
                        static_cast<int>(self.sizes()[s.dim]));
    *offset += at * self_strides[s.dim];
    return true;
  }
  // The pos-th true element: walks on from the last one found (positions
  // mostly come in order), from the start when pos goes back.
  if (pos < s.seen) s.seen = s.flat = -1;
  const uint8_t* m = static_cast<const uint8_t*>(s.t->const_data_ptr());
  while (s.seen < pos) s.seen += m[++s.flat] != 0;
  int64_t rest = s.flat;
  for (int64_t j = s.t->dim(); j-- > 0;) {
    const int64_t size = s.t->sizes()[j];
    *offset += (rest % size) * self_strides[s.dim + j];
    rest /= size;
  }
  return true;
}

/// Plans the indexing of `self` by `indices` (collect_sources,
/// source_strides, plan_result) and the result's shape; false with ctx
/// failed, naming `name`, on a bad index tensor or too many dims.
inline bool plan_indexing(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                          ArrayRef<std::optional<Tensor>> indices, IndexPlan* p, Shape* shape) {
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(indices.size()) <= self.dim(), InvalidArgument, false,
                      "%s: %zu indices for a tensor of rank %zd", name, indices.size(),
                      static_cast<ssize_t>(self.dim()));
  if (!collect_sources(ctx, name, self, indices, p)) return false;
  source_strides(p);
  plan_result(self, p);
  for (size_t j = 0; j < p->n_dims; ++j) {
    ET_KERNEL_CHECK_MSG(ctx, shape->push(p->dims[j].size), InvalidArgument, false, "%s: result has too many dims",
                        name);
  }
  return true;
}

/// Calls visit(o, offset) for each block o of the result, in order: the
/// block's offset in self's elements (the block holds self's dims from
/// p.tail_from on, contiguous in self and in the result); false with ctx
/// failed on an index out of range (the blocks before it visited).
template <typename Visit>
bool for_each_block(KernelRuntimeContext& ctx, const char* name, const Tensor& self, IndexPlan& p, Visit visit) {
  int64_t self_strides[kMaxDim];
  contiguous_strides_of(self, self_strides);
  int64_t outer = 1;
  for (size_t j = 0; j < p.n_outer; ++j) outer *= p.dims[j].size;
  int64_t counter[2 * kMaxDim] = {0};
  int64_t at_b[kMaxDim] = {0};  // the current position in the broadcast shape
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = 0;
    for (size_t j = 0; j < p.n_outer; ++j) {
      if (p.dims[j].from_index) {
        at_b[p.dims[j].dim] = counter[j];
      } else {
        offset += counter[j] * self_strides[p.dims[j].dim];
      }
    }
    for (size_t i = 0; i < p.n_sources; ++i) {
      int64_t pos = 0;
      for (size_t b = 0; b < p.broadcast.ndim; ++b) pos += at_b[b] * p.sources[i].strides[b];
      if (!source_offset(ctx, name, self, self_strides, p.sources[i], pos, &offset)) return false;
    }
    visit(o, offset);
    for (size_t j = p.n_outer; j-- > 0;) {
      if (++counter[j] < p.dims[j].size) break;
      counter[j] = 0;
    }
  }
  return true;
}

}  // namespace kernels
}  // namespace etsb
