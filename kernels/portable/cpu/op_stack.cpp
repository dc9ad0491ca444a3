// aten::stack.out: tensors of one shape joined along a new dim.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "stack.out";
}  // namespace

/// out = the tensors (at least one, all of one shape) stacked along a new
/// dim `dim` (in [-rank - 1, rank]), out[..., i, ...] = tensors[i]. Real,
/// Bool, Half or BFloat16, the inputs of any dtypes out's can hold (values
/// converted); out contiguous, resized.
Tensor& stack_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out, "%s: no tensors to stack", kName);
  const Tensor& first = tensors[0];
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, first.dim() + 1, &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  for (const Tensor& t : tensors) {
    ET_KERNEL_CHECK_MSG(ctx, k::same_sizes(t, first), InvalidArgument, out, "%s: tensors of different shapes", kName);
    ET_KERNEL_CHECK_MSG(ctx, k::convertible(t.scalar_type(), out.scalar_type()) &&
                                 k::can_cast(t.scalar_type(), out.scalar_type()) && k::valid_dim_order(t),
                        InvalidArgument, out, "%s: out's dtype cannot hold an input's", kName);
  }
  k::Shape shape = k::shape_of(first);
  ET_KERNEL_CHECK_MSG(ctx, shape.push(0), InvalidArgument, out, "%s: too many dims", kName);
  for (size_t j = shape.ndim - 1; j > static_cast<size_t>(d); --j) shape.sizes[j] = shape.sizes[j - 1];
  shape.sizes[d] = static_cast<::executorch::aten::SizesType>(tensors.size());
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(out) && k::resize_to(out, shape), InvalidArgument, out,
                      "%s: out must be contiguous and take the stacked shape", kName);
  for (size_t i = 0; i < tensors.size(); ++i) {
    k::View dst = k::view_of(out);
    k::view_select(&dst, static_cast<size_t>(d), static_cast<int64_t>(i));
    if (!k::copy_box<kName>(ctx, tensors[i], k::view_of(tensors[i]), out, dst)) return out;
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
