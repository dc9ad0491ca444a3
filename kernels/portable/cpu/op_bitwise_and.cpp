// aten::bitwise_and.Tensor_out: out = self & other, elementwise.
#include "util/binary_op_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "bitwise_and.Tensor_out";  // the switch name
}  // namespace

/// out = self & other elementwise, broadcast, in their common dtype:
/// integral and Bool only (see binary_op_out).
Tensor& bitwise_and_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::binary_op_out<kName, k::BinaryResult::kCommon, k::BinaryTypes::kIntegral>(
      ctx, self, other, out, [](auto x, auto y) {
        using T = decltype(x);
        if constexpr (std::is_integral<T>::value) {
          return static_cast<T>(x & y);
        } else {
          return x;  // never reached: floating operands are rejected first
        }
      });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
