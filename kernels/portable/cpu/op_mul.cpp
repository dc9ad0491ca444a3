// aten::mul.out: out = self * other, elementwise with broadcasting.
#include "util/binary_op_util.h"
#include "util/complex_util.h"
#include "util/fast_math.h"
#include "util/narrow_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "mul.out";
}  // namespace

namespace {

/// x * y in compute type T; Bool multiplies as logical and.
template <typename T>
inline T multiply(T x, T y) {
  if constexpr (std::is_same<T, bool>::value) {
    return x && y;
  } else {
    return k::wrapping_mul(x, y);
  }
}

}  // namespace

/// out = self * other. Any real or Bool dtypes (Bool multiplies as logical
/// and; Half and BFloat16 through the mixed path), ATen type promotion (mixed
/// integers wrap at the result dtype's width, as ATen computes in it),
/// broadcasting (e.g. by a 0-dim tensor), out resized to the broadcast shape
/// and able to hold the result dtype. Complex dtypes: all three alike.
Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  if (k::any_complex(self, other, out)) {
    return k::complex_binary_out<kName>(ctx, self, other, out, [](auto x, auto y) { return x * y; });
  }
  ScalarType result;
  if (!k::prepare_binary(ctx, kName, self, other, out, &result)) return out;
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  if (k::same_reduced_float(self, other, out)) {  // Half, BFloat16: computed in float
    k::binary_reduced_float<kName>(ctx, self, other, out, [](float x, float y) { return x * y; });
    return out;
  }
#if !defined(ETSB_KERNELS_ONE_PATH)
  if constexpr (k::may_take_dtype(kName, ScalarType::Float)) {  // fast_math.h's vectorised products
    const k::FloatMaps maps{k::mul_f32, k::mul_scalar_f32, k::mul_scalar_f32};
    if (k::binary_maps_f32(self, other, out, maps)) return out;
  }
#endif
  if (k::same_real_dtype(self, other, out)) {
    ET_SWITCH_REALB_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
      k::binary_same_dtype<CTYPE, CTYPE>(self, other, out, [](CTYPE x, CTYPE y) { return multiply(x, y); });
    });
    return out;
  }
  k::with_compute_type<kName>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    const k::ResultWidth width = k::result_width(result);
    k::binary_mixed<CT, kName>(ctx, self, other, out, [width](CT x, CT y) { return width.wrap(multiply(x, y)); });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
