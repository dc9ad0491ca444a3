// aten::select_copy.int_out: out = self[..., index, ...] along one dim.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "select_copy.int_out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out = the slice of self at `index` (negative counts from the end) along
/// `dim`, which the result drops. Any dtype, copied by width; self and out
/// contiguous; out is resized. self must have at least one dim.
Tensor& select_copy_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, int64_t index,
                            Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank > 0 && k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "select_copy.int_out: dim %" PRId64 " out of range for rank %" PRId64, dim, rank);
  const int64_t size = self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, index >= -size && index < size, InvalidArgument, out,
                      "select_copy.int_out: index %" PRId64 " out of range for size %" PRId64, index, size);
  if (index < 0) index += size;
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "select_copy.int_out: out must be contiguous with self's dtype");
  int64_t strides[k::kMaxDim];
  k::contiguous_strides_of(self, strides);
  k::Shape shape;
  int64_t sizes[k::kMaxDim];
  int64_t walk[k::kMaxDim];
  for (int64_t j = 0; j < rank; ++j) {
    if (j == d) continue;
    walk[shape.ndim] = strides[j];
    sizes[shape.ndim] = self.sizes()[j];
    shape.push(self.sizes()[j]);
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, walk, shape.ndim, &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan, index * strides[d]), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
