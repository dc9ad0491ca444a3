// aten::slice_scatter.out: out = self with a slice along one dim replaced by src.
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "slice_scatter.out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out = self, except out[start:end:step] along `dim` = src (ATen's slice
/// bounds; src must have the slice's shape). Any dtype, self, src and out
/// alike, copied by width; contiguous; out is resized to self's shape.
Tensor& slice_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                          std::optional<int64_t> start, std::optional<int64_t> end, int64_t step, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank > 0 && k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "slice_scatter.out: dim %" PRId64 " out of range for rank %" PRId64, dim, rank);
  int64_t first = 0;
  int64_t length = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::slice_range(self.sizes()[d], start, end, step, &first, &length), InvalidArgument,
                      out, "slice_scatter.out: step must be positive, not %" PRId64, step);
  ET_KERNEL_CHECK_MSG(ctx, src.scalar_type() == self.scalar_type() && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "slice_scatter.out: self, src and out must share one dtype");
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(src) && k::is_contiguous(out), InvalidArgument,
                  out);
  bool fits = src.dim() == rank;
  for (int64_t j = 0; fits && j < rank; ++j) fits = src.sizes()[j] == (j == d ? length : self.sizes()[j]);
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out, "slice_scatter.out: src does not have the slice's shape");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.nbytes() != 0 && self.const_data_ptr() != out.const_data_ptr()) {
    std::memmove(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  if (src.numel() == 0) return out;
  int64_t sizes[k::kMaxDim];
  int64_t src_strides[k::kMaxDim] = {0};
  int64_t dst_strides[k::kMaxDim] = {0};
  for (int64_t j = 0; j < rank; ++j) sizes[j] = src.sizes()[j];
  k::contiguous_strides_of(src, src_strides);
  k::contiguous_strides_of(out, dst_strides);
  const int64_t offset = first * dst_strides[d];
  dst_strides[d] *= step;
  k::CopyPlan plan;
  k::make_copy_plan(sizes, src_strides, dst_strides, static_cast<size_t>(rank), &plan);
  ET_KERNEL_CHECK(ctx, k::move_walk<kName>(src.scalar_type(), src.const_data_ptr(), 0, out.mutable_data_ptr(),
                                           offset, plan), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
