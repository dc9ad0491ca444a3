// dim_order_ops::_to_dim_order_copy.out: copy with a dtype conversion and/or a
// change of dim order (memory layout).
#include "util/copy_util.h"
#include "util/elementwise_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

// The switch name: the operator without its namespace, as gen-op-variants
// spells it for dtype-selective builds.
constexpr char kName[] = "_to_dim_order_copy.out";

}  // namespace

/// out = self converted to out's dtype, laid out in `dim_order` (self's dim
/// order when none is given; out must already carry that order). Any of the
/// real, Bool, Half and BFloat16 dtypes on either side; out is resized to
/// self's shape. Only blocking copies (non_blocking false), as in ExecuTorch.
/// Same dtype: a copy by element width; same layout: one typed conversion
/// loop per (input, output) dtype pair, from nested ET_SWITCHes that a
/// dtype-selective build trims; both differing: a per-element conversion.
Tensor& _to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                              std::optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !non_blocking, InvalidArgument, out, "%s: only blocking copies are supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && k::is_realhbbf16(out.scalar_type()),
                      InvalidArgument, out, "%s: unsupported dtype", kName);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::valid_dim_order(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, k::dim_order_matches(self, dim_order, out), InvalidArgument, out,
                      "%s: out does not have the requested dim order", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  const int64_t n = self.numel();
  if (n == 0) return out;
  const bool same_layout = k::same_dim_order(self, out);
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();

  if (in_type == out_type) {
    k::CopyPlan plan;
    k::plan_in_out_order(self, out, &plan);
    k::strided_move(self, out, plan);
    return out;
  }
  if (same_layout) {
    ET_SWITCH_REALHBBF16_TYPES(in_type, ctx, kName, IN, [&]() {
      ET_SWITCH_REALHBBF16_TYPES(out_type, ctx, kName, OUT, [&]() {
        k::map_unary(self.const_data_ptr<IN>(), out.mutable_data_ptr<OUT>(), n,
                     [](IN x) { return static_cast<OUT>(x); });
      });
    });
    return out;
  }
  // Both differ: convert through int64_t when both sides are integral (exact),
  // through double otherwise.
  const bool integral = !k::is_floating(in_type) && !k::is_floating(out_type);
  const auto convert = [&](auto tag) {
    using CT = decltype(tag);
    const k::LoadFn<CT> load = k::loader_for<CT, kName>(in_type, ctx);
    const k::StoreFn<CT> store = k::storer_for<CT, kName>(out_type, ctx);
    if (load == nullptr || store == nullptr) return;
    const auto order = out.dim_order();
    int64_t self_strides[k::kMaxDim];
    k::strides_of(self, self_strides);
    int64_t index[k::kMaxDim] = {0};
    int64_t offset = 0;
    const void* src = self.const_data_ptr();
    void* dst = out.mutable_data_ptr();
    for (int64_t i = 0; i < n; ++i) {  // i walks out's memory; offset follows self
      store(dst, i, load(src, offset));
      for (size_t j = order.size(); j-- > 0;) {
        const size_t d = order[j];
        offset += self_strides[d];
        if (++index[d] < self.sizes()[d]) break;
        offset -= self_strides[d] * self.sizes()[d];
        index[d] = 0;
      }
    }
  };
  if (integral) {
    convert(int64_t{});
  } else {
    convert(double{});
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
