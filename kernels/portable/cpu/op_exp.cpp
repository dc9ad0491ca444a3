// aten::exp.out: out = exp(self), elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "exp.out";  // the switch name
}  // namespace

/// out = exp(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& exp_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, k::scalarwise([](auto x) { return std::exp(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
