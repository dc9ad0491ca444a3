// aten::lt.Scalar_out: out = self < other, with a Scalar `other`.
#include "util/compare_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "lt.Scalar_out";  // the switch name
}  // namespace

/// out = whether each element of self is less than other (see
/// compare_scalar_out for dtypes and the type compared in).
Tensor& lt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::compare_scalar_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x < y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
