// aten::embedding.out: out[..., :] = weight[indices[...], :].
#include "util/kernel_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// Gathers rows of the 2-D `weight` [num_embeddings, dim] by `indices` (Long
/// or Int, any shape); out has weight's dtype and is resized to
/// indices.shape + [dim]. An index outside [0, num_embeddings) fails through
/// the context. padding_idx, scale_grad_by_freq and sparse only affect
/// gradients and are ignored. Rows are copied as bytes: any weight dtype.
Tensor& embedding_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                      bool scale_grad_by_freq, bool sparse, Tensor& out) {
  (void)padding_idx;
  (void)scale_grad_by_freq;
  (void)sparse;
  ET_KERNEL_CHECK_MSG(ctx, weight.dim() == 2, InvalidArgument, out, "embedding.out: weight must be 2-D");
  ET_KERNEL_CHECK(ctx, weight.scalar_type() == out.scalar_type(), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, static_cast<size_t>(indices.dim()) < k::kMaxDim, InvalidArgument, out,
                      "embedding.out: indices have too many dims");
  ET_KERNEL_CHECK(ctx, k::is_contiguous(weight) && k::is_contiguous(indices) && k::is_contiguous(out),
                  InvalidArgument, out);
  const int64_t rows = weight.sizes()[0];
  const int64_t width = weight.sizes()[1];
  k::Shape shape = k::shape_of(indices);
  shape.push(width);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const size_t row_bytes = static_cast<size_t>(width) * weight.element_size();
  const char* table = static_cast<const char*>(weight.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  const int64_t n = indices.numel();
  ET_SWITCH_TWO_TYPES(Int, Long, indices.scalar_type(), ctx, "embedding.out", INDEX, [&]() {
    const INDEX* idx = indices.const_data_ptr<INDEX>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t row = static_cast<int64_t>(idx[i]);
      ET_KERNEL_CHECK_MSG(ctx, row >= 0 && row < rows, InvalidArgument, ,
                          "embedding.out: index %" PRId64 " out of range [0, %" PRId64 ")", row, rows);
      // memmove: only a corrupt program makes out overlap weight, but then memcpy is undefined.
      std::memmove(dst + i * row_bytes, table + row * row_bytes, row_bytes);
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
