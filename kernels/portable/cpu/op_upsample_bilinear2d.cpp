// aten::upsample_bilinear2d.vec_out: bilinear 2-D resampling.
#include "util/unary_util.h"
#include "util/upsample_util.h"

#include <cmath>
#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "upsample_bilinear2d.vec_out";

/// Where output position i reads along one axis: the two neighbours and the
/// weight of the second, as ATen computes them.
struct Tap {
  int64_t first, second;
  double weight;
};

Tap tap_at(int64_t i, const k::UpsampleAxis& a, double scale, bool align_corners) {
  double src = align_corners ? scale * static_cast<double>(i) : scale * (static_cast<double>(i) + 0.5) - 0.5;
  if (src < 0) src = 0;
  Tap t;
  t.first = static_cast<int64_t>(src);
  if (t.first > a.in - 1) t.first = a.in - 1;
  t.second = t.first < a.in - 1 ? t.first + 1 : t.first;
  t.weight = src - static_cast<double>(t.first);
  return t;
}

/// An interpolated value stored as T: rounded to the nearest and clamped for
/// Byte, as ATen does, converted as is for floating types.
template <typename T, typename CT>
T store_as(CT value) {
  if constexpr (std::is_same<T, uint8_t>::value) {
    const CT r = std::nearbyint(value);
    return static_cast<T>(r < CT(0) ? CT(0) : (r > CT(255) ? CT(255) : r));
  } else {
    return static_cast<T>(value);
  }
}

}  // namespace

/// out = the input resampled to the output size with bilinear
/// interpolation (ATen's source coordinates, with or without
/// align_corners); a 4-D contiguous floating (Half and BFloat16 computing
/// in float) or Byte (rounded) input, out of the same dtype, resized.
Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    std::optional<ArrayRef<int64_t>> output_size, bool align_corners,
                                    std::optional<ArrayRef<double>> scale_factors, Tensor& out) {
  k::UpsampleAxis axes[2];
  k::Shape shape;
  if (!k::make_upsample_axes(ctx, kName, input, output_size, scale_factors, axes, &shape)) return out;
  ET_KERNEL_CHECK_MSG(ctx,
                      (k::is_floating(input.scalar_type()) || input.scalar_type() == ScalarType::Byte) &&
                          out.scalar_type() == input.scalar_type() && k::is_contiguous(out),
                      InvalidArgument, out, "%s: a floating or Byte input, out contiguous of the same dtype", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const double sh = k::source_scale(axes[0], align_corners);
  const double sw = k::source_scale(axes[1], align_corners);
  const int64_t planes = input.sizes()[0] * input.sizes()[1];
  const int64_t h = axes[0].in, w = axes[1].in, oh = axes[0].out, ow = axes[1].out;
  ET_SWITCH_FLOATHBF16_TYPES_AND(Byte, input.scalar_type(), ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* in = input.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    for (int64_t p = 0; p < planes; ++p) {
      const CTYPE* x = in + p * h * w;
      for (int64_t i = 0; i < oh; ++i) {
        const Tap r = tap_at(i, axes[0], sh, align_corners);
        const CT wr = static_cast<CT>(r.weight);
        for (int64_t j = 0; j < ow; ++j) {
          const Tap c = tap_at(j, axes[1], sw, align_corners);
          const CT wc = static_cast<CT>(c.weight);
          const CT top = (CT(1) - wc) * static_cast<CT>(x[r.first * w + c.first]) +
                         wc * static_cast<CT>(x[r.first * w + c.second]);
          const CT bottom = (CT(1) - wc) * static_cast<CT>(x[r.second * w + c.first]) +
                            wc * static_cast<CT>(x[r.second * w + c.second]);
          result[(p * oh + i) * ow + j] = store_as<CTYPE>((CT(1) - wr) * top + wr * bottom);
        }
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
