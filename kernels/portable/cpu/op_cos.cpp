// aten::cos.out: out = cos(self), elementwise.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "cos.out";  // the switch name
}  // namespace

/// out = cos(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& cos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, k::scalarwise([](auto x) { return std::cos(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
