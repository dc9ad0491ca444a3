// aten::tanh.out: out = tanh(self), elementwise.
#include "util/fast_math.h"
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "tanh.out";  // the switch name
}  // namespace

/// out = tanh(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& tanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, [](auto x) { return std::tanh(x); }, k::tanh_loop_f32);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
