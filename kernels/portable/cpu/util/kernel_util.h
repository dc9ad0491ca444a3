// Basics shared by etsb's portable kernels: fixed-capacity shapes, dim
// normalisation, output resizing, dim-order and dtype predicates, and Scalar
// reading. Header-only, no allocation, no IO: everything here is cheap enough
// to sit on the path of every kernel call.
//
// The helpers live in namespace etsb::kernels, not in torch::executor::native,
// so that they can never collide with ExecuTorch's own kernel utilities if both
// libraries end up in one binary.
#pragma once

#include <executorch/runtime/kernel/kernel_includes.h>

#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

namespace etsb {
namespace kernels {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::KernelRuntimeContext;

/// Highest rank any tensor can have in ExecuTorch.
constexpr size_t kMaxDim = ::executorch::runtime::kTensorDimensionLimit;

/// A shape with inline storage, for computing output sizes without allocating.
struct Shape {
  SizesType sizes[kMaxDim];
  size_t ndim = 0;

  ArrayRef<SizesType> ref() const { return {sizes, ndim}; }
  int64_t numel() const {
    int64_t n = 1;
    for (size_t d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
  /// Appends a dimension; false if the rank limit is exceeded.
  bool push(int64_t size) {
    if (ndim >= kMaxDim || size < 0 || size > INT32_MAX) return false;
    sizes[ndim++] = static_cast<SizesType>(size);
    return true;
  }
};

/// Copies a tensor's sizes into a Shape.
inline Shape shape_of(const Tensor& t) {
  Shape s;
  s.ndim = static_cast<size_t>(t.dim());
  const auto sizes = t.sizes();
  for (size_t d = 0; d < s.ndim; ++d) s.sizes[d] = sizes[d];
  return s;
}

/// Wraps a possibly negative `dim` into [0, rank); false if out of range.
/// Like ATen, a 0-dim tensor accepts dim 0 and -1 (it is treated as rank 1).
inline bool normalize_dim(int64_t dim, int64_t rank, int64_t* out) {
  const int64_t bound = rank > 0 ? rank : 1;
  if (dim < -bound || dim >= bound) return false;
  *out = dim < 0 ? dim + bound : dim;
  return true;
}

/// Resizes `out` to `shape`. Outputs arrive with their memory-planned shape,
/// so this is a no-op when shapes already agree; it fails (returns false) when
/// the rank differs or a static or bounded tensor cannot take the new shape.
inline bool resize_to(const Tensor& out, ArrayRef<SizesType> sizes) {
  if (out.dim() == static_cast<ssize_t>(sizes.size())) {
    const auto current = out.sizes();
    bool same = true;
    for (size_t d = 0; d < sizes.size(); ++d) same = same && current[d] == sizes[d];
    if (same) return true;  // the common case: skip the call into the runtime
  }
  return ::executorch::runtime::resize_tensor(out, sizes) == ::executorch::runtime::Error::Ok;
}
inline bool resize_to(const Tensor& out, const Shape& shape) { return resize_to(out, shape.ref()); }

/// Whether two tensors have identical sizes.
inline bool same_sizes(const Tensor& a, const Tensor& b) {
  if (a.dim() != b.dim()) return false;
  const auto sa = a.sizes();
  const auto sb = b.sizes();
  for (size_t d = 0; d < sa.size(); ++d) {
    if (sa[d] != sb[d]) return false;
  }
  return true;
}

/// Whether a tensor is laid out in the default (contiguous, row-major) dim
/// order. Checked inline rather than through the runtime, which logs on miss.
inline bool is_contiguous(const Tensor& t) {
  const auto order = t.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

/// Whether two tensors share one dim order (so equal shapes mean equal layouts).
inline bool same_dim_order(const Tensor& a, const Tensor& b) {
  const auto oa = a.dim_order();
  const auto ob = b.dim_order();
  if (oa.size() != ob.size()) return false;
  for (size_t d = 0; d < oa.size(); ++d) {
    if (oa[d] != ob[d]) return false;
  }
  return true;
}

/// Whether an integer argument that enters size arithmetic (a stride, a
/// padding, a dilation, a kernel size) lies in [low, INT32_MAX], like a
/// tensor size: sums and products of two such values stay far from int64_t's
/// limits, whatever a program passes.
inline bool size_like(int64_t value, int64_t low) { return value >= low && value <= INT32_MAX; }

// ---- arithmetic that wraps --------------------------------------------------

/// The type in which arithmetic on T is done: for integers (Bool aside)
/// uint64_t, so that a sum or product that overflows wraps around as ATen's
/// does in practice (two's complement), where signed overflow in C++ is
/// undefined; for floating types T itself (the generated code is unchanged).
template <typename T>
using wrap_t = typename std::conditional<std::is_integral<T>::value && !std::is_same<T, bool>::value, uint64_t,
                                         T>::type;

/// x + y in T, wrapping for integers (see wrap_t).
template <typename T>
inline T wrapping_add(T x, T y) {
  return static_cast<T>(static_cast<wrap_t<T>>(x) + static_cast<wrap_t<T>>(y));
}
/// x - y in T, wrapping for integers.
template <typename T>
inline T wrapping_sub(T x, T y) {
  return static_cast<T>(static_cast<wrap_t<T>>(x) - static_cast<wrap_t<T>>(y));
}
/// x * y in T, wrapping for integers.
template <typename T>
inline T wrapping_mul(T x, T y) {
  return static_cast<T>(static_cast<wrap_t<T>>(x) * static_cast<wrap_t<T>>(y));
}
/// c + a * b in T, wrapping for integers.
template <typename T>
inline T wrapping_fma(T c, T a, T b) {
  return static_cast<T>(static_cast<wrap_t<T>>(c) + static_cast<wrap_t<T>>(a) * static_cast<wrap_t<T>>(b));
}

/// The compute type of a floating C type: float for Half, BFloat16 and
/// Float, double for Double (ATen's accumulation types on CPU).
template <typename T>
using float_compute_t = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/// Whether an optional per-channel parameter (a norm's weight, bias or
/// running statistics; null: absent) is absent or 1-D of `channels`
/// elements in `dtype`.
inline bool channel_param_ok(const Tensor* t, int64_t channels, ScalarType dtype) {
  return t == nullptr || (t->dim() == 1 && t->sizes()[0] == channels && t->scalar_type() == dtype);
}

/// channel_param_ok of an optional parameter (std::nullopt: absent).
inline bool channel_param_ok(const std::optional<Tensor>& t, int64_t channels, ScalarType dtype) {
  return channel_param_ok(t.has_value() ? &*t : nullptr, channels, dtype);
}

/// Product of sizes[begin, end).
inline int64_t size_product(ArrayRef<SizesType> sizes, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= sizes[d];
  return n;
}

// ---- dtype predicates ---------------------------------------------------------

/// The dtypes the arithmetic kernels compute in as they are: the integral
/// types, Float, Double and Bool. Half and BFloat16 are computed in float
/// (float_compute_t) and rounded once, as ATen does on CPU, never in their
/// own (software-emulated) arithmetic.
inline bool is_real_or_bool(ScalarType t) {
  return ::executorch::runtime::isRealType(t) || t == ScalarType::Bool;
}

/// The dtypes the conversion and data-movement kernels accept.
inline bool is_realhbbf16(ScalarType t) { return ::executorch::runtime::isRealHBBF16Type(t); }

inline bool is_floating(ScalarType t) { return ::executorch::runtime::isFloatingType(t); }
inline bool is_integral_no_bool(ScalarType t) {
  return ::executorch::runtime::isIntegralType(t, /*includeBool=*/false);
}

/// Type category used by ATen's promotion of 0-dim tensors: bool < int < float.
inline int dtype_category(ScalarType t) {
  if (t == ScalarType::Bool) return 0;
  return is_floating(t) ? 2 : 1;
}

/// ATen's result type of a binary op on two tensors: tensors with dimensions
/// decide the dtype, and a 0-dim tensor only matters when it belongs to a
/// higher category (bool < integral < floating). Callers check is_realhbbf16
/// on both first: promoteTypes aborts on other dtypes.
inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  const ScalarType ta = a.scalar_type();
  const ScalarType tb = b.scalar_type();
  if (ta == tb) return ta;
  const bool a0 = a.dim() == 0;
  const bool b0 = b.dim() == 0;
  if (a0 != b0) {
    const ScalarType dimmed = a0 ? tb : ta;
    const ScalarType scalar = a0 ? ta : tb;
    if (dtype_category(scalar) <= dtype_category(dimmed)) return dimmed;
  }
  return ::executorch::runtime::promoteTypes(ta, tb);
}

/// ATen's result type of several tensors (as result_type of two): the
/// promoted dtype of those with dimensions, widened by the 0-dim ones only
/// where they belong to a higher category. Callers check is_realhbbf16 first.
inline ScalarType result_type(const Tensor* const* tensors, size_t count) {
  bool any_dimmed = false, any_scalar = false;
  ScalarType dimmed = ScalarType::Bool, scalar = ScalarType::Bool;
  for (size_t i = 0; i < count; ++i) {
    const ScalarType t = tensors[i]->scalar_type();
    if (tensors[i]->dim() > 0) {
      dimmed = any_dimmed ? ::executorch::runtime::promoteTypes(dimmed, t) : t;
      any_dimmed = true;
    } else {
      scalar = any_scalar ? ::executorch::runtime::promoteTypes(scalar, t) : t;
      any_scalar = true;
    }
  }
  if (!any_dimmed) return scalar;
  if (!any_scalar || dtype_category(scalar) <= dtype_category(dimmed)) return dimmed;
  return ::executorch::runtime::promoteTypes(dimmed, scalar);
}

/// Whether a value of dtype `from` may be written to an output of dtype `to`
/// (ATen's rule: no floating -> integral, nothing but bool -> bool).
inline bool can_cast(ScalarType from, ScalarType to) { return ::executorch::runtime::canCast(from, to); }

// ---- Scalars ------------------------------------------------------------------

/// Reads a Scalar as T whatever its tag. The runtime hands integral literals
/// (e.g. alpha=1) to kernels as Int Scalars, so Scalar::to<double>() would
/// abort on them.
template <typename T>
inline T scalar_to(const Scalar& s) {
  if (s.isFloatingPoint()) return static_cast<T>(s.to<double>());
  if (s.isBoolean()) return static_cast<T>(s.to<bool>());
  return static_cast<T>(s.to<int64_t>());
}

/// ATen's check of an `alpha` multiplier against the dtype an op computes in:
/// a floating alpha needs a floating computation (no silent truncation on
/// integer tensors), and a boolean alpha a boolean one.
inline bool alpha_fits(const Scalar& alpha, ScalarType t) {
  if (alpha.isFloatingPoint()) return is_floating(t);
  if (alpha.isBoolean()) return t == ScalarType::Bool;
  return true;
}

}  // namespace kernels
}  // namespace etsb
