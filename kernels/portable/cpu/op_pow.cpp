// aten::pow.Tensor_Tensor_out, pow.Tensor_Scalar_out and pow.Scalar_out:
// out = self ** exponent.
#include "util/binary_op_util.h"
#include "util/math_util.h"
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kTensorName[] = "pow.Tensor_Tensor_out";  // the switch names
constexpr char kScalarName[] = "pow.Tensor_Scalar_out";
constexpr char kScalarBaseName[] = "pow.Scalar_out";
}  // namespace

/// out = self ** exponent elementwise, broadcast, in their common dtype
/// (k::power: exact for integers; see binary_op_out for dtypes and paths).
Tensor& pow_Tensor_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& exponent, Tensor& out) {
  return k::binary_op_out<kTensorName, k::BinaryResult::kCommon>(
      ctx, self, exponent, out, k::scalarwise([](auto x, auto y) { return k::power(x, y); }));
}

/// out = self ** exponent for a Scalar exponent, in ATen's result dtype of
/// self with a Scalar; an integral result with a negative exponent fails the
/// call, as ATen raises.
Tensor& pow_Tensor_Scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& exponent, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      kScalarName);
  const ScalarType result = k::scalar_result_type(self.scalar_type(), exponent);
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(result) || result == ScalarType::Bool || k::scalar_to<int64_t>(exponent) >= 0,
                      InvalidArgument, out, "%s: integers to negative powers are not allowed", kScalarName);
  return k::map_scalar_op_out<kScalarName>(ctx, self, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT e = k::scalar_to<CT>(exponent);
    return k::scalarwise([e](CT x) { return k::power(x, e); });
  });
}

/// out = self ** exponent for a Scalar base and a tensor of exponents, in
/// ATen's result dtype of the exponents with the Scalar (k::power: exact for
/// integers, whose negative exponents give what ATen gives); a Bool result
/// fails the call, as ATen has no Bool pow.
Tensor& pow_Scalar_out(KernelRuntimeContext& ctx, const Scalar& self, const Tensor& exponent, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(exponent.scalar_type()), InvalidArgument, out,
                      "%s: unsupported dtype", kScalarBaseName);
  const ScalarType result = k::scalar_result_type(exponent.scalar_type(), self);
  ET_KERNEL_CHECK_MSG(ctx, result != ScalarType::Bool, InvalidArgument, out, "%s: Bool is not supported",
                      kScalarBaseName);
  return k::map_scalar_op_out<kScalarBaseName>(ctx, exponent, result, out, [&](auto tag) {
    using CT = decltype(tag);
    const CT base = k::scalar_to<CT>(self);
    return k::scalarwise([base](CT e) { return k::power(base, e); });
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
