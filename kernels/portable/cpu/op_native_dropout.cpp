// aten::native_dropout.out: dropout in training, with the mask it drew.
#include "util/random_util.h"

#include <cstring>
#include <optional>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
using Outputs = std::tuple<Tensor&, Tensor&>;
constexpr char kName[] = "native_dropout.out";  // the switch name
}  // namespace

/// In training (train true or absent) with p > 0: mask[i] = (draw i of the
/// library's stream, uniform in [0, 1)) >= p, out[i] = mask[i] ? input[i] /
/// (1 - p) : 0, as ATen scales (so p = 1 gives zeros and an all-false mask).
/// Otherwise (train false, or p = 0) out = input exactly and mask all true,
/// in any dtype (as torch allows). Training takes a floating input (Half and
/// BFloat16 in float); out has input's dtype, mask is Bool, all of one dim
/// order; p in [0, 1].
Outputs native_dropout_out(KernelRuntimeContext& ctx, const Tensor& input, double p, std::optional<bool> train,
                           Tensor& out, Tensor& mask) {
  Outputs outs(out, mask);
  ET_KERNEL_CHECK_MSG(ctx, p >= 0 && p <= 1, InvalidArgument, outs, "%s: p must be in [0, 1], got %f", kName, p);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == input.scalar_type() && mask.scalar_type() == ScalarType::Bool,
                      InvalidArgument, outs, "%s: out must have input's dtype, mask must be Bool", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::same_dim_order(input, out) && k::same_dim_order(input, mask), InvalidArgument, outs,
                      "%s: input, out and mask must share a dim order", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, input.sizes()) && k::resize_to(mask, input.sizes()), InvalidArgument,
                      outs, "%s: cannot resize out and mask to input's shape", kName);
  const int64_t n = input.numel();
  bool* keep = mask.mutable_data_ptr<bool>();
  if ((train.has_value() && !*train) || p == 0) {
    if (n > 0) std::memcpy(out.mutable_data_ptr(), input.const_data_ptr(), input.nbytes());
    for (int64_t i = 0; i < n; ++i) keep[i] = true;
    return outs;
  }
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(input.scalar_type()), InvalidArgument, outs,
                      "%s: training needs a floating input", kName);
  ET_SWITCH_FLOATHBF16_TYPES(input.scalar_type(), ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* x = input.const_data_ptr<CTYPE>();
    CTYPE* y = out.mutable_data_ptr<CTYPE>();
    const CT scale = p < 1 ? static_cast<CT>(1.0 / (1.0 - p)) : CT(0);
    const uint64_t first = k::reserve_draws(static_cast<uint64_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      keep[i] = k::uniform_draw<double>(first + i) >= p;
      y[i] = keep[i] ? static_cast<CTYPE>(static_cast<CT>(x[i]) * scale) : static_cast<CTYPE>(0);
    }
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
