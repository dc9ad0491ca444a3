// dim_order_ops::_empty_dim_order.out: empty.out for programs lowered with
// the dim-order ops: a tensor of a given shape in a given dim order, its
// contents unspecified.
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

// The switch name: the operator without its namespace (gen-op-variants' spelling).
constexpr char kName[] = "_empty_dim_order.out";

/// Whether `order` is the contiguous order 0..n-1 or, for 4 dims, the
/// channels-last order 0, 2, 3, 1 (the two layouts ExecuTorch plans).
bool is_planned_order(ArrayRef<int64_t> order) {
  static constexpr int64_t kChannelsLast[4] = {0, 2, 3, 1};
  bool contiguous = true;
  bool channels_last = order.size() == 4;
  for (size_t d = 0; d < order.size(); ++d) {
    contiguous = contiguous && order[d] == static_cast<int64_t>(d);
    channels_last = channels_last && order[d] == kChannelsLast[d];
  }
  return contiguous || channels_last;
}

}  // namespace

/// out resized to `size`, its elements left as they are (any dtype). out must
/// already carry `dim_order` (contiguous or channels-last, one entry per dim
/// of size) or, when none is given, be contiguous.
Tensor& _empty_dim_order_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size,
                             std::optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  if (dim_order.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, dim_order->size() == size.size() && is_planned_order(*dim_order), InvalidArgument,
                        out, "%s: dim_order must be contiguous or channels-last, one entry per dim of size", kName);
    ET_KERNEL_CHECK_MSG(ctx, k::dim_order_matches(out, dim_order, out), InvalidArgument, out,
                        "%s: out does not have the requested dim order", kName);
  } else {
    ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(out), InvalidArgument, out,
                        "%s: out must be contiguous when no dim_order is given", kName);
  }
  k::resize_to_size_list<kName>(ctx, size, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
