// aten::_native_batch_norm_legit_no_training.out: batch normalisation with
// running statistics (inference).
#include "util/batch_norm_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// out0 = (input - running_mean) / sqrt(running_var + eps) * weight + bias
/// per channel (util/batch_norm_util.h); out1 and out2, the saved statistics,
/// are empty in inference ([0]). momentum is unused.
k::BatchNormOutputs _native_batch_norm_legit_no_training_out(KernelRuntimeContext& ctx, const Tensor& input,
                                                             const std::optional<Tensor>& weight,
                                                             const std::optional<Tensor>& bias,
                                                             const Tensor& running_mean, const Tensor& running_var,
                                                             double momentum, double eps, Tensor& out0, Tensor& out1,
                                                             Tensor& out2) {
  (void)momentum;
  return k::batch_norm_with_running_stats(ctx, "_native_batch_norm_legit_no_training.out", input, weight, bias,
                                          running_mean, running_var, eps, out0, out1, out2);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
