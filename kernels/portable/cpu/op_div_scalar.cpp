// aten::div.Scalar_out: out = self / other, true division by a Scalar.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "div.Scalar_out";  // the switch name
}  // namespace

/// out = self / other, always floating (integral and Bool self give Float);
/// division by zero gives inf or NaN as in IEEE arithmetic.
Tensor& div_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  return k::float_unary_out<kName>(ctx, self, out, [s = k::scalar_to<double>(other)](auto x) {
    using T = decltype(x);
    return x / static_cast<T>(s);
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
