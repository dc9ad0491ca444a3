// aten::_native_batch_norm_legit_no_training.out: batch normalisation with
// running statistics (inference).
#include "util/unary_util.h"

#include <cmath>
#include <optional>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&, Tensor&>;
constexpr char kName[] = "_native_batch_norm_legit_no_training.out";  // the switch name

}  // namespace

/// out0 = (input - running_mean) / sqrt(running_var + eps) * weight + bias
/// per channel (dim 1 of a [N, C, ...] input; weight and bias optional),
/// computed as input * a + b with a and b folded once per channel, as ATen
/// does. Floating dtypes (Half and BFloat16 in float), all tensors alike and
/// contiguous; out0 is resized to input's shape, out1 and out2 (the saved
/// statistics, empty in inference) to [0]. momentum is unused.
Outputs _native_batch_norm_legit_no_training_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                 const std::optional<Tensor>& weight,
                                                 const std::optional<Tensor>& bias, const Tensor& running_mean,
                                                 const Tensor& running_var, double momentum, double eps, Tensor& out0,
                                                 Tensor& out1, Tensor& out2) {
  (void)momentum;
  Outputs outs(out0, out1, out2);
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, outs, "%s: input must have at least 2 dims", kName);
  const int64_t channels = input.sizes()[1];
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_floating(dtype) && out0.scalar_type() == dtype &&
                          k::channel_param_ok(weight, channels, dtype) && k::channel_param_ok(bias, channels, dtype) &&
                          k::channel_param_ok(running_mean, channels, dtype) &&
                          k::channel_param_ok(running_var, channels, dtype),
                      InvalidArgument, outs,
                      "%s: weight, bias, running_mean and running_var must be [C] of the input's floating dtype",
                      kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(input) && k::is_contiguous(out0), InvalidArgument, outs);
  const ::executorch::aten::SizesType empty[1] = {0};
  ET_KERNEL_CHECK(ctx,
                  k::resize_to(out0, input.sizes()) && k::resize_to(out1, {empty, 1}) &&
                      k::resize_to(out2, {empty, 1}),
                  InvalidArgument, outs);
  const int64_t batch = input.sizes()[0];
  const int64_t inner = k::size_product(input.sizes(), 2, input.dim());
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* x = input.const_data_ptr<CTYPE>();
    CTYPE* y = out0.mutable_data_ptr<CTYPE>();
    const CTYPE* w = weight.has_value() ? weight->const_data_ptr<CTYPE>() : nullptr;
    const CTYPE* b = bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr;
    const CTYPE* mean = running_mean.const_data_ptr<CTYPE>();
    const CTYPE* var = running_var.const_data_ptr<CTYPE>();
    for (int64_t c = 0; c < channels; ++c) {
      const CT invstd = static_cast<CT>(1) / std::sqrt(static_cast<CT>(var[c]) + static_cast<CT>(eps));
      const CT scale = w != nullptr ? invstd * static_cast<CT>(w[c]) : invstd;
      const CT shift = (b != nullptr ? static_cast<CT>(b[c]) : CT(0)) - static_cast<CT>(mean[c]) * scale;
      for (int64_t n = 0; n < batch; ++n) {
        const int64_t base = (n * channels + c) * inner;
        k::map_unary(x + base, y + base, inner,
                     [scale, shift](CTYPE v) { return static_cast<CTYPE>(static_cast<CT>(v) * scale + shift); });
      }
    }
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
