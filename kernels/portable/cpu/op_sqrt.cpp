// aten::sqrt.out: out = sqrt(self), elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "sqrt.out";  // the switch name
}  // namespace

/// out = sqrt(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& sqrt_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, [](auto x) { return std::sqrt(x); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
