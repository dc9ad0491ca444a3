// aten::split_with_sizes_copy.out: copies consecutive slices of self along a
// dim into the tensors of `out`.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// Splits self along `dim` into out.size() pieces of split_sizes[i] each
/// (which must add up to self.size(dim)); out[i] must have self's dtype, be
/// contiguous, and is resized to self's shape with split_sizes[i] at `dim`.
/// Any dtype; each piece is copied as outer-count contiguous blocks.
void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> split_sizes,
                               int64_t dim, ArrayRef<Tensor> out) {
  const size_t rank = static_cast<size_t>(self.dim());
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank >= 1 && k::normalize_dim(dim, rank, &d), InvalidArgument, ,
                      "split_with_sizes_copy.out: dim %" PRId64 " out of range", dim);
  ET_KERNEL_CHECK_MSG(ctx, split_sizes.size() == out.size(), InvalidArgument, ,
                      "split_with_sizes_copy.out: %zu sizes for %zu outputs", split_sizes.size(), out.size());
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self), InvalidArgument, );
  int64_t total = 0;
  for (const int64_t s : split_sizes) {
    ET_KERNEL_CHECK_MSG(ctx, s >= 0, InvalidArgument, , "split_with_sizes_copy.out: negative split size");
    total += s;
  }
  ET_KERNEL_CHECK_MSG(ctx, total == self.sizes()[d], InvalidArgument, ,
                      "split_with_sizes_copy.out: split sizes add up to %" PRId64 ", dim has %d", total,
                      static_cast<int>(self.sizes()[d]));
  k::Shape shape = k::shape_of(self);
  for (size_t i = 0; i < out.size(); ++i) {
    ET_KERNEL_CHECK(ctx, out[i].scalar_type() == self.scalar_type() && k::is_contiguous(out[i]),
                    InvalidArgument, );
    shape.sizes[d] = static_cast<::executorch::aten::SizesType>(split_sizes[i]);
    ET_KERNEL_CHECK(ctx, k::resize_to(out[i], shape), InvalidArgument, );
  }
  // self viewed as [outer, total, inner]: piece i is [outer, size_i, inner].
  const size_t elem = self.element_size();
  const int64_t outer = k::size_product(self.sizes(), 0, d);
  const size_t inner_bytes = static_cast<size_t>(k::size_product(self.sizes(), d + 1, rank)) * elem;
  const char* in = static_cast<const char*>(self.const_data_ptr());
  size_t offset = 0;  // bytes from the start of an outer block to piece i
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t piece = static_cast<size_t>(split_sizes[i]) * inner_bytes;
    char* dst = static_cast<char*>(out[i].mutable_data_ptr());
    if (piece != 0) {  // outer runs of `piece` bytes, self's a block apart
#if defined(ETSB_KERNELS_ONE_PATH)
      for (int64_t o = 0; o < outer; ++o) {  // (the size configuration: one loop; move_runs cost 0.5 KB there)
        // memmove: only a corrupt program makes a piece overlap self, but then memcpy is undefined.
        std::memmove(dst + o * piece, in + o * total * inner_bytes + offset, piece);
      }
#else
      k::CopyPlan plan;  // cut on the thread pool (move_runs)
      plan.ndim = 2;
      plan.sizes[0] = outer;
      plan.sizes[1] = static_cast<int64_t>(piece);
      plan.src[0] = total * static_cast<int64_t>(inner_bytes);
      plan.dst[0] = static_cast<int64_t>(piece);
      plan.src[1] = plan.dst[1] = 1;
      k::move_runs(in + offset, dst, plan, 1);
#endif
    }
    offset += piece;
  }
}

}  // namespace native
}  // namespace executor
}  // namespace torch
