// aten::atan2.out: out = atan2(self, other), the angle of the point (other,
// self), elementwise with broadcasting.
#include "util/binary_op_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "atan2.out";  // the switch name
}  // namespace

/// out = atan2(self, other) in [-pi, pi], broadcast; integral and Bool
/// operands give Float (see float_binary_out).
Tensor& atan2_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::float_binary_out<kName>(ctx, self, other, out,
                                    k::scalarwise([](auto y, auto x) { return std::atan2(y, x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
