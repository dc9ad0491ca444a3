// aten::isinf.out and isnan.out: whether each element is infinite, or NaN.
#include "util/math_util.h"
#include "util/unary_util.h"

#include <cmath>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kIsinfName[] = "isinf.out";  // the switch names
constexpr char kIsnanName[] = "isnan.out";
}  // namespace

/// out (Bool) = whether self is +inf or -inf; integral and Bool values never
/// are (see predicate_unary_out).
Tensor& isinf_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::predicate_unary_out<kIsinfName>(ctx, self, out, [](auto x) {
    if constexpr (std::is_floating_point<decltype(x)>::value) {
      return std::isinf(x);
    } else {
      return false;
    }
  });
}

/// out (Bool) = whether self is NaN; integral and Bool values never are.
Tensor& isnan_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return k::predicate_unary_out<kIsnanName>(ctx, self, out, [](auto x) { return k::is_nan(x); });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
