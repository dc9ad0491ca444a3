// aten::erf.out: out = erf(self), the error function, elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "erf.out";  // the switch name
}  // namespace

/// out = erf(self), the error function (see float_unary_out: integral and Bool inputs give Float).
Tensor& erf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, k::scalarwise([](auto x) { return std::erf(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
