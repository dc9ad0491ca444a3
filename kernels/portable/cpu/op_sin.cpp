// aten::sin.out: out = sin(self), elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "sin.out";  // the switch name
}  // namespace

/// out = sin(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& sin_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, k::scalarwise([](auto x) { return std::sin(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
