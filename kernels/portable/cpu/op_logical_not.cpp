// aten::logical_not.out: out = !bool(self), elementwise.
#include "util/compare_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "logical_not.out";  // the switch name
}  // namespace

/// out = whether each element of self is zero: self == 0 (see
/// compare_scalar_out for dtypes; out may be Bool or any other dtype).
Tensor& logical_not_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::compare_scalar_out<kName>(ctx, self, Scalar(static_cast<int64_t>(0)), out,
                                      [](auto x, auto y) { return x == y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
