// aten::div.out: out = self / other (true division), elementwise with broadcasting.
#include "util/binary_op_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "div.out";
}  // namespace

/// out = self / other, always true (floating) division as in ATen: integral
/// or Bool operands divide as doubles, and out must be floating. Broadcasting
/// (e.g. by a 0-dim tensor), out resized to the broadcast shape. Division by
/// zero gives inf or nan, never an error.
Tensor& div_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  ScalarType result;
  if (!k::prepare_binary(ctx, kName, self, other, out, &result)) return out;
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(out.scalar_type()), InvalidArgument, out,
                      "div.out: out must be floating");
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  if (k::same_real_dtype(self, other, out)) {
    ET_SWITCH_FLOAT_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
      k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, [](CTYPE x, CTYPE y) { return x / y; });
    });
    return out;
  }
  k::binary_mixed<double, kName>(ctx, self, other, out, [](double x, double y) { return x / y; });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
