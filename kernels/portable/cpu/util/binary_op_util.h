// Binary elementwise kernels: the shared front half (dtype checks, ATen's
// result type, broadcasting and output resizing), after which add, sub, mul
// and div run their own ET_SWITCH, and engines for the others: binary_op_out
// (comparisons, minimum, maximum, pow, fmod, bitwise ops...) and
// float_binary_out (floating results: div, atan2).
#pragma once

#include "broadcast_util.h"
#include "elementwise_util.h"
#include "fast_math.h"
#include "kernel_util.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// Resizes out of a binary elementwise op to the broadcast shape of a and b,
/// and checks that the three can be walked together (elementwise_layout_ok).
/// False with ctx failed (and a log line naming `name`) on any problem. The
/// shape half of prepare_binary, shared with the complex engine (complex_util.h).
inline bool prepare_binary_shape(KernelRuntimeContext& ctx, const char* name, const Tensor& a, const Tensor& b,
                                 const Tensor& out) {
  Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, broadcast_shape(a, b, &shape), InvalidArgument, false,
                      "%s: shapes do not broadcast", name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, shape), InvalidArgument, false,
                      "%s: cannot resize out to the broadcast shape", name);
  const Tensor* tensors[3] = {&a, &b, &out};
  ET_KERNEL_CHECK_MSG(ctx, elementwise_layout_ok(tensors, 3), InvalidArgument, false,
                      "%s: unsupported mix of dim orders", name);
  return true;
}

/// Checks a, b and out of a binary elementwise op, resizes out to the
/// broadcast shape, and gives the ATen result dtype of (a, b). False with ctx
/// failed (and a log line naming `name`) on any problem.
inline bool prepare_binary(
    KernelRuntimeContext& ctx, const char* name, const Tensor& a, const Tensor& b, const Tensor& out,
    ScalarType* result) {
  const bool dtypes_ok =
      is_realhbbf16(a.scalar_type()) && is_realhbbf16(b.scalar_type()) && is_realhbbf16(out.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, dtypes_ok, InvalidArgument, false, "%s: unsupported dtype", name);
  *result = result_type(a, b);
  return prepare_binary_shape(ctx, name, a, b, out);
}

/// Whether a, b and out share one dtype that the typed fast path handles.
inline bool same_real_dtype(const Tensor& a, const Tensor& b, const Tensor& out) {
  const ScalarType t = out.scalar_type();
  return a.scalar_type() == t && b.scalar_type() == t && is_real_or_bool(t);
}

/// Whether a, b and out are all Half or all BFloat16: the dtypes whose
/// same-dtype calls compute in float (binary_reduced_float).
inline bool same_reduced_float(const Tensor& a, const Tensor& b, const Tensor& out) {
  const ScalarType t = out.scalar_type();
  return (t == ScalarType::Half || t == ScalarType::BFloat16) && a.scalar_type() == t && b.scalar_type() == t;
}

/// out = op(a, b) for a, b and out all Half or all BFloat16 (checked by
/// same_reduced_float): a typed loop, each element widened to float, combined
/// by op (called with floats) and rounded once; Out is the stored type of the
/// result (bool for comparisons).
template <const char* Name, bool Truth = false, typename Op>
inline void binary_reduced_float(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out,
                                 const Op& op) {
  (void)ctx;
  ET_SWITCH_TWO_TYPES(Half, BFloat16, a.scalar_type(), ctx, Name, CTYPE, [&]() {
    using Out = typename std::conditional<Truth, bool, CTYPE>::type;
    binary_same_dtype<CTYPE, Out, unroll_for<Op>()>(a, b, out, [&op](CTYPE x, CTYPE y) {
      return static_cast<Out>(op(static_cast<float>(x), static_cast<float>(y)));
    });
  });
}

/// binary_reduced_float's results through binary_through's loop: each
/// element read as float through Half's or BFloat16's loader, combined by op
/// (called with floats) and rounded once on store. Slower per element than
/// the typed loop, but one small loop instead of a vectorised loop per dtype
/// (for operators whose Half and BFloat16 calls are not worth the code).
template <const char* Name, typename Op>
inline void binary_reduced_float_through(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b,
                                         const Tensor& out, const Op& op) {
  LoadFn<float> load = nullptr;
  StoreFn<float> store = nullptr;
  ET_SWITCH_TWO_TYPES(Half, BFloat16, out.scalar_type(), ctx, Name, CTYPE, [&]() {
    load = &load_as<float, CTYPE>;
    store = &store_as<float, CTYPE>;
  });
  if (load == nullptr) return;  // ctx already failed
  binary_through<float>(load, load, store, a, b, out, op);
}

/// A binary operator's vectorised maps of Float (fast_math.h's add_f32,
/// add_scalar_f32...): `flat(a, b, out, n)` out[i] = a[i] op b[i];
/// `by_scalar(x, s, out, n)` out[i] = x[i] op s; `scalar_by(x, s, out, n)`
/// out[i] = s op x[i] (by_scalar again where op commutes).
struct FloatMaps {
  void (*flat)(const float*, const float*, float*, int64_t);
  void (*by_scalar)(const float*, float, float*, int64_t);
  void (*scalar_by)(const float*, float, float*, int64_t);
};

#if !defined(ETSB_KERNELS_ONE_PATH)  // etsb's size configuration keeps one loop for each dtype

/// out = self op other for Float self, other and out by `maps` (after
/// prepare_binary): operands of out's element count, or one of them of one
/// element (hardswish's x + 3 and x / 6), cut on the thread pool in pieces
/// of kElementwiseTaskWork (pieces 8x as long, which MobileNet-v2's adds
/// took when the pool's workers fell asleep between operators, left
/// MobileNet-v3's and EfficientNet-B0's maps of 47K to 75K elements on the
/// calling thread, reading what both threads wrote: 6% and 4% of their time
/// on two threads); one stretched along out's trailing dims
/// only (squeeze-and-excite's x * s[c]) likewise, one map per row of those
/// dims (EfficientNet-B0's sixteen took longer on two threads than on one
/// when run on the calling thread after an operator cut on the pool: 38 ->
/// 54 us for 32 x 112 x 112); other broadcasts by runs of out's last dim,
/// on the calling thread. The operator's
/// own lambda in the engine's loops took 2.2-2.3x as long on a 14x14x672
/// tensor (at -O2, through arrays on the stack). Not a template: add, mul and
/// div share one copy. False, having done nothing, unless all three are Float.
inline bool binary_maps_f32(const Tensor& self, const Tensor& other, const Tensor& out, const FloatMaps& maps) {
  if (out.scalar_type() != ScalarType::Float || self.scalar_type() != ScalarType::Float ||
      other.scalar_type() != ScalarType::Float) {
    return false;
  }
  const int64_t n = out.numel(), na = self.numel(), nb = other.numel();
  const float* a = self.const_data_ptr<float>();
  const float* b = other.const_data_ptr<float>();
  float* y = out.mutable_data_ptr<float>();
  if (na == n && nb == n) {  // no dim stretched (prepare_binary checked the layouts): flat indices coincide
    parallel_flat(n, kElementwiseTaskWork, [&](int64_t lo, int64_t hi) { maps.flat(a + lo, b + lo, y + lo, hi - lo); });
  } else if (const int64_t inner = na == n   ? (nb == 1 ? n : trailing_broadcast_inner(other, out))
                                   : nb == n ? (na == 1 ? n : trailing_broadcast_inner(self, out))
                                             : 0;
             inner > 0) {
    // One operand stretched along out's trailing dims, all of them for a one-element operand (hardswish's x + 3),
    // the spatial ones for squeeze-and-excite's x * s[c]: y[i] = full[i] op rows[i / inner], one map call per
    // row within a piece. Each element is computed alone, so the cut changes nothing but the time.
    const float* full = na == n ? a : b;
    const float* rows = na == n ? b : a;
    const auto map = na == n ? maps.by_scalar : maps.scalar_by;
    parallel_flat(n, kElementwiseTaskWork, [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi;) {
        const int64_t r = i / inner, end = (r + 1) * inner < hi ? (r + 1) * inner : hi;
        map(full + i, rows[r], y + i, end - i);
        i = end;
      }
    });
  } else {  // broadcasting: all three contiguous, steps 0 (stretched) or 1
    // A run lies along an out dim longer than 1 (the plan drops the others),
    // which one operand at least has: never both stretched.
    for_each_binary_run(self, other, out, [&](int64_t o, int64_t ia, int64_t sa, int64_t ib, int64_t sb, int64_t len) {
      if (sa != 0 && sb != 0) {
        maps.flat(a + ia, b + ib, y + o, len);
      } else if (sa != 0) {
        maps.by_scalar(a + ia, b[ib], y + o, len);
      } else {
        maps.scalar_by(b + ib, a[ia], y + o, len);
      }
    });
  }
  return true;
}
#endif

/// What a binary operator's result is: a value in the operands' common
/// dtype (minimum, pow...) or a truth value (comparisons: out is Bool or any
/// dtype taking 1 / 0).
enum class BinaryResult { kCommon, kTruth };

/// out = op(a, b) elementwise with broadcasting, computing in ATen's common
/// dtype of a and b. op is generic: called with two values of the compute
/// type, it returns that type (kCommon) or bool (kTruth). When a, b and out
/// share one real or Bool dtype (or a and b one and out is Bool for truth
/// results) the call takes a typed loop per dtype (Half and BFloat16: in
/// float), switched on the `Types`
/// category (`kAllReal` for real and Bool, `kIntegral` for integral and Bool
/// only); other calls convert per element through double, int64_t or bool
/// (with_compute_type: compiled only where the build may mix dtypes).
enum class BinaryTypes { kAllReal, kIntegral };

template <const char* Name, BinaryResult Result, BinaryTypes Types = BinaryTypes::kAllReal, typename Op>
inline Tensor& binary_op_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                             const Op& op) {
  ScalarType common;
  if (!prepare_binary(ctx, Name, a, b, out, &common)) return out;
  if (Types == BinaryTypes::kIntegral) {
    ET_KERNEL_CHECK_MSG(ctx, !is_floating(common), InvalidArgument, out, "%s: integral or Bool operands only",
                        Name);
  }
  if (Result == BinaryResult::kCommon) {
    ET_KERNEL_CHECK_MSG(ctx, can_cast(common, out.scalar_type()), InvalidArgument, out,
                        "%s: out (%s) cannot hold the result (%s)", Name,
                        ::executorch::runtime::toString(out.scalar_type()), ::executorch::runtime::toString(common));
  }
  const ScalarType t = a.scalar_type();
  const bool typed_out = Result == BinaryResult::kTruth ? out.scalar_type() == ScalarType::Bool
                                                         : out.scalar_type() == t;
  if (b.scalar_type() == t && typed_out && is_real_or_bool(t)) {
    const auto run = [&](auto tag) {
      using T = decltype(tag);
      using Out = typename std::conditional<Result == BinaryResult::kTruth, bool, T>::type;
      binary_same_dtype<T, Out, unroll_for<Op>()>(a, b, out, [&op](T x, T y) { return static_cast<Out>(op(x, y)); });
    };
    if (Types == BinaryTypes::kIntegral) {
      ET_SWITCH_INT_TYPES_AND(Bool, t, ctx, Name, CTYPE, [&]() { run(CTYPE{}); });
    } else {
      ET_SWITCH_REALB_TYPES(t, ctx, Name, CTYPE, [&]() { run(CTYPE{}); });
    }
    return out;
  }
  if (Types == BinaryTypes::kAllReal && b.scalar_type() == t &&
      (Result == BinaryResult::kTruth ? out.scalar_type() == ScalarType::Bool : out.scalar_type() == t) &&
      (t == ScalarType::Half || t == ScalarType::BFloat16)) {
    binary_reduced_float<Name, Result == BinaryResult::kTruth>(ctx, a, b, out, op);
    return out;
  }
  with_compute_type<Name>(ctx, common, [&](auto tag) {
    using CT = decltype(tag);
    binary_mixed<CT, Name>(ctx, a, b, out, [&op](CT x, CT y) { return static_cast<CT>(op(x, y)); });
  });
  return out;
}

/// out = op(a, b) elementwise with broadcasting for an operator whose result
/// is floating (div, atan2): integral or Bool operands are promoted to the
/// default Float, and out must be floating, able to hold the result. op is
/// generic: called with floats (Half and BFloat16 operands of one dtype, in
/// float; Float) or doubles (Double, and every mixed-dtype call).
/// `maps`, when given, computes Float calls with op's results (binary_maps_f32).
template <const char* Name, typename Op>
inline Tensor& float_binary_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                                const Op& op, const FloatMaps* maps = nullptr) {
  ScalarType result;
  if (!prepare_binary(ctx, Name, a, b, out, &result)) return out;
  ET_KERNEL_CHECK_MSG(ctx, is_floating(out.scalar_type()), InvalidArgument, out, "%s: out must be floating", Name);
  ET_KERNEL_CHECK_MSG(ctx, can_cast(result, out.scalar_type()), InvalidArgument, out,
                      "%s: out cannot hold the result", Name);
  if (same_reduced_float(a, b, out)) {  // Half, BFloat16: computed in float
    binary_reduced_float<Name>(ctx, a, b, out, op);
    return out;
  }
#if !defined(ETSB_KERNELS_ONE_PATH)
  if constexpr (may_take_dtype(Name, ScalarType::Float)) {
    if (maps != nullptr && binary_maps_f32(a, b, out, *maps)) return out;
  }
#endif
  if (same_real_dtype(a, b, out)) {
    ET_SWITCH_FLOAT_TYPES(out.scalar_type(), ctx, Name, CTYPE, [&]() {
      binary_same_dtype<CTYPE, CTYPE, unroll_for<Op>()>(
          a, b, out, [&op](CTYPE x, CTYPE y) { return static_cast<CTYPE>(op(x, y)); });
    });
    return out;
  }
  binary_mixed<double, Name>(ctx, a, b, out, [&op](double x, double y) { return static_cast<double>(op(x, y)); });
  return out;
}

/// Whether `divisor` (of any real or Bool dtype) is integral or Bool and
/// holds a zero, for operators that refuse integer division by zero (div
/// with rounding, fmod, remainder, floor_divide) when `dividend` is integral
/// too. A floating operand on either side never is.
template <const char* Name>
inline bool integral_division_by_zero(KernelRuntimeContext& ctx, const Tensor& dividend, const Tensor& divisor) {
  const ScalarType t = divisor.scalar_type();
  if (!is_real_or_bool(t) || is_floating(t) || is_floating(dividend.scalar_type())) return false;
  bool zero = false;
  ET_SWITCH_REALB_TYPES(t, ctx, Name, CTYPE, [&]() {
    const CTYPE* data = divisor.const_data_ptr<CTYPE>();
    for (ssize_t i = 0; i < divisor.numel() && !zero; ++i) zero = data[i] == CTYPE(0);
  });
  return zero;
}

}  // namespace kernels
}  // namespace etsb
