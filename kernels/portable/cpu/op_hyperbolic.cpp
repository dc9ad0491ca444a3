// aten::cosh.out, sinh.out, acosh.out, asinh.out, atanh.out: hyperbolic
// functions and their inverses, elementwise, into a floating out.
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kCoshName[] = "cosh.out";  // the switch names
constexpr char kSinhName[] = "sinh.out";
constexpr char kAcoshName[] = "acosh.out";
constexpr char kAsinhName[] = "asinh.out";
constexpr char kAtanhName[] = "atanh.out";
}  // namespace

/// out = cosh(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& cosh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kCoshName>(ctx, self, out, k::scalarwise([](auto x) { return std::cosh(x); }));
}

/// out = sinh(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& sinh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kSinhName>(ctx, self, out, k::scalarwise([](auto x) { return std::sinh(x); }));
}

/// out = acosh(self); NaN below 1 (see float_unary_out: integral and Bool inputs give Float).
Tensor& acosh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAcoshName>(ctx, self, out, k::scalarwise([](auto x) { return std::acosh(x); }));
}

/// out = asinh(self) (see float_unary_out: integral and Bool inputs give Float).
Tensor& asinh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAsinhName>(ctx, self, out, k::scalarwise([](auto x) { return std::asinh(x); }));
}

/// out = atanh(self); +-inf at +-1, NaN outside [-1, 1] (see float_unary_out: integral and Bool inputs give Float).
Tensor& atanh_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kAtanhName>(ctx, self, out, k::scalarwise([](auto x) { return std::atanh(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
