// aten::index_select.out: out = self's slices along a dim, picked by index.
#include "util/copy_util.h"
#include "util/index_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out = self with dim `dim` replaced by the slices index[0], index[1], ...
/// (negative indices count from the end). index is 0-D or 1-D, Long or Int;
/// self and out any dtype, alike, contiguous; out is resized. An index out of
/// range fails the call.
Tensor& index_select_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                         Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "index_select.out: dim %" PRId64 " out of range for rank %" PRId64, dim, rank);
  ET_KERNEL_CHECK_MSG(ctx, index.dim() <= 1 && k::is_index_dtype(index.scalar_type()), InvalidArgument, out,
                      "index_select.out: index must be a 0-D or 1-D Long or Int tensor");
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "index_select.out: out must be contiguous with self's dtype");
  const int64_t count = index.numel();
  const int64_t size = rank == 0 ? 1 : self.sizes()[d];
  k::Shape shape = k::shape_of(self);
  if (rank > 0) shape.sizes[d] = static_cast<::executorch::aten::SizesType>(count);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const int64_t outer = rank == 0 ? 1 : k::size_product(self.sizes(), 0, d);
  const size_t block = static_cast<size_t>(rank == 0 ? 1 : k::size_product(self.sizes(), d + 1, rank)) *
                       self.element_size();
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(k::index_at(index, i), size, &at), InvalidArgument, out,
                        "index_select.out: index %" PRId64 " out of range for size %" PRId64, k::index_at(index, i),
                        size);
    if (block == 0) continue;
    for (int64_t o = 0; o < outer; ++o) {
      std::memmove(dst + (o * count + i) * block, in + (o * size + at) * block, block);
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
