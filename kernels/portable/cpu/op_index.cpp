// aten::index.Tensor_out: advanced indexing, out = self[indices].
#include "util/broadcast_util.h"
#include "util/copy_util.h"
#include "util/index_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "index.Tensor_out";

/// One dim of the result: a dim of self walked as is, or a dim of the
/// broadcast shape of the index tensors.
struct ResultDim {
  bool from_index;
  int64_t dim;  // self's dim, or the broadcast dim
  int64_t size;
};

}  // namespace

/// out = self[indices], NumPy's advanced indexing: indices[i] (Long or Int;
/// None leaves dim i whole) index self's dim i; the index tensors broadcast
/// together to a shape B. When the indexed dims are adjacent, B takes their
/// place in the result, otherwise it comes first, followed by self's other
/// dims. Negative indices count from the end; one out of range fails the
/// call. Boolean masks are not supported. Any self dtype, copied by width;
/// contiguous; out is resized.
Tensor& index_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                         Tensor& out) {
  const int64_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(indices.size()) <= rank, InvalidArgument, out,
                      "%s: %zu indices for a tensor of rank %" PRId64, kName, indices.size(), rank);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype", kName);
  const Tensor* index_of[k::kMaxDim] = {nullptr};  // per self dim
  const Tensor* listed[k::kMaxDim];
  size_t n_listed = 0;
  int64_t first = -1;
  int64_t last = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    if (!indices[i].has_value()) continue;
    const Tensor& t = *indices[i];
    ET_KERNEL_CHECK_MSG(ctx, k::is_index_dtype(t.scalar_type()) && k::is_contiguous(t), InvalidArgument, out,
                        "%s: indices must be contiguous Long or Int tensors (boolean masks are not supported)",
                        kName);
    index_of[i] = &t;
    listed[n_listed++] = &t;
    if (first < 0) first = static_cast<int64_t>(i);
    last = static_cast<int64_t>(i);
  }
  k::Shape broadcast;
  ET_KERNEL_CHECK_MSG(ctx, n_listed == 0 || k::broadcast_shape(listed, n_listed, &broadcast), InvalidArgument, out,
                      "%s: index shapes do not broadcast", kName);
  bool adjacent = true;
  for (int64_t d = first; n_listed > 0 && d <= last; ++d) adjacent = adjacent && index_of[d] != nullptr;

  // The result's dims, in order; the trailing self dims after `last` form a
  // block that is contiguous in both self and out.
  ResultDim dims[2 * k::kMaxDim];
  size_t n_dims = 0;
  const auto add_self_dims = [&](int64_t from, int64_t to) {
    for (int64_t d = from; d < to; ++d) {
      if (index_of[d] == nullptr) dims[n_dims++] = {false, d, self.sizes()[d]};
    }
  };
  const auto add_index_dims = [&]() {
    for (size_t b = 0; b < broadcast.ndim; ++b) dims[n_dims++] = {true, static_cast<int64_t>(b), broadcast.sizes[b]};
  };
  const int64_t tail_from = n_listed == 0 ? 0 : last + 1;
  if (n_listed > 0 && adjacent) {
    add_self_dims(0, first);
    add_index_dims();
  } else if (n_listed > 0) {
    add_index_dims();
    add_self_dims(0, tail_from);
  }
  const size_t n_outer = n_dims;
  add_self_dims(tail_from, rank);
  k::Shape shape;
  for (size_t j = 0; j < n_dims; ++j) {
    ET_KERNEL_CHECK_MSG(ctx, shape.push(dims[j].size), InvalidArgument, out, "%s: result has too many dims", kName);
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;

  int64_t self_strides[k::kMaxDim];
  k::contiguous_strides_of(self, self_strides);
  // Each index tensor's stride along each broadcast dim (0 where it repeats).
  int64_t index_strides[k::kMaxDim][k::kMaxDim];
  for (int64_t d = 0; d < rank; ++d) {
    const Tensor* t = index_of[d];
    if (t == nullptr) continue;
    int64_t running = 1;
    const size_t r = static_cast<size_t>(t->dim());
    for (size_t b = broadcast.ndim; b-- > 0;) {
      const size_t back = broadcast.ndim - 1 - b;
      const int64_t s = back < r ? t->sizes()[r - 1 - back] : 1;
      index_strides[d][b] = s == 1 ? 0 : running;
      running *= s;
    }
  }
  const size_t block = static_cast<size_t>(k::size_product(self.sizes(), tail_from, rank)) * self.element_size();
  int64_t outer = 1;
  for (size_t j = 0; j < n_outer; ++j) outer *= dims[j].size;
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  int64_t counter[2 * k::kMaxDim] = {0};
  int64_t at_b[k::kMaxDim] = {0};  // the current position in the broadcast shape
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = 0;
    for (size_t j = 0; j < n_outer; ++j) {
      if (dims[j].from_index) {
        at_b[dims[j].dim] = counter[j];
      } else {
        offset += counter[j] * self_strides[dims[j].dim];
      }
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (index_of[d] == nullptr) continue;
      int64_t pos = 0;
      for (size_t b = 0; b < broadcast.ndim; ++b) pos += at_b[b] * index_strides[d][b];
      const int64_t raw = k::index_at(*index_of[d], pos);
      int64_t at = 0;
      ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(raw, self.sizes()[d], &at), InvalidArgument, out,
                          "%s: index %" PRId64 " out of range for dim %" PRId64 " of size %d", kName, raw, d,
                          static_cast<int>(self.sizes()[d]));
      offset += at * self_strides[d];
    }
    if (block != 0) std::memmove(dst + o * block, in + offset * self.element_size(), block);
    for (size_t j = n_outer; j-- > 0;) {
      if (++counter[j] < dims[j].size) break;
      counter[j] = 0;
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
