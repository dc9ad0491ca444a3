// aten::logical_or.out: out = bool(self) || bool(other), elementwise.
#include "util/logical_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "logical_or.out";  // the switch name
}  // namespace

/// out = whether either of self and other are non-zero, with broadcasting
/// (see logical_binary_out for dtypes).
Tensor& logical_or_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  return k::logical_binary_out<kName>(ctx, self, other, out, [](bool x, bool y) { return x || y; });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
