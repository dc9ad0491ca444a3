// 2-D upsampling (nearest, bilinear, antialiased bilinear): the output size from output_size or
// scale_factors, ATen's source-coordinate scales, and the strides that let
// the kernels walk NCHW tensors in any dim order (e.g. channels-last).
#pragma once

#include "copy_util.h"
#include "kernel_util.h"

#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace etsb {
namespace kernels {

/// One spatial axis of an upsampling: sizes and the source scale (input
/// positions per output position), or 0 when none is given explicitly.
struct UpsampleAxis {
  int64_t in, out;
  double scale_factor;  // the caller's scale factor, or 0 when output_size was given
};

/// Fills the two axes and out's shape from exactly one of output_size and
/// scale_factors (2 values each), for a 4-D [N, C, H, W] input in any dim
/// order that out shares; false with ctx failed (a log naming `name`) on
/// anything else.
inline bool make_upsample_axes(KernelRuntimeContext& ctx, const char* name, const Tensor& input,
                               const std::optional<ArrayRef<int64_t>>& output_size,
                               const std::optional<ArrayRef<double>>& scale_factors, UpsampleAxis* axes,
                               const Tensor& out, Shape* shape) {
  ET_KERNEL_CHECK_MSG(ctx, input.dim() == 4 && valid_dim_order(input) && same_dim_order(input, out),
                      InvalidArgument, false, "%s: input must be 4-D, out in its dim order", name);
  ET_KERNEL_CHECK_MSG(ctx, output_size.has_value() != scale_factors.has_value(), InvalidArgument, false,
                      "%s: give exactly one of output_size and scale_factors", name);
  ET_KERNEL_CHECK_MSG(ctx, (output_size.has_value() ? output_size->size() : scale_factors->size()) == 2,
                      InvalidArgument, false, "%s: output_size or scale_factors needs 2 values", name);
  *shape = shape_of(input);
  for (size_t i = 0; i < 2; ++i) {
    UpsampleAxis& a = axes[i];
    a.in = input.sizes()[2 + i];
    if (output_size.has_value()) {
      a.out = (*output_size)[i];
      a.scale_factor = 0;
    } else {
      a.scale_factor = (*scale_factors)[i];
      ET_KERNEL_CHECK_MSG(ctx, std::isfinite(a.scale_factor) && a.scale_factor > 0, InvalidArgument, false,
                          "%s: scale factors must be positive", name);
      const double size = std::floor(static_cast<double>(a.in) * a.scale_factor);
      a.out = size > INT32_MAX ? -1 : static_cast<int64_t>(size);
    }
    ET_KERNEL_CHECK_MSG(ctx, size_like(a.out, 1), InvalidArgument, false, "%s: invalid output size", name);
    shape->sizes[2 + i] = static_cast<SizesType>(a.out);
  }
  return true;
}

/// ATen's scale from output to input coordinates: (in - 1) / (out - 1) with
/// align_corners, else 1 / scale_factor when one was given, else in / out.
inline double source_scale(const UpsampleAxis& a, bool align_corners) {
  if (align_corners) return a.out > 1 ? static_cast<double>(a.in - 1) / static_cast<double>(a.out - 1) : 0.0;
  if (a.scale_factor > 0) return 1.0 / a.scale_factor;
  return static_cast<double>(a.in) / static_cast<double>(a.out);
}

/// The element strides of a 4-D tensor, by logical dim (N, C, H, W).
struct Strides4 {
  int64_t n, c, h, w;
};

inline Strides4 strides4_of(const Tensor& t) {
  int64_t s[kMaxDim];
  strides_of(t, s);
  return {s[0], s[1], s[2], s[3]};
}

/// The type interpolation computes in: float for Half, BFloat16, Float and
/// Byte (as ATen), double for Double and the integers wider than a byte
/// (exact for their values).
template <typename T>
using interp_t = typename std::conditional<std::is_integral<T>::value && (sizeof(T) > 1), double,
                                           float_compute_t<T>>::type;

/// An interpolated value stored as T: rounded to the nearest and clamped to
/// T's range for integers (as ATen does for Byte), converted as is for
/// floating types.
template <typename T, typename CT>
T store_as(CT value) {
  if constexpr (std::is_integral<T>::value) {
    const CT r = std::nearbyint(value);
    if (r <= static_cast<CT>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (r >= static_cast<CT>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(r);
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace kernels
}  // namespace etsb
