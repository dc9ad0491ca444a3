// aten::sigmoid.out: out = 1 / (1 + exp(-self)), elementwise.
#include "util/sigmoid_f32.h"
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "sigmoid.out";  // the switch name
}  // namespace

/// out = 1 / (1 + exp(-self)) (see float_unary_out: integral and Bool inputs give Float).
Tensor& sigmoid_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out,
                                   [](auto x) { return decltype(x)(1) / (decltype(x)(1) + k::fast_exp(-x)); },
                                   k::sigmoid_f32);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
