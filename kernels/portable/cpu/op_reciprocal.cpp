// aten::reciprocal.out: out = 1 / self, elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "reciprocal.out";  // the switch name
}  // namespace

/// out = 1 / self (see float_unary_out: integral and Bool inputs give Float).
Tensor& reciprocal_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, [](auto x) { return decltype(x)(1) / x; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
