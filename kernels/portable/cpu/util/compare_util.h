// Comparisons of a tensor with a Scalar (eq, ne, lt, le, gt, ge .Scalar_out):
// the type ATen compares in, and the store into a Bool or any other out.
#pragma once

#include "elementwise_util.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// Whether T is a floating type, the reduced-precision ones included.
template <typename T>
constexpr bool is_float_like() {
  return std::is_floating_point<T>::value || std::is_same<T, ::executorch::aten::Half>::value ||
         std::is_same<T, ::executorch::aten::BFloat16>::value;
}

/// Calls `store(in, n, fn)` with fn comparing self's elements (C type T) with
/// the scalar in the type ATen would: T itself for floating tensors (x > 0.1f,
/// not x > 0.1), double for an integral tensor against a floating scalar,
/// int64_t otherwise (so that an int8 tensor against 300 does not wrap it).
template <typename T, typename Cmp, typename Store>
inline void compare_with_scalar(const Tensor& self, const Scalar& other, const Cmp& cmp, const Store& store) {
  const T* in = self.const_data_ptr<T>();
  const int64_t n = self.numel();
  if constexpr (is_float_like<T>()) {
    using F = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    const F s = static_cast<F>(scalar_to<T>(other));
    store(in, n, [s, &cmp](T x) { return cmp(static_cast<F>(x), s); });
  } else if (other.isFloatingPoint()) {
    const double s = scalar_to<double>(other);
    store(in, n, [s, &cmp](T x) { return cmp(static_cast<double>(x), s); });
  } else {
    const int64_t s = scalar_to<int64_t>(other);
    store(in, n, [s, &cmp](T x) { return cmp(static_cast<int64_t>(x), s); });
  }
}

/// out = cmp(self, other) elementwise for a Scalar `other`, self of any real,
/// Bool, Half or BFloat16 dtype. out has self's dim order and is resized to
/// its shape; a Bool out takes the typed loop, any other out dtype gets 1 / 0.
/// `Name` is the operator's switch name.
template <const char* Name, typename Cmp>
inline Tensor& compare_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out,
                                  const Cmp& cmp) {
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && is_realhbbf16(out.scalar_type()), InvalidArgument,
                      out, "%s: unsupported dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(self, out), InvalidArgument, out, "%s: out must have self's dim order",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", Name);
  if (out.scalar_type() == ScalarType::Bool) {
    bool* result = out.mutable_data_ptr<bool>();
    ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
      compare_with_scalar<CTYPE>(self, other, cmp, [result](const CTYPE* in, int64_t n, const auto& fn) {
        map_unary(in, result, n, fn);
      });
    });
    return out;
  }
  const StoreFn<bool> store = storer_for<bool, Name>(out.scalar_type(), ctx);
  if (store == nullptr) return out;  // ctx already failed
  void* result = out.mutable_data_ptr();
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    compare_with_scalar<CTYPE>(self, other, cmp, [&](const CTYPE* in, int64_t n, const auto& fn) {
      for (int64_t i = 0; i < n; ++i) store(result, i, fn(in[i]));
    });
  });
  return out;
}

}  // namespace kernels
}  // namespace etsb
