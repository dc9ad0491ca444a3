// Shared by etsb's quantized kernels: the affine mapping between floats and
// integers (q = clamp(zero_point + round(x / scale)), x = (q - zero_point) *
// scale), the integer dtypes a quantized tensor may have, output resizing and
// per-channel parameter reading. Header-only, no allocation, no IO.
//
// Namespace etsb::quantized (not etsb::kernels): this library must link beside
// etsb's portable kernels, whose inline helpers live there.
#pragma once

#include <executorch/runtime/core/exec_aten/util/scalar_type_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

namespace etsb {
namespace quantized {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::KernelRuntimeContext;

constexpr size_t kMaxDim = ::executorch::runtime::kTensorDimensionLimit;

/// Resizes `out` to `sizes`; false when the runtime refuses (a static or
/// bounded tensor too small, or another rank).
inline bool resize_to(const Tensor& out, ArrayRef<SizesType> sizes) {
  return ::executorch::runtime::resize_tensor(out, sizes) == ::executorch::runtime::Error::Ok;
}

/// Whether a tensor is in the default (row-major) dim order, which the
/// kernels' flat indexing assumes.
inline bool is_contiguous(const Tensor& t) {
  const auto order = t.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

/// Whether two tensors share one dim order: then equal shapes mean that an
/// element sits at the same offset in both, whatever the order.
inline bool same_dim_order(const Tensor& a, const Tensor& b) {
  const auto oa = a.dim_order();
  const auto ob = b.dim_order();
  if (oa.size() != ob.size()) return false;
  for (size_t d = 0; d < oa.size(); ++d) {
    if (oa[d] != ob[d]) return false;
  }
  return true;
}

/// The number of consecutive elements in memory that share an index along
/// `dim`: its stride (tensors are dense, in some dim order), so element i is
/// at index (i / stride) % size along it. 1 for an empty tensor.
inline int64_t run_length(const Tensor& t, int64_t dim) {
  const int64_t stride = t.strides()[dim];
  return stride > 0 ? stride : 1;
}

/// The integer range a quantized dtype can hold; false for a dtype that is
/// not a quantized integer type (Byte, Char, Short, Int, Long, Bits16, UInt16).
inline bool dtype_range(ScalarType t, int64_t* low, int64_t* high) {
  switch (t) {
    case ScalarType::Byte:
      *low = 0, *high = UINT8_MAX;
      return true;
    case ScalarType::Char:
      *low = INT8_MIN, *high = INT8_MAX;
      return true;
    case ScalarType::Short:
      *low = INT16_MIN, *high = INT16_MAX;
      return true;
    case ScalarType::Bits16:
    case ScalarType::UInt16:
      *low = 0, *high = UINT16_MAX;
      return true;
    case ScalarType::Int:
      *low = INT32_MIN, *high = INT32_MAX;
      return true;
    case ScalarType::Long:
      *low = INT64_MIN, *high = INT64_MAX;
      return true;
    default:
      return false;
  }
}

/// Whether `t` is one of the quantized integer dtypes.
inline bool is_quantized_type(ScalarType t) {
  int64_t low = 0, high = 0;
  return dtype_range(t, &low, &high);
}

/// Whether [quant_min, quant_max] is a non-empty range inside dtype `t`'s.
inline bool range_fits(ScalarType t, int64_t quant_min, int64_t quant_max) {
  int64_t low = 0, high = 0;
  return dtype_range(t, &low, &high) && low <= quant_min && quant_min <= quant_max && quant_max <= high;
}

/// The type a float of type T is multiplied in: double for double, else float.
template <typename T>
using compute_t = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/// One value quantized: zero_point + round-half-even(x * inv_scale), clamped
/// to [quant_min, quant_max]. The product is rounded to float first, as
/// ExecuTorch's kernel does; a NaN maps to the (clamped) zero point.
template <typename Q, typename T>
inline Q quantize_one(T x, float inv_scale, int64_t zero_point, int64_t quant_min, int64_t quant_max) {
  const float scaled = static_cast<float>(static_cast<compute_t<T>>(x) * inv_scale);
  double q = static_cast<double>(zero_point) + (std::isnan(scaled) ? 0.0 : std::nearbyint(scaled));
  if (q < static_cast<double>(quant_min)) q = static_cast<double>(quant_min);
  if (q > static_cast<double>(quant_max)) q = static_cast<double>(quant_max);
  // Bounds of 64-bit ranges are not exact doubles: clamp again as integers.
  int64_t v = q >= 9.2e18 ? quant_max : (q <= -9.2e18 ? quant_min : static_cast<int64_t>(q));
  v = v < quant_min ? quant_min : (v > quant_max ? quant_max : v);
  return static_cast<Q>(v);
}

/// One value dequantized: (q - zero_point) * scale, in float (double for a
/// double output), then converted to the output type.
template <typename Out, typename Q>
inline Out dequantize_one(Q q, int64_t zero_point, float scale) {
  const int64_t centred = static_cast<int64_t>(q) - zero_point;
  return static_cast<Out>(static_cast<compute_t<Out>>(centred) * static_cast<compute_t<Out>>(scale));
}

/// Calls `body(Q{})` with the C type of quantized dtype `t`, through
/// ExecuTorch's dtype switch named `op` (so that a dtype-selective build keeps
/// only the dtypes its models use). Bits16, which the switch lacks, is read as
/// uint16_t; any other dtype fails through the context, naming `op`.
template <typename Body>
inline void switch_quantized(KernelRuntimeContext& ctx, ScalarType t, const char* op, const Body& body) {
  if (t == ScalarType::Bits16) {
    body(uint16_t{});
    return;
  }
  ET_SWITCH_INT_TYPES_AND(UInt16, t, ctx, op, Q, [&]() { body(Q{}); });
}

/// Whether `axis` names a dim of `t` (negative counts from the end); writes
/// it normalised.
inline bool normalize_axis(const Tensor& t, int64_t axis, int64_t* out) {
  const int64_t rank = t.dim();
  if (rank == 0 || axis < -rank || axis >= rank) return false;
  *out = axis < 0 ? axis + rank : axis;
  return true;
}

/// Product of t's sizes over dims [begin, end).
inline int64_t size_between(const Tensor& t, int64_t begin, int64_t end) {
  int64_t n = 1;
  for (int64_t d = begin; d < end; ++d) n *= t.size(d);
  return n;
}

/// A per-channel scale, read as float from a Double or Float tensor.
inline float scale_at(const Tensor& scales, int64_t i) {
  return scales.scalar_type() == ScalarType::Double ? static_cast<float>(scales.const_data_ptr<double>()[i])
                                                    : scales.const_data_ptr<float>()[i];
}

/// A per-channel zero point from an Int or Long tensor (0 when absent).
inline int64_t zero_point_at(const std::optional<Tensor>& zero_points, int64_t i) {
  if (!zero_points.has_value()) return 0;
  const Tensor& z = zero_points.value();
  return z.scalar_type() == ScalarType::Long ? z.const_data_ptr<int64_t>()[i]
                                             : static_cast<int64_t>(z.const_data_ptr<int32_t>()[i]);
}

}  // namespace quantized
}  // namespace etsb
