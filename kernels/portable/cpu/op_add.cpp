// aten::add.out: out = self + alpha * other, elementwise with broadcasting.
#include "util/binary_op_util.h"
#include "util/complex_util.h"
#include "util/fast_math.h"
#include "util/scalar_fits.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "add.out";

/// The elementwise function for compute type CT. alpha is converted once;
/// multiplying by an alpha of 1 is exact, so `x + y` needs no loop of its own.
template <typename CT>
auto add_fn(const Scalar& alpha) {
  const CT a = k::scalar_to<CT>(alpha);
  return [a](CT x, CT y) { return k::wrapping_fma(x, a, y); };
}

}  // namespace

/// out = self + alpha * other. Any real or Bool dtypes (a typed, vectorised
/// loop for Float and Long; Half, BFloat16 and the others through per-element loaders
/// of their compute type, as mixed dtypes are), ATen type promotion (a 0-dim operand of the same
/// category does not widen the result), broadcasting; out is resized to the
/// broadcast shape and must be able to hold the result dtype. A floating alpha
/// needs a floating result, a boolean one a Bool result, and alpha must fit
/// the dtype it is computed in (scalar_fits). Complex tensors all of one
/// dtype are added in that dtype's compute type (complex_binary_through).
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                Tensor& out) {
  if (k::any_complex(self, other, out)) {
    const double a = k::scalar_to<double>(alpha);
    return k::complex_binary_through<kName>(ctx, self, other, out, [a](auto x, auto y) {
      return x + y * static_cast<typename decltype(x)::value_type>(a);
    });
  }
  ScalarType result;
  if (!k::prepare_binary(ctx, kName, self, other, out, &result)) return out;
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::alpha_fits(alpha, result), InvalidArgument, out);
  const ScalarType alpha_dtype = k::scalar_compute_dtype(result);
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(alpha, alpha_dtype), InvalidArgument, out,
                      "%s: alpha is out of range for %s", kName, ::executorch::runtime::toString(alpha_dtype));
  if (k::same_reduced_float(self, other, out)) {  // Half, BFloat16: computed in float
    k::binary_reduced_float_through<kName>(ctx, self, other, out, add_fn<float>(alpha));
    return out;
  }
#if !defined(ETSB_KERNELS_ONE_PATH)
  if constexpr (k::may_take_dtype(kName, ScalarType::Float)) {
    // alpha 1: fast_math.h's vectorised adds
    const k::FloatMaps maps{k::add_f32, k::add_scalar_f32, k::add_scalar_f32};
    if (k::scalar_to<float>(alpha) == 1.0f && k::binary_maps_f32(self, other, out, maps)) return out;
  }
#endif
  if (k::same_real_dtype(self, other, out)) {
    if constexpr (!k::may_mix_dtypes(kName, 0)) {  // no mixed path in this build: a typed loop per dtype
      ET_SWITCH_REALB_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
        k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, add_fn<CTYPE>(alpha));
      });
      return out;
    } else if (out.scalar_type() == ScalarType::Float || out.scalar_type() == ScalarType::Long) {
      // Float for the models' tensors, Long for the index arithmetic of decoders (positions, offsets).
      ET_SWITCH_TWO_TYPES(Float, Long, out.scalar_type(), ctx, kName, CTYPE, [&]() {
        k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, add_fn<CTYPE>(alpha));
      });
      return out;
    }
    // Other dtypes through the mixed path's loop of their compute type (the
    // same wrapped or rounded results): a typed loop each would cost ~1.5 KB.
  }
  k::with_compute_type<kName>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    k::binary_mixed<CT, kName>(ctx, self, other, out, add_fn<CT>(alpha));
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
