// aten::as_strided_copy.out: out = self's storage read with given sizes and
// strides.
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "as_strided_copy.out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out[i0, i1, ...] = self's storage at storage_offset + sum(i_d * stride[d]),
/// with out of shape `size`. Sizes, strides and the offset must be
/// non-negative and every element read must lie inside self (contiguous);
/// any dtype, copied by width; out is resized.
Tensor& as_strided_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size,
                            ArrayRef<int64_t> stride, std::optional<int64_t> storage_offset, Tensor& out) {
  const int64_t offset = storage_offset.has_value() ? *storage_offset : 0;
  ET_KERNEL_CHECK_MSG(ctx, size.size() == stride.size() && size.size() <= k::kMaxDim, InvalidArgument, out,
                      "as_strided_copy.out: %zu sizes for %zu strides", size.size(), stride.size());
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "as_strided_copy.out: out must be contiguous with self's dtype");
  ET_KERNEL_CHECK_MSG(ctx, k::size_like(offset, 0), InvalidArgument, out,
                      "as_strided_copy.out: invalid storage offset %" PRId64, offset);
  k::Shape shape;
  int64_t sizes[k::kMaxDim];
  int64_t strides[k::kMaxDim];
  int64_t last = offset;  // the furthest element read
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    ET_KERNEL_CHECK_MSG(ctx, k::size_like(size[d], 0) && k::size_like(stride[d], 0), InvalidArgument, out,
                        "as_strided_copy.out: invalid size %" PRId64 " or stride %" PRId64, size[d], stride[d]);
    sizes[d] = size[d];
    strides[d] = stride[d];
    shape.push(size[d]);
    empty = empty || size[d] == 0;
    if (size[d] > 0) last += (size[d] - 1) * stride[d];
  }
  ET_KERNEL_CHECK_MSG(ctx, empty || last < self.numel(), InvalidArgument, out,
                      "as_strided_copy.out: reads element %" PRId64 " of a tensor of %zd", last,
                      static_cast<ssize_t>(self.numel()));
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (empty) return out;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, size.size(), &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan, offset), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
