// aten::native_group_norm.out: group normalisation, with the per-group mean
// and reciprocal standard deviation as extra outputs.
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
constexpr char kName[] = "native_group_norm.out";  // the switch name

}  // namespace

/// input [N, C, ...] with N * C * HxW elements split into `group` groups of
/// C / group channels: out0 = (x - mean) * rstd * weight[c] + bias[c], where
/// mean and rstd = 1 / sqrt(var + eps) (biased variance, accumulated in
/// double) are per (n, group) and returned in out1 and out2 ([N, group]).
/// Floating dtypes (Half and BFloat16 computing in float), all tensors alike
/// and contiguous; outputs are resized.
Outputs native_group_norm_out(KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
                              const std::optional<Tensor>& bias, int64_t N, int64_t C, int64_t HxW, int64_t group,
                              double eps, Tensor& out0, Tensor& out1, Tensor& out2) {
  Outputs outs(out0, out1, out2);
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, input.dim() >= 2 && input.sizes()[0] == N && input.sizes()[1] == C &&
                               input.numel() == N * C * HxW && group > 0 && C % group == 0,
                      InvalidArgument, outs, "%s: input is not [N, C, ...] with C divisible into %" PRId64 " groups",
                      kName, group);
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_floating(dtype) && out0.scalar_type() == dtype && out1.scalar_type() == dtype &&
                          out2.scalar_type() == dtype && k::channel_param_ok(weight, C, dtype) &&
                          k::channel_param_ok(bias, C, dtype),
                      InvalidArgument, outs, "%s: weight and bias must be [C] and all tensors of one floating dtype",
                      kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(input) && k::is_contiguous(out0), InvalidArgument, outs);
  const ::executorch::aten::SizesType stats[2] = {static_cast<::executorch::aten::SizesType>(N),
                                                  static_cast<::executorch::aten::SizesType>(group)};
  ET_KERNEL_CHECK(ctx,
                  k::resize_to(out0, input.sizes()) && k::resize_to(out1, {stats, 2}) && k::resize_to(out2, {stats, 2}),
                  InvalidArgument, outs);
  const int64_t per_group = C / group;
  const int64_t count = per_group * HxW;
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* x = input.const_data_ptr<CTYPE>();
    CTYPE* y = out0.mutable_data_ptr<CTYPE>();
    CTYPE* means = out1.mutable_data_ptr<CTYPE>();
    CTYPE* rstds = out2.mutable_data_ptr<CTYPE>();
    const CTYPE* w = weight.has_value() ? weight->const_data_ptr<CTYPE>() : nullptr;
    const CTYPE* b = bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr;
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t g = 0; g < group; ++g) {
        const int64_t base = (n * C + g * per_group) * HxW;
        double sum = 0;
        for (int64_t i = 0; i < count; ++i) sum += static_cast<double>(x[base + i]);
        const double mean = count > 0 ? sum / static_cast<double>(count) : 0.0;
        double squares = 0;
        for (int64_t i = 0; i < count; ++i) {
          const double delta = static_cast<double>(x[base + i]) - mean;
          squares += delta * delta;
        }
        const double var = count > 0 ? squares / static_cast<double>(count) : 0.0;
        const CT rstd = static_cast<CT>(1.0 / std::sqrt(var + eps));
        means[n * group + g] = static_cast<CTYPE>(mean);
        rstds[n * group + g] = static_cast<CTYPE>(rstd);
        for (int64_t c = 0; c < per_group; ++c) {
          const int64_t channel = g * per_group + c;
          const CT scale = w != nullptr ? rstd * static_cast<CT>(w[channel]) : rstd;
          const CT shift = (b != nullptr ? static_cast<CT>(b[channel]) : CT(0)) - static_cast<CT>(mean) * scale;
          const int64_t at = base + c * HxW;
          k::map_unary(x + at, y + at, HxW,
                       [scale, shift](CTYPE v) { return static_cast<CTYPE>(static_cast<CT>(v) * scale + shift); });
        }
      }
    }
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
