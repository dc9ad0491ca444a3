// dim_order_ops::_clone_dim_order.out: a copy of self, laid out in a given
// dim order.
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
constexpr char kName[] = "_clone_dim_order.out";
}  // namespace

/// out = self in `dim_order` (self's when none is given; out must already
/// carry that order). Any dtype, copied by width; out has self's dtype and is
/// resized to its shape. Only blocking copies (non_blocking false), as in
/// ExecuTorch.
Tensor& _clone_dim_order_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                             std::optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !non_blocking, InvalidArgument, out, "%s: only blocking copies are supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::valid_dim_order(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, k::dim_order_matches(self, dim_order, out), InvalidArgument, out,
                      "%s: out does not have the requested dim order", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.numel() == 0) return out;
  k::CopyPlan plan;
  k::plan_in_out_order(self, out, &plan);
  ET_KERNEL_CHECK_MSG(ctx, k::strided_move(self, out, plan), InvalidArgument, out, "%s: unsupported dtype", kName);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
