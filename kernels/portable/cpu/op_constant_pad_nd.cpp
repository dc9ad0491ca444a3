// aten::constant_pad_nd.out: out = self padded (or cropped) with a constant.
#include "util/copy_util.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "constant_pad_nd.out";  // the switch name
}  // namespace

/// out = self with pad[2i] elements of `value` before and pad[2i + 1] after
/// its i-th dim from the end (pad has an even length, at most twice self's
/// rank); negative pads crop. Any real, Bool, Half or BFloat16 dtype, out's
/// the same; contiguous; out is resized. `value` must fit the dtype
/// (scalar_fits; a negative integer wraps into Byte).
Tensor& constant_pad_nd_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> pad,
                            const Scalar& value, Tensor& out) {
  const int64_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, pad.size() % 2 == 0 && static_cast<int64_t>(pad.size()) <= 2 * rank, InvalidArgument,
                      out, "%s: %zu pad values for a tensor of rank %" PRId64, kName, pad.size(), rank);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(value, out.scalar_type(), k::NegativeToUnsigned::kWraps), InvalidArgument,
                      out, "%s: value is out of range for %s", kName,
                      ::executorch::runtime::toString(out.scalar_type()));
  k::Shape shape = k::shape_of(self);
  int64_t sizes[k::kMaxDim];   // the box of self that lands in out
  int64_t src_start[k::kMaxDim];
  int64_t dst_start[k::kMaxDim];
  for (int64_t d = 0; d < rank; ++d) {
    const size_t i = static_cast<size_t>(rank - 1 - d);  // pairs count from the last dim
    const int64_t before = 2 * i < pad.size() ? pad[2 * i] : 0;
    const int64_t after = 2 * i < pad.size() ? pad[2 * i + 1] : 0;
    const int64_t in = self.sizes()[d];
    ET_KERNEL_CHECK_MSG(ctx,
                        k::size_like(before < 0 ? -before : before, 0) && k::size_like(after < 0 ? -after : after, 0),
                        InvalidArgument, out, "%s: pad value out of range", kName);
    const int64_t size = in + before + after;
    ET_KERNEL_CHECK_MSG(ctx, k::size_like(size, 0), InvalidArgument, out,
                        "%s: dim %" PRId64 " would have size %" PRId64, kName, d, size);
    shape.sizes[d] = static_cast<::executorch::aten::SizesType>(size);
    src_start[d] = before < 0 ? -before : 0;
    dst_start[d] = before > 0 ? before : 0;
    const int64_t kept = (in - src_start[d]) < (size - dst_start[d]) ? in - src_start[d] : size - dst_start[d];
    sizes[d] = kept > 0 ? kept : 0;
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  k::fill_scalar<kName>(ctx, out, value);
  if (self.numel() == 0 || out.numel() == 0) return out;
  int64_t src_strides[k::kMaxDim];
  int64_t dst_strides[k::kMaxDim];
  k::contiguous_strides_of(self, src_strides);
  k::contiguous_strides_of(out, dst_strides);
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  for (int64_t d = 0; d < rank; ++d) {
    src_offset += src_start[d] * src_strides[d];
    dst_offset += dst_start[d] * dst_strides[d];
  }
  k::CopyPlan plan;
  k::make_copy_plan(sizes, src_strides, dst_strides, static_cast<size_t>(rank), &plan);
  k::move_walk(self.scalar_type(), self.const_data_ptr(), src_offset, out.mutable_data_ptr(), dst_offset, plan);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
