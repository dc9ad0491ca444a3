// aten::ge.Scalar_out: out = self >= other, with a Scalar `other`.
#include "util/compare_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "ge.Scalar_out";  // the switch name
}  // namespace

/// out = whether each element of self is greater than or equal to other (see
/// compare_scalar_out for dtypes and the type compared in).
Tensor& ge_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::compare_scalar_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x >= y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
