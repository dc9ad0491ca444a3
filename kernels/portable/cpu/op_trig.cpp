// aten::tan.out, acos.out, asin.out, atan.out: trigonometric functions and their
// inverses (radians), elementwise, into a floating out.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kTanName[] = "tan.out";  // the switch names
constexpr char kAcosName[] = "acos.out";
constexpr char kAsinName[] = "asin.out";
constexpr char kAtanName[] = "atan.out";
}  // namespace

/// out = tan(self), self in radians (see float_unary_out: integral and Bool inputs give Float).
Tensor& tan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kTanName>(ctx, self, out, k::scalarwise([](auto x) { return std::tan(x); }));
}

/// out = acos(self) in [0, pi]; NaN outside [-1, 1] (see float_unary_out: integral and Bool inputs give Float).
Tensor& acos_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAcosName>(ctx, self, out, k::scalarwise([](auto x) { return std::acos(x); }));
}

/// out = asin(self) in [-pi/2, pi/2]; NaN outside [-1, 1] (see float_unary_out: integral and Bool inputs give Float).
Tensor& asin_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAsinName>(ctx, self, out, k::scalarwise([](auto x) { return std::asin(x); }));
}

/// out = atan(self) in (-pi/2, pi/2) (see float_unary_out: integral and Bool inputs give Float).
Tensor& atan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAtanName>(ctx, self, out, k::scalarwise([](auto x) { return std::atan(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
