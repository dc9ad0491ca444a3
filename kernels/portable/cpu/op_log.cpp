// aten::log.out: out = log(self), the natural logarithm, elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "log.out";  // the switch name
}  // namespace

/// out = log(self), the natural logarithm (see float_unary_out: integral and Bool inputs give Float).
Tensor& log_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, k::scalarwise([](auto x) { return std::log(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
