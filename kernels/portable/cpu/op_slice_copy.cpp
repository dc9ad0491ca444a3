// aten::slice_copy.Tensor_out: out = self[start:end:step] along one dim.
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "slice_copy.Tensor_out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out = every `step`-th element of self from `start` up to `end` along `dim`
/// (ATen's bounds: defaults, negatives and clamping as in Python slicing;
/// step must be positive). Any dtype, copied by width; self and out
/// contiguous; out is resized.
Tensor& slice_copy_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                              std::optional<int64_t> start, std::optional<int64_t> end, int64_t step, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank > 0 && k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "slice_copy.Tensor_out: dim %" PRId64 " out of range for rank %" PRId64, dim, rank);
  int64_t first = 0;
  int64_t length = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::slice_range(self.sizes()[d], start, end, step, &first, &length), InvalidArgument,
                      out, "slice_copy.Tensor_out: step must be positive, not %" PRId64, step);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "slice_copy.Tensor_out: out must be contiguous with self's dtype");
  int64_t strides[k::kMaxDim];
  k::contiguous_strides_of(self, strides);
  k::Shape shape = k::shape_of(self);
  shape.sizes[d] = static_cast<::executorch::aten::SizesType>(length);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  int64_t sizes[k::kMaxDim];
  for (int64_t j = 0; j < rank; ++j) sizes[j] = shape.sizes[j];
  const int64_t offset = first * strides[d];
  strides[d] *= step;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, static_cast<size_t>(rank), &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan, offset), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
