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

#if !defined(ETSB_KERNELS_ONE_PATH)  // etsb's size configuration keeps one loop for each dtype
/// out = self + other for Float tensors of out's element count (no operand
/// stretched) when alpha is 1 in float: add_f32's vectorised loop, cut on
/// the thread pool in pieces of the vectorised maps' size (MobileNet-v2's
/// ten adds, of 7.8K to 75K elements, cut by add's earlier pieces of 4K,
/// took 0.128 ms a run on two threads against 0.081 ms on one at 8ca6241).
/// False, having done nothing, otherwise.
bool add_flat_f32(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {
  const int64_t n = out.numel();
  if (out.scalar_type() != ScalarType::Float || self.scalar_type() != ScalarType::Float ||
      other.scalar_type() != ScalarType::Float || self.numel() != n || other.numel() != n ||
      k::scalar_to<float>(alpha) != 1.0f) {
    return false;
  }
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  k::parallel_flat(n, 8 * k::kElementwiseTaskWork,
                   [&](int64_t lo, int64_t hi) { k::add_f32(a + lo, b + lo, y + lo, hi - lo); });
  return true;
}
#endif

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
    if (add_flat_f32(self, other, alpha, out)) return out;
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
