// aten::amax.out: the maximum along dims.
#include "util/math_util.h"
#include "util/reduce_util.h"

#include <limits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "amax.out";  // the switch name
}  // namespace

/// out = the largest element over `dim` (an empty list: all dims), keeping
/// reduced dims as 1 with keepdim; NaN propagates. Real, Bool, Half and
/// BFloat16 dtypes, out
/// the same; contiguous; a reduction over zero elements fails the call.
Tensor& amax_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim, bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", kName);
  ET_KERNEL_CHECK_MSG(ctx, plan.count > 0 || plan.out.numel() == 0, InvalidArgument, out,
                      "%s: cannot reduce over zero elements", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  if (out.numel() == 0) return out;
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE lowest = k::lowest_value<CTYPE>();
    k::reduce_fold(plan, self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), lowest,
                   [](CTYPE acc, CTYPE x) { return k::nan_maximum(acc, x); });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
