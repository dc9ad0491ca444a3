// aten::_log_softmax.out: out = self - max - log(sum(exp(self - max))) along a dim.
#include "util/softmax_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "_log_softmax.out";  // the switch name
}  // namespace

/// Log-softmax of self along `dim` (see k::softmax_out for dtypes and checks).
Tensor& log_softmax_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool half_to_float,
                        Tensor& out) {
  return k::softmax_out<true, kName>(ctx, self, dim, half_to_float, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
