// Elementwise operators of one tensor, alone or with Scalars (exp, sigmoid,
// gelu, mul.Scalar, fmod.Scalar, clamp, hardtanh...): ATen's result dtypes,
// and two loop engines, each with typed fast paths and a converting path.
#pragma once

#include "elementwise_util.h"
#include "parallel_util.h"

#include <cstddef>
#include <type_traits>

namespace etsb {
namespace kernels {

/// ATen's result dtype of a tensor of dtype `self` combined with a Scalar: a
/// Scalar of a higher category (bool < integral < floating) promotes to the
/// default dtype of its category (Long, Float), otherwise the tensor decides.
inline ScalarType scalar_result_type(ScalarType self, const Scalar& s) {
  const int category = s.isFloatingPoint() ? 2 : (s.isBoolean() ? 0 : 1);
  if (category <= dtype_category(self)) return self;
  return category == 2 ? ScalarType::Float : ScalarType::Long;
}

/// The result dtype of a floating operator (exp, sigmoid, div...) on `self`:
/// self's dtype when floating, the default Float for integral and Bool.
inline ScalarType float_result_type(ScalarType self) { return is_floating(self) ? self : ScalarType::Float; }

/// out[j] = fn(in[j]) for j < n in Float, fn = make(float{}) (float_loop
/// first, when given: see map_scalar_op_out), cut on the thread pool
/// (parallel_flat): each element is computed alone, so the results are the
/// same however the range is cut.
template <typename Make, typename FloatLoop>
inline void map_float_cut(const float* in, float* out, int64_t n, const Make& make, const FloatLoop& float_loop) {
  constexpr bool kVectorised = !std::is_same<FloatLoop, std::nullptr_t>::value;
  parallel_flat(n, (kVectorised ? 1 : 2) * kElementwiseTaskWork, [&](int64_t b, int64_t e) {
    if constexpr (kVectorised) {
      if (float_loop(in + b, out + b, e - b)) return;
    }
    const auto fn = make(float{});
    map_unary<unroll_for<std::decay_t<decltype(fn)>>()>(in + b, out + b, e - b,
                                                         [&fn](float x) { return static_cast<float>(fn(x)); });
  });
}

/// out = fn(self) elementwise, where `make(CT{})` gives fn computing in CT.
/// `result` is the operator's result dtype (out must be able to hold it).
/// self and out of one real or Bool dtype equal to the result: a typed loop
/// per dtype (CT the dtype itself; Float's cut on the thread pool:
/// map_float_cut); Half and BFloat16: a typed loop computing
/// in float; anything else converts per element through double, int64_t or
/// bool by the result's category (compiled only where the build may mix
/// dtypes: with_compute_type). out keeps self's dim order and is resized
/// to its shape. `Name` is the operator's switch name.
/// `float_loop`, when given, is tried first in the Float-to-Float case:
/// float_loop(in, out, n) returns whether it did the work (a vectorised
/// loop of fast_math.h for the arguments it handles), the same answer for
/// every piece of a cut.
template <const char* Name, typename Make, typename FloatLoop = std::nullptr_t>
inline Tensor& map_scalar_op_out(KernelRuntimeContext& ctx, const Tensor& self, ScalarType result, Tensor& out,
                                 const Make& make, const FloatLoop& float_loop = nullptr) {
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && is_realhbbf16(out.scalar_type()), InvalidArgument,
                      out, "%s: unsupported dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, can_cast(result, out.scalar_type()), InvalidArgument, out,
                      "%s: out (%s) cannot hold the result (%s)", Name,
                      ::executorch::runtime::toString(out.scalar_type()), ::executorch::runtime::toString(result));
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(self, out), InvalidArgument, out, "%s: out must have self's dim order",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", Name);
  const int64_t n = self.numel();
  const ScalarType t = out.scalar_type();
  if (self.scalar_type() == t && t == result) {
    if (t == ScalarType::Half || t == ScalarType::BFloat16) {
      ET_SWITCH_TWO_TYPES(Half, BFloat16, t, ctx, Name, CTYPE, [&]() {
        const auto fn = make(float{});
        constexpr int64_t kBlock = unroll_for<std::decay_t<decltype(fn)>>();
        map_unary<kBlock>(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), n,
                          [&fn](CTYPE x) { return static_cast<CTYPE>(fn(static_cast<float>(x))); });
      });
      return out;
    }
    ET_SWITCH_REALB_TYPES(t, ctx, Name, CTYPE, [&]() {
      if constexpr (std::is_same<CTYPE, float>::value) {
        map_float_cut(self.const_data_ptr<float>(), out.mutable_data_ptr<float>(), n, make, float_loop);
        return;
      }
      const auto fn = make(CTYPE{});
      constexpr int64_t kBlock = unroll_for<std::decay_t<decltype(fn)>>();
      map_unary<kBlock>(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), n,
                        [&fn](CTYPE x) { return static_cast<CTYPE>(fn(x)); });
    });
    return out;
  }
  with_compute_type<Name>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    const LoadFn<CT> load = loader_for<CT, Name>(self.scalar_type(), ctx);
    const StoreFn<CT> store = storer_for<CT, Name>(t, ctx);
    if (load == nullptr || store == nullptr) return;  // ctx already failed
    const auto fn = make(CT{});
    const void* in = self.const_data_ptr();
    void* dst = out.mutable_data_ptr();
    for (int64_t i = 0; i < n; ++i) store(dst, i, static_cast<CT>(fn(load(in, i))));
  });
  return out;
}

/// out = fn(self) elementwise for an operator whose result is floating
/// (float_result_type): fn is called with float (Half, BFloat16, Float) or
/// double. self of any real, Bool, Half or BFloat16 dtype, out any floating
/// dtype able to hold the result; a typed loop when self and out share their
/// dtype, a per-element conversion otherwise. `Name` is the switch name.
/// `float_loop`, when given, runs the Float-to-Float case instead of fn (a
/// vectorised loop of fast_math.h).
template <const char* Name, typename Fn>
inline Tensor& float_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const Fn& fn,
                               void (*float_loop)(const float*, float*, int64_t) = nullptr) {
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && is_floating(out.scalar_type()), InvalidArgument,
                      out, "%s: unsupported dtype (out must be floating)", Name);
  const ScalarType result = float_result_type(self.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, can_cast(result, out.scalar_type()), InvalidArgument, out,
                      "%s: out cannot hold the result", Name);
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(self, out), InvalidArgument, out, "%s: out must have self's dim order",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", Name);
  const int64_t n = self.numel();
  if (float_loop != nullptr && self.scalar_type() == ScalarType::Float && out.scalar_type() == ScalarType::Float) {
    // Cut on the thread pool (each element computed alone: the same results on any threads); on one thread,
    // EfficientNet-B0's sigmoids took 2.3 ms a run at 224 px with two threads as with one.
    const float* in = self.const_data_ptr<float>();
    float* dst = out.mutable_data_ptr<float>();
    parallel_flat(n, kElementwiseTaskWork, [&](int64_t lo, int64_t hi) { float_loop(in + lo, dst + lo, hi - lo); });
    return out;
  }
  if (self.scalar_type() == out.scalar_type()) {
    ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, Name, CTYPE, [&]() {
      using CT = float_compute_t<CTYPE>;
      map_unary<unroll_for<Fn>()>(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), n,
                                  [&fn](CTYPE x) { return static_cast<CTYPE>(fn(static_cast<CT>(x))); });
    });
    return out;
  }
  with_compute_type<Name>(ctx, result, [&](auto) {
    const LoadFn<double> load = loader_for<double, Name>(self.scalar_type(), ctx);
    const StoreFn<double> store = storer_for<double, Name>(out.scalar_type(), ctx);
    if (load == nullptr || store == nullptr) return;  // ctx already failed
    const void* in = self.const_data_ptr();
    void* dst = out.mutable_data_ptr();
    for (int64_t i = 0; i < n; ++i) store(dst, i, static_cast<double>(fn(load(in, i))));
  });
  return out;
}

/// out (Bool) = pred(self) elementwise, for a property of each value (isnan,
/// isinf): self of any real, Bool, Half or BFloat16 dtype, out Bool of its
/// dim order, resized to its shape. pred is called with the element as it is,
/// Half and BFloat16 widened to float. `Name` is the operator's switch name.
template <const char* Name, typename Pred>
inline Tensor& predicate_unary_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out, const Pred& pred) {
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Bool, InvalidArgument, out, "%s: out must be Bool",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, same_dim_order(self, out), InvalidArgument, out, "%s: out must have self's dim order",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", Name);
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    using CT = typename std::conditional<std::is_same<CTYPE, ::executorch::aten::Half>::value ||
                                             std::is_same<CTYPE, ::executorch::aten::BFloat16>::value,
                                         float, CTYPE>::type;
    map_unary(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<bool>(), self.numel(),
              [&pred](CTYPE x) { return static_cast<bool>(pred(static_cast<CT>(x))); });
  });
  return out;
}

}  // namespace kernels
}  // namespace etsb
