// aten::expm1.out, log1p.out, log2.out, log10.out: exponential and
// logarithms, elementwise, into a floating out (expm1 and log1p exact near 0).
#include "util/unary_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kExpm1Name[] = "expm1.out";  // the switch names
constexpr char kLog1pName[] = "log1p.out";
constexpr char kLog2Name[] = "log2.out";
constexpr char kLog10Name[] = "log10.out";
}  // namespace

/// out = exp(self) - 1, without cancellation for small self (see float_unary_out: integral and Bool inputs give Float).
Tensor& expm1_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kExpm1Name>(ctx, self, out, k::scalarwise([](auto x) { return std::expm1(x); }));
}

/// out = log(1 + self), without cancellation for small self (see float_unary_out: integral and Bool inputs give Float).
Tensor& log1p_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kLog1pName>(ctx, self, out, k::scalarwise([](auto x) { return std::log1p(x); }));
}

/// out = the base-2 logarithm of self (see float_unary_out: integral and Bool inputs give Float).
Tensor& log2_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kLog2Name>(ctx, self, out, k::scalarwise([](auto x) { return std::log2(x); }));
}

/// out = the base-10 logarithm of self (see float_unary_out: integral and Bool inputs give Float).
Tensor& log10_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::float_unary_out<kLog10Name>(ctx, self, out, k::scalarwise([](auto x) { return std::log10(x); }));
}

}  // namespace native
}  // namespace executor
}  // namespace torch
