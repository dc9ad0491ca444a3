// aten::expand_copy.out: out = self broadcast to `size`, materialised.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "expand_copy.out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out = self expanded to `size`: size may add leading dims, and each of
/// self's dims (aligned right) must equal its target or be 1; -1 keeps self's
/// size (not allowed for new leading dims). `implicit` must be false, as in
/// ExecuTorch (only ATen implements the implicit form). Any dtype up to 8
/// bytes wide, copied by width; out is contiguous and resized to `size`.
Tensor& expand_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> size, bool implicit,
                        Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !implicit, InvalidArgument, out, "expand_copy.out: implicit=True is not supported");
  const size_t rank = static_cast<size_t>(self.dim());
  const size_t out_rank = size.size();
  ET_KERNEL_CHECK_MSG(ctx, out_rank >= rank && out_rank <= k::kMaxDim, InvalidArgument, out,
                      "expand_copy.out: size has fewer dims than self");
  ET_KERNEL_CHECK(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::is_contiguous(out), InvalidArgument, out);
  int64_t in_strides[k::kMaxDim];
  k::strides_of(self, in_strides);
  const size_t lead = out_rank - rank;
  k::Shape shape;
  int64_t sizes[k::kMaxDim];
  int64_t strides[k::kMaxDim];
  for (size_t j = 0; j < out_rank; ++j) {
    int64_t target = size[j];
    if (j < lead) {
      ET_KERNEL_CHECK_MSG(ctx, target >= 0, InvalidArgument, out, "expand_copy.out: -1 for a new leading dim");
      strides[j] = 0;
    } else {
      const int64_t have = self.sizes()[j - lead];
      if (target == -1) target = have;
      ET_KERNEL_CHECK_MSG(ctx, target >= 0 && (have == target || have == 1), InvalidArgument, out,
                          "expand_copy.out: cannot expand size %" PRId64 " to %" PRId64, have, target);
      strides[j] = have == target ? in_strides[j - lead] : 0;
    }
    sizes[j] = target;
    ET_KERNEL_CHECK(ctx, shape.push(target), InvalidArgument, out);
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, out_rank, &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
