// aten::index.Tensor_out: advanced indexing, out = self[indices].
#include "util/broadcast_util.h"
#include "util/copy_util.h"
#include "util/index_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "index.Tensor_out";

/// Whether an index tensor is a boolean mask (Bool, or Byte as ATen reads it).
bool is_mask(const Tensor& t) { return t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte; }

/// One listed index tensor: a Long or Int index into self's dim `dim`, or a
/// mask over self's dims [dim, dim + its rank), which indexes like one 1-D
/// index per dim holding the coordinates of its true elements, in order.
struct Source {
  const Tensor* t;
  bool mask;
  int64_t dim;
  int64_t count;                  // a mask's true elements
  int64_t strides[k::kMaxDim];    // along the broadcast dims (0 where it repeats)
  int64_t seen = -1, flat = -1;   // a mask's cursor: its seen-th true element is at flat
};

/// One dim of the result: a dim of self walked as is, or a dim of the
/// broadcast shape of the index tensors.
struct ResultDim {
  bool from_index;
  int64_t dim;  // self's dim, or the broadcast dim
  int64_t size;
};

/// The indexing, planned: the sources, which self dims they index, their
/// broadcast shape and the result's dims in order (the first n_outer are
/// walked one by one, the rest form a block contiguous in self and out).
struct Plan {
  Source sources[k::kMaxDim];
  size_t n_sources = 0;
  bool indexed[k::kMaxDim] = {false};
  int64_t first = -1, last = -1;  // the first and last indexed self dims
  k::Shape broadcast;
  ResultDim dims[2 * k::kMaxDim];
  size_t n_dims = 0, n_outer = 0;
  int64_t tail_from = 0;  // the first self dim of the block
};

/// Stretches `shape` (a broadcast) by a 1-D shape [n]; false if they clash.
bool broadcast_with_1d(k::Shape* shape, int64_t n) {
  if (shape->ndim == 0) return shape->push(n);
  SizesType& last = shape->sizes[shape->ndim - 1];
  if (last != n && last != 1 && n != 1) return false;
  if (last == 1) last = static_cast<SizesType>(n);
  return true;
}

/// Fills the plan's sources from `indices` (None leaves a dim whole) with
/// their broadcast shape; false with ctx failed on a bad index tensor.
bool collect_sources(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                     Plan* p) {
  const Tensor* plain[k::kMaxDim];
  size_t n_plain = 0;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i, ++dim) {
    if (!indices[i].has_value()) continue;
    const Tensor& t = *indices[i];
    const bool mask = is_mask(t);
    ET_KERNEL_CHECK_MSG(ctx, (mask || k::is_index_dtype(t.scalar_type())) && k::is_contiguous(t), InvalidArgument,
                        false, "%s: indices must be contiguous Long, Int, Bool or Byte tensors", kName);
    const int64_t span = mask ? t.dim() : 1;
    ET_KERNEL_CHECK_MSG(ctx, span >= 1 && dim + span <= self.dim(), InvalidArgument, false,
                        "%s: index %zu indexes too many dimensions (or is a 0-dim mask)", kName, i);
    Source& s = p->sources[p->n_sources++];
    s = {&t, mask, dim, 0, {0}};
    for (int64_t j = 0; j < span; ++j) {
      ET_KERNEL_CHECK_MSG(ctx, !mask || t.sizes()[j] == self.sizes()[dim + j], InvalidArgument, false,
                          "%s: mask %zu does not match self's shape at dim %" PRId64, kName, i, dim + j);
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
  ET_KERNEL_CHECK_MSG(ctx, dim <= self.dim(), InvalidArgument, false, "%s: indexing too many dimensions", kName);
  bool fits = n_plain == 0 || k::broadcast_shape(plain, n_plain, &p->broadcast);
  for (size_t i = 0; fits && i < p->n_sources; ++i) {
    if (p->sources[i].mask) fits = broadcast_with_1d(&p->broadcast, p->sources[i].count);
  }
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, false, "%s: index shapes do not broadcast", kName);
  return true;
}

/// Each source's stride along each broadcast dim: a mask is 1-D of its count.
void source_strides(Plan* p) {
  const k::Shape& b = p->broadcast;
  for (size_t i = 0; i < p->n_sources; ++i) {
    Source& s = p->sources[i];
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
void plan_result(const Tensor& self, Plan* p) {
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
bool source_offset(KernelRuntimeContext& ctx, const Tensor& self, const int64_t* self_strides, Source& s,
                   int64_t pos, int64_t* offset) {
  if (!s.mask) {
    const int64_t raw = k::index_at(*s.t, pos);
    int64_t at = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(raw, self.sizes()[s.dim], &at), InvalidArgument, false,
                        "%s: index %" PRId64 " out of range for dim %" PRId64 " of size %d", kName, raw, s.dim,
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

}  // namespace

/// out = self[indices], NumPy's advanced indexing: indices[i] (Long or Int;
/// None leaves dim i whole) index self's dim i; a boolean mask (Bool or
/// Byte, of at least one dim) indexes as many dims as it has, matching them
/// in size, by the coordinates of its true elements. The index tensors
/// broadcast together to a shape B (a mask counting as 1-D), placed in the
/// result as plan_result says. Negative indices count from the end; one out
/// of range fails the call. Any self dtype, copied by width; contiguous; out
/// is resized.
Tensor& index_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                         Tensor& out) {
  const int64_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(indices.size()) <= rank, InvalidArgument, out,
                      "%s: %zu indices for a tensor of rank %" PRId64, kName, indices.size(), rank);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype", kName);
  Plan p;
  if (!collect_sources(ctx, self, indices, &p)) return out;
  source_strides(&p);
  plan_result(self, &p);
  k::Shape shape;
  for (size_t j = 0; j < p.n_dims; ++j) {
    ET_KERNEL_CHECK_MSG(ctx, shape.push(p.dims[j].size), InvalidArgument, out, "%s: result has too many dims", kName);
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;

  int64_t self_strides[k::kMaxDim];
  k::contiguous_strides_of(self, self_strides);
  const size_t block = static_cast<size_t>(k::size_product(self.sizes(), p.tail_from, rank)) * self.element_size();
  int64_t outer = 1;
  for (size_t j = 0; j < p.n_outer; ++j) outer *= p.dims[j].size;
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  int64_t counter[2 * k::kMaxDim] = {0};
  int64_t at_b[k::kMaxDim] = {0};  // the current position in the broadcast shape
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
      if (!source_offset(ctx, self, self_strides, p.sources[i], pos, &offset)) return out;
    }
    if (block != 0) std::memmove(dst + o * block, in + offset * self.element_size(), block);
    for (size_t j = p.n_outer; j-- > 0;) {
      if (++counter[j] < p.dims[j].size) break;
      counter[j] = 0;
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
