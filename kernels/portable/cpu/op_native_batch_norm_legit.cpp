// aten::_native_batch_norm_legit.out and .no_stats_out: batch normalisation
// with the batch's own statistics (training), returning them, and updating
// the running statistics when there are some.
#include "util/batch_norm_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

using k::BatchNormOutputs;

namespace {

constexpr char kName[] = "_native_batch_norm_legit.out";  // the switch name
constexpr char kNoStats[] = "_native_batch_norm_legit.no_stats_out";

/// What one training call normalises with and writes to.
struct TrainingArgs {
  const Tensor& input;
  const std::optional<Tensor>& weight;
  const std::optional<Tensor>& bias;
  Tensor* running_mean;  // null: no running statistics to update
  Tensor* running_var;
  double momentum;
  double eps;
};

/// Per channel c of a [N, C, ...] input: the batch mean and biased variance
/// (two passes, in float or double), save_mean[c] = mean, save_invstd[c] =
/// 1 / sqrt(var + eps), out = (input - mean) * invstd * weight + bias, and
/// running = (1 - momentum) * running + momentum * batch (the variance
/// unbiased), as ATen does. Checked by the callers.
template <typename CTYPE>
void normalise_with_batch_stats(const TrainingArgs& a, Tensor& out, Tensor& save_mean, Tensor& save_invstd) {
  using CT = k::float_compute_t<CTYPE>;
  const int64_t batch = a.input.size(0), channels = a.input.size(1);
  const int64_t inner = k::size_product(a.input.sizes(), 2, a.input.dim());
  const int64_t count = batch * inner;
  const CTYPE* x = a.input.const_data_ptr<CTYPE>();
  CTYPE* y = out.mutable_data_ptr<CTYPE>();
  for (int64_t c = 0; c < channels; ++c) {
    CT sum = 0;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < inner; ++i) sum += static_cast<CT>(x[(n * channels + c) * inner + i]);
    }
    const CT mean = count > 0 ? sum / static_cast<CT>(count) : CT(0);
    CT squares = 0;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < inner; ++i) {
        const CT d = static_cast<CT>(x[(n * channels + c) * inner + i]) - mean;
        squares += d * d;
      }
    }
    const CT var = count > 0 ? squares / static_cast<CT>(count) : CT(0);
    const CT invstd = CT(1) / std::sqrt(var + static_cast<CT>(a.eps));
    save_mean.mutable_data_ptr<CTYPE>()[c] = static_cast<CTYPE>(mean);
    save_invstd.mutable_data_ptr<CTYPE>()[c] = static_cast<CTYPE>(invstd);
    const CT w = a.weight.has_value() ? static_cast<CT>(a.weight->const_data_ptr<CTYPE>()[c]) : CT(1);
    const CT b = a.bias.has_value() ? static_cast<CT>(a.bias->const_data_ptr<CTYPE>()[c]) : CT(0);
    const CT scale = invstd * w, shift = b - mean * scale;
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t base = (n * channels + c) * inner;
      k::map_unary(x + base, y + base, inner,
                   [scale, shift](CTYPE v) { return static_cast<CTYPE>(static_cast<CT>(v) * scale + shift); });
    }
    if (a.running_mean != nullptr) {
      const CT m = static_cast<CT>(a.momentum);
      const CT unbiased = count > 1 ? squares / static_cast<CT>(count - 1) : var;
      CTYPE* rm = a.running_mean->mutable_data_ptr<CTYPE>();
      CTYPE* rv = a.running_var->mutable_data_ptr<CTYPE>();
      rm[c] = static_cast<CTYPE>((1 - m) * static_cast<CT>(rm[c]) + m * mean);
      rv[c] = static_cast<CTYPE>((1 - m) * static_cast<CT>(rv[c]) + m * unbiased);
    }
  }
}

/// The training path of both overloads: checks (floating dtypes, all alike,
/// contiguous, [C] parameters), resizes out to input's shape and the saved
/// statistics to [C], then normalises. `name` names the overload in logs.
BatchNormOutputs train(KernelRuntimeContext& ctx, const char* name, const TrainingArgs& a, Tensor& out,
                       Tensor& save_mean, Tensor& save_invstd) {
  BatchNormOutputs outs(out, save_mean, save_invstd);
  const auto dtype = a.input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, a.input.dim() >= 2, InvalidArgument, outs, "%s: input must have at least 2 dims", name);
  const int64_t channels = a.input.size(1);
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_floating(dtype) && out.scalar_type() == dtype && save_mean.scalar_type() == dtype &&
                          save_invstd.scalar_type() == dtype && k::channel_param_ok(a.weight, channels, dtype) &&
                          k::channel_param_ok(a.bias, channels, dtype) &&
                          k::channel_param_ok(a.running_mean, channels, dtype) &&
                          k::channel_param_ok(a.running_var, channels, dtype),
                      InvalidArgument, outs,
                      "%s: outputs and [C] parameters must have the input's floating dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(a.input) && k::is_contiguous(out), InvalidArgument, outs,
                      "%s: input and out must be contiguous", name);
  const ::executorch::aten::SizesType stats[1] = {static_cast<::executorch::aten::SizesType>(channels)};
  ET_KERNEL_CHECK_MSG(ctx,
                      k::resize_to(out, a.input.sizes()) && k::resize_to(save_mean, {stats, 1}) &&
                          k::resize_to(save_invstd, {stats, 1}),
                      InvalidArgument, outs, "%s: cannot resize the outputs", name);
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, name, CTYPE,
                             [&]() { normalise_with_batch_stats<CTYPE>(a, out, save_mean, save_invstd); });
  return outs;
}

}  // namespace

/// training: normalise with the batch's statistics, return them (save_mean,
/// save_invstd: [C]) and update running_mean and running_var in place with
/// `momentum`. Not training: the running statistics normalise, as
/// _native_batch_norm_legit_no_training does (saved statistics empty, [0]).
/// Floating dtypes (Half and BFloat16 computed in float), all alike.
BatchNormOutputs _native_batch_norm_legit_out(KernelRuntimeContext& ctx, const Tensor& input,
                                              const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                                              Tensor& running_mean, Tensor& running_var, bool training,
                                              double momentum, double eps, Tensor& out, Tensor& save_mean,
                                              Tensor& save_invstd) {
  if (!training) {
    return k::batch_norm_with_running_stats(ctx, kName, input, weight, bias, running_mean, running_var, eps, out,
                                            save_mean, save_invstd);
  }
  return train(ctx, kName, {input, weight, bias, &running_mean, &running_var, momentum, eps}, out, save_mean,
               save_invstd);
}

/// Normalise with the batch's statistics and return them (save_mean,
/// save_invstd: [C]); there are no running statistics, so `training` and
/// `momentum` change nothing (as in ExecuTorch's kernel).
BatchNormOutputs _native_batch_norm_legit_no_stats_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                       const std::optional<Tensor>& weight,
                                                       const std::optional<Tensor>& bias, bool training,
                                                       double momentum, double eps, Tensor& out, Tensor& save_mean,
                                                       Tensor& save_invstd) {
  (void)training;
  return train(ctx, kNoStats, {input, weight, bias, nullptr, nullptr, momentum, eps}, out, save_mean, save_invstd);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
