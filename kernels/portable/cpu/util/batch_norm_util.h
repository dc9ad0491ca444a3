// Batch normalisation with given statistics, shared by the inference kernel
// (_native_batch_norm_legit_no_training) and the training kernel's
// not-training path (_native_batch_norm_legit with training=false), so that
// neither kernel calls the other: each switches under its own name, which a
// dtype-selective build keeps or drops with that operator.
#pragma once

#include "unary_util.h"

#include <cmath>
#include <optional>
#include <tuple>

namespace etsb {
namespace kernels {

using BatchNormOutputs = std::tuple<::executorch::aten::Tensor&, ::executorch::aten::Tensor&,
                                    ::executorch::aten::Tensor&>;

/// out0 = (input - running_mean) / sqrt(running_var + eps) * weight + bias
/// per channel (dim 1 of a [N, C, ...] input; weight and bias optional),
/// computed as input * a + b with a and b folded once per channel, as ATen
/// does. Floating dtypes (Half and BFloat16 in float), all tensors alike and
/// contiguous; out0 is resized to input's shape, out1 and out2 (the saved
/// statistics, empty when not training) to [0]. `name` is the calling
/// operator's switch name.
inline BatchNormOutputs batch_norm_with_running_stats(
    KernelRuntimeContext& ctx, const char* name, const ::executorch::aten::Tensor& input,
    const std::optional<::executorch::aten::Tensor>& weight, const std::optional<::executorch::aten::Tensor>& bias,
    const ::executorch::aten::Tensor& running_mean, const ::executorch::aten::Tensor& running_var, double eps,
    ::executorch::aten::Tensor& out0, ::executorch::aten::Tensor& out1, ::executorch::aten::Tensor& out2) {
  BatchNormOutputs outs(out0, out1, out2);
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2, InvalidArgument, outs, "%s: input must have at least 2 dims", name);
  const int64_t channels = input.sizes()[1];
  ET_KERNEL_CHECK_MSG(ctx,
                      is_floating(dtype) && out0.scalar_type() == dtype && channel_param_ok(weight, channels, dtype) &&
                          channel_param_ok(bias, channels, dtype) && channel_param_ok(running_mean, channels, dtype) &&
                          channel_param_ok(running_var, channels, dtype),
                      InvalidArgument, outs,
                      "%s: weight, bias, running_mean and running_var must be [C] of the input's floating dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(input) && is_contiguous(out0), InvalidArgument, outs,
                      "%s: input and out must be contiguous", name);
  const ::executorch::aten::SizesType empty[1] = {0};
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out0, input.sizes()) && resize_to(out1, {empty, 1}) && resize_to(out2, {empty, 1}),
                      InvalidArgument, outs, "%s: cannot resize the outputs", name);
  const int64_t batch = input.sizes()[0];
  const int64_t inner = size_product(input.sizes(), 2, input.dim());
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, name, CTYPE, [&]() {
    using CT = float_compute_t<CTYPE>;
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
        map_unary(x + base, y + base, inner,
                  [scale, shift](CTYPE v) { return static_cast<CTYPE>(static_cast<CT>(v) * scale + shift); });
      }
    }
  });
  return outs;
}

}  // namespace kernels
}  // namespace etsb
