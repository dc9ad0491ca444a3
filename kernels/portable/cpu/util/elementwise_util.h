// Elementwise loops for unary, binary and ternary (where) kernels.
//
// Two paths:
//  * Same dtype everywhere (the common case, and all the corpus needs): typed
//    loops over raw pointers, unrolled by 8 so that GCC and Clang vectorise
//    them even at -O2 (whose cost model skips plain loops of unknown length).
//    Each 8-block loads its inputs before storing, so an output that aliases
//    an input element-for-element still computes correctly.
//  * Mixed dtypes: every element is loaded through a function pointer chosen
//    by an ET_SWITCH on its tensor's dtype, converted to one of three compute
//    types (bool, int64_t, double), combined, and stored through another. Slow
//    per element but small: O(dtypes) instantiations instead of O(dtypes^3).
//
// Shapes: equal shapes (or a single-element operand) run flat; anything else
// goes through a BroadcastPlan (broadcast_util.h).
#pragma once

#include "broadcast_util.h"
#include "kernel_util.h"
#include "parallel_util.h"
#include "widened_io.h"

namespace etsb {
namespace kernels {

constexpr int64_t kUnroll = 8;

// ---- flat loops -----------------------------------------------------------------

/// An elementwise function that never vectorises (a library call such as
/// powf or fmodf, an integer division, a loop per element), as the engines'
/// op: their loops then run it one element at a time, since blocks of
/// kUnroll copies would only cost compile time and code. Same results.
template <typename Op>
struct Scalarwise {
  Op op;
  template <typename... X>
  auto operator()(X... x) const {
    return op(x...);
  }
};

/// `op` marked as Scalarwise.
template <typename Op>
Scalarwise<Op> scalarwise(Op op) {
  return Scalarwise<Op>{op};
}

template <typename Op>
struct IsScalarwise : std::false_type {};
template <typename Op>
struct IsScalarwise<Scalarwise<Op>> : std::true_type {};

/// The block length of the loops that run `Op`: kUnroll, or 1 for a
/// Scalarwise one.
template <typename Op>
constexpr int64_t unroll_for() {
  return IsScalarwise<Op>::value ? 1 : kUnroll;
}

/// out[j] = op(in[j]) for j < n, in blocks of Unroll.
template <int64_t Unroll = kUnroll, typename In, typename Out, typename Op>
ET_INLINE void map_unary(const In* in, Out* out, int64_t n, const Op& op) {
  int64_t j = 0;
  for (; j + Unroll <= n; j += Unroll) {
    In x[Unroll];
    Out r[Unroll];
    for (int64_t u = 0; u < Unroll; ++u) x[u] = in[j + u];
    for (int64_t u = 0; u < Unroll; ++u) r[u] = op(x[u]);
    for (int64_t u = 0; u < Unroll; ++u) out[j + u] = r[u];
  }
  for (; j < n; ++j) out[j] = op(in[j]);
}

/// out[j] = op(a[j * sa], b[j * sb]) for j < n, with strides sa, sb in {0, 1}:
/// a zero stride repeats one element (a broadcast scalar), hoisted out of the
/// loop; blocks of Unroll. Deliberately not forced inline: the flat and the
/// broadcast paths of an op share one copy.
template <int64_t Unroll = kUnroll, typename T, typename Out, typename Op>
void map_binary(const T* a, int64_t sa, const T* b, int64_t sb, Out* out, int64_t n, const Op& op) {
  if (sa != 0 && sb != 0) {
    int64_t j = 0;
    for (; j + Unroll <= n; j += Unroll) {
      T x[Unroll], y[Unroll];
      Out r[Unroll];
      for (int64_t u = 0; u < Unroll; ++u) x[u] = a[j + u];
      for (int64_t u = 0; u < Unroll; ++u) y[u] = b[j + u];
      for (int64_t u = 0; u < Unroll; ++u) r[u] = op(x[u], y[u]);
      for (int64_t u = 0; u < Unroll; ++u) out[j + u] = r[u];
    }
    for (; j < n; ++j) out[j] = op(a[j], b[j]);
  } else if (sa != 0) {
    const T y = *b;
    map_unary<Unroll>(a, out, n, [&](T x) { return op(x, y); });
  } else if (sb != 0) {
    const T x = *a;
    map_unary<Unroll>(b, out, n, [&](T y) { return op(x, y); });
  } else {
    const Out r = op(*a, *b);
    for (int64_t j = 0; j < n; ++j) out[j] = r;
  }
}

// ---- same-dtype kernels ---------------------------------------------------------

/// Whether elementwise inputs and output can be walked as laid out: either all
/// contiguous (broadcasting allowed), or all of one shape and one dim order.
inline bool elementwise_layout_ok(const Tensor* const* tensors, size_t count) {
  bool contiguous = true;
  for (size_t i = 0; i < count; ++i) contiguous = contiguous && is_contiguous(*tensors[i]);
  if (contiguous) return true;
  for (size_t i = 1; i < count; ++i) {
    if (!same_sizes(*tensors[0], *tensors[i]) || !same_dim_order(*tensors[0], *tensors[i])) return false;
  }
  return true;
}

/// Walks out (of the broadcast shape of a and b) in runs along its last dim:
/// `run(out_offset, a_offset, a_step, b_offset, b_step, length)` per run, in
/// elements; a step is 0 where that operand is stretched.
template <typename Run>
inline void for_each_binary_run(const Tensor& a, const Tensor& b, const Tensor& out, const Run& run) {
  BroadcastPlan<2> plan;
  const Tensor* inputs[2] = {&a, &b};
  make_broadcast_plan(shape_of(out), inputs, &plan);
  const int64_t sa = plan.strides[0][plan.ndim - 1];
  const int64_t sb = plan.strides[1][plan.ndim - 1];
  for_each_run(plan, [&](int64_t o, const int64_t* in, int64_t len) { run(o, in[0], sa, in[1], sb, len); });
}

/// out = op(a, b) elementwise with broadcasting; a and b are of C type T, out
/// of Out; out already has the broadcast shape. Blocks of Unroll (map_binary);
/// Float without broadcasting (or with a one-element operand) cut on the
/// thread pool (parallel_flat).
template <typename T, typename Out, int64_t Unroll = kUnroll, typename Op>
inline void binary_same_dtype(const Tensor& a, const Tensor& b, const Tensor& out, const Op& op) {
  const T* pa = a.const_data_ptr<T>();
  const T* pb = b.const_data_ptr<T>();
  Out* po = out.mutable_data_ptr<Out>();
  const int64_t n = out.numel();
  const int64_t na = a.numel();
  const int64_t nb = b.numel();
  // Flat: valid broadcasting with equal element counts means no dim
  // stretches, so flat indices coincide; a one-element operand repeats.
  if ((na == n || na == 1) && (nb == n || nb == 1)) {
    const int64_t sa = na == 1 ? 0 : 1, sb = nb == 1 ? 0 : 1;
    if constexpr (std::is_same<T, float>::value && std::is_same<Out, float>::value) {
      // Float: cut on the thread pool (each element computed alone: the same results on any threads)
      return parallel_flat(n, kElementwiseTaskWork, [&](int64_t lo, int64_t hi) {
        map_binary<Unroll>(pa + lo * sa, sa, pb + lo * sb, sb, po + lo, hi - lo, op);
      });
    }
    return map_binary<Unroll>(pa, sa, pb, sb, po, n, op);
  }
  for_each_binary_run(a, b, out, [&](int64_t o, int64_t ia, int64_t sa, int64_t ib, int64_t sb, int64_t len) {
    map_binary<Unroll>(pa + ia, sa, pb + ib, sb, po + o, len, op);
  });
}

// ---- mixed-dtype kernels --------------------------------------------------------

// LoadFn, StoreFn, load_as and store_as: widened_io.h.

/// The loader of `dtype` elements as CT, or null with ctx failed if the dtype
/// is not supported. `Name` is the calling operator's switch name, a template
/// argument (a constexpr char array of the operator's file) rather than a
/// parameter so that each operator gets its own switch with a constant name,
/// which a dtype-selective build can trim.
template <typename CT, const char* Name>
inline LoadFn<CT> loader_for(ScalarType dtype, KernelRuntimeContext& ctx) {
  LoadFn<CT> fn = nullptr;
  ET_SWITCH_REALHBBF16_TYPES(dtype, ctx, Name, T, [&]() { fn = &load_as<CT, T>; });
  return fn;
}

/// The storer of CT values into `dtype` elements, as loader_for.
template <typename CT, const char* Name>
inline StoreFn<CT> storer_for(ScalarType dtype, KernelRuntimeContext& ctx) {
  StoreFn<CT> fn = nullptr;
  ET_SWITCH_REALHBBF16_TYPES(dtype, ctx, Name, T, [&]() { fn = &store_as<CT, T>; });
  return fn;
}

/// out = op(a, b) with broadcasting, each element of a and b read as CT
/// through la and lb, combined with op (called with CT arguments) and stored
/// through so: one loop per compute type and op, whatever the dtypes.
template <typename CT, typename Op>
inline void binary_through(LoadFn<CT> la, LoadFn<CT> lb, StoreFn<CT> so, const Tensor& a, const Tensor& b,
                           const Tensor& out, const Op& op) {
  const void* pa = a.const_data_ptr();
  const void* pb = b.const_data_ptr();
  void* po = out.mutable_data_ptr();
  for_each_binary_run(a, b, out, [&](int64_t o, int64_t ia, int64_t sa, int64_t ib, int64_t sb, int64_t len) {
    for (int64_t j = 0; j < len; ++j) {
      so(po, o + j, op(la(pa, ia + j * sa), lb(pb, ib + j * sb)));
    }
  });
}

/// out = op(a, b) with broadcasting, for any mix of dtypes: elements are
/// converted to CT, combined with op (called with CT arguments), and the
/// result converted to out's dtype.
template <typename CT, const char* Name, typename Op>
inline void binary_mixed(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, const Tensor& out, const Op& op) {
  const LoadFn<CT> la = loader_for<CT, Name>(a.scalar_type(), ctx);
  const LoadFn<CT> lb = loader_for<CT, Name>(b.scalar_type(), ctx);
  const StoreFn<CT> so = storer_for<CT, Name>(out.scalar_type(), ctx);
  if (la == nullptr || lb == nullptr || so == nullptr) return;  // ctx already failed
  binary_through<CT>(la, lb, so, a, b, out, op);
}

/// Whether this build may call the operator whose switches are named `name`
/// with tensors of different dtypes among those from its `first_tensor`-th on
/// (in kernel key order: tensor arguments, then out): always, except in a
/// dtype-selective build whose selected_op_variants.h says no selected call does.
constexpr bool may_mix_dtypes(const char* name, int first_tensor) {
#if defined(ETSB_SELECTED_OP_VARIANTS)
  return etsb_selects_mixed_dtypes(name, first_tensor);
#else
  return name != nullptr && first_tensor >= 0;
#endif
}

/// Whether this build may call the operator whose switches are named `name`
/// with a tensor of `dtype`: always, except in a dtype-selective build whose
/// selected_op_variants.h leaves that dtype out. For a path taken on a dtype
/// test outside any ET_SWITCH case (which would otherwise not be trimmed).
constexpr bool may_take_dtype(const char* name, ScalarType dtype) {
#if defined(ETSB_SELECTED_OP_VARIANTS)
  return should_include_kernel_dtype(name, dtype);
#else
  return name != nullptr && dtype != ScalarType::Undefined;
#endif
}

/// Calls `body(CT{})` with CT the compute type of a mixed-dtype call of the
/// operator `Name` whose result dtype is `result`: double for floating
/// results, bool for Bool, int64_t otherwise. The mixed operands are its
/// tensors from the `FirstTensor`-th on (where's values, not its condition).
/// Where they never mix in this build the mixed path is not compiled, and
/// reaching it fails the call with InvalidArgument (as an unselected dtype would).
template <const char* Name, int FirstTensor = 0, typename Body>
ET_INLINE void with_compute_type(KernelRuntimeContext& ctx, ScalarType result, const Body& body) {
  if constexpr (may_mix_dtypes(Name, FirstTensor)) {
    (void)ctx;
    if (is_floating(result)) {
      body(double{});
    } else if (result == ScalarType::Bool) {
      body(bool{});
    } else {
      body(int64_t{});
    }
  } else {
    (void)result;
    (void)body;
    ET_LOG(Error, "%s: tensors of different dtypes are not selected in this build", Name);
    ctx.fail(::executorch::runtime::Error::InvalidArgument);
  }
}

}  // namespace kernels
}  // namespace etsb
