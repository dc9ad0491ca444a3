// aten::flip.out: out = self with the order of elements reversed along dims.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "flip.out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out = self reversed along each dim of `dims` (negative dims count from
/// the end; a dim listed twice is an error). Any dtype, copied by width
/// (reading flipped dims with negative strides); contiguous; out is resized.
Tensor& flip_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out) {
  const int64_t rank = self.dim();
  bool flipped[k::kMaxDim] = {false};
  for (const int64_t dim : dims) {
    int64_t d = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                        "flip.out: dim %" PRId64 " out of range", dim);
    ET_KERNEL_CHECK_MSG(ctx, rank == 0 || !flipped[d], InvalidArgument, out, "flip.out: dim %" PRId64 " repeated", dim);
    flipped[d] = rank > 0;
  }
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "flip.out: out must be contiguous with self's dtype");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.numel() == 0) return out;
  int64_t sizes[k::kMaxDim];
  int64_t strides[k::kMaxDim] = {0};
  k::contiguous_strides_of(self, strides);
  int64_t offset = 0;  // the source element of out's first
  for (int64_t d = 0; d < rank; ++d) {
    sizes[d] = self.sizes()[d];
    if (!flipped[d]) continue;
    offset += (sizes[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, static_cast<size_t>(rank), &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan, offset), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
