// aten::clamp.Tensor_out: out = self clamped between tensors min and max.
#include "util/binary_op_util.h"
#include "util/clamp_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "clamp.Tensor_out";  // the switch name
}  // namespace

/// out = min(max(self, min), max) elementwise with min and max optional
/// tensors (not both absent), all broadcast together, in ATen's common dtype
/// of the three (real, Bool, Half and BFloat16; NaN propagates, max wins
/// where min > max).
/// Three tensors of out's dtype take a typed loop; others convert per
/// element. out is resized to the broadcast shape.
Tensor& clamp_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, min.has_value() || max.has_value(), InvalidArgument, out,
                      "%s: at least one of min and max must be given", kName);
  // An absent bound is stood in for by self: it broadcasts, and is never read as a bound.
  const Tensor& low = min.has_value() ? *min : self;
  const Tensor& high = max.has_value() ? *max : self;
  const bool supported = k::is_realhbbf16(self.scalar_type()) && k::is_realhbbf16(low.scalar_type()) &&
                         k::is_realhbbf16(high.scalar_type()) && k::is_realhbbf16(out.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, supported, InvalidArgument, out, "%s: unsupported dtype", kName);
  const Tensor* operands[3] = {&self, &low, &high};
  const ScalarType result = k::result_type(operands, 3);
  ET_KERNEL_CHECK_MSG(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out,
                      "%s: out cannot hold the result", kName);
  k::Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, k::broadcast_shape(self, low, high, &shape), InvalidArgument, out,
                      "%s: shapes do not broadcast", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const Tensor* tensors[4] = {&self, &low, &high, &out};
  ET_KERNEL_CHECK(ctx, k::elementwise_layout_ok(tensors, 4), InvalidArgument, out);
  const bool has_low = min.has_value();
  const bool has_high = max.has_value();
  const ScalarType t = out.scalar_type();
  if (self.scalar_type() == t && low.scalar_type() == t && high.scalar_type() == t) {
    ET_SWITCH_REALHBBF16_TYPES(t, ctx, kName, CTYPE, [&]() {
      const CTYPE* x = self.const_data_ptr<CTYPE>();
      const CTYPE* lo = low.const_data_ptr<CTYPE>();
      const CTYPE* hi = high.const_data_ptr<CTYPE>();
      CTYPE* y = out.mutable_data_ptr<CTYPE>();
      k::for_each_ternary(self, low, high, out, [&](int64_t i, int64_t ix, int64_t il, int64_t ih) {
        y[i] = k::clamp_value(x[ix], has_low, lo[il], has_high, hi[ih]);
      });
    });
    return out;
  }
  k::with_compute_type<kName>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    const k::LoadFn<CT> lx = k::loader_for<CT, kName>(self.scalar_type(), ctx);
    const k::LoadFn<CT> ll = k::loader_for<CT, kName>(low.scalar_type(), ctx);
    const k::LoadFn<CT> lh = k::loader_for<CT, kName>(high.scalar_type(), ctx);
    const k::StoreFn<CT> st = k::storer_for<CT, kName>(t, ctx);
    if (lx == nullptr || ll == nullptr || lh == nullptr || st == nullptr) return;  // ctx already failed
    const void* x = self.const_data_ptr();
    const void* lo = low.const_data_ptr();
    const void* hi = high.const_data_ptr();
    void* y = out.mutable_data_ptr();
    k::for_each_ternary(self, low, high, out, [&](int64_t i, int64_t ix, int64_t il, int64_t ih) {
      st(y, i, k::clamp_value(lx(x, ix), has_low, ll(lo, il), has_high, lh(hi, ih)));
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
