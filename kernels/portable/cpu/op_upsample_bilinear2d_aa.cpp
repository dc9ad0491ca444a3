// aten::_upsample_bilinear2d_aa.out: antialiased bilinear 2-D resampling
// (torch's interpolate(mode="bilinear", antialias=True)).
#include "util/upsample_util.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "_upsample_bilinear2d_aa.out";  // the switch name

/// The input span one output position averages along one axis, and its
/// triangle filter: ATen's antialiasing weights, which widen the filter by
/// the scale when downsampling so that every input pixel contributes.
struct Span {
  int64_t first, count;
  double center, invscale, total;

  double raw(int64_t j) const {
    const double x = std::fabs((static_cast<double>(j + first) - center + 0.5) * invscale);
    return x < 1 ? 1 - x : 0;
  }
  /// The normalised weight of input first + j.
  double weight(int64_t j) const { return total != 0 ? raw(j) / total : raw(j); }
};

Span span_at(int64_t i, int64_t in_size, double scale) {
  const double support = scale >= 1 ? scale : 1.0;
  const int64_t widest = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  Span s;
  s.center = scale * (static_cast<double>(i) + 0.5);
  s.invscale = scale >= 1 ? 1 / scale : 1.0;
  s.first = std::max<int64_t>(static_cast<int64_t>(s.center - support + 0.5), 0);
  s.count = std::clamp<int64_t>(std::min<int64_t>(static_cast<int64_t>(s.center + support + 0.5), in_size) - s.first,
                                0, widest);
  s.total = 0;
  for (int64_t j = 0; j < s.count; ++j) s.total += s.raw(j);
  return s;
}

/// ATen's source scale of one axis: (in - 1) / (out - 1) with align_corners,
/// else 1 / scale when a positive one is given, else in / out.
double axis_scale(int64_t in, int64_t out, bool align_corners, const std::optional<double>& scale) {
  k::UpsampleAxis a{in, out, scale.has_value() && *scale > 0 ? *scale : 0.0};
  return k::source_scale(a, align_corners);
}

/// Every [H, W] plane of an [N, C, H, W] input resampled into out, each
/// tensor read or written through its strides (any dim order).
template <typename T>
void resample_aa(const T* in, const k::Strides4& is, T* out, const k::Strides4& os, int64_t batch, int64_t channels,
                 int64_t ih, int64_t iw, int64_t oh, int64_t ow, double sh, double sw) {
  using CT = k::interp_t<T>;
  for (int64_t p = 0; p < batch * channels; ++p) {
    const T* x = in + (p / channels) * is.n + (p % channels) * is.c;
    T* y = out + (p / channels) * os.n + (p % channels) * os.c;
    for (int64_t i = 0; i < oh; ++i) {
      const Span r = span_at(i, ih, sh);
      for (int64_t j = 0; j < ow; ++j) {
        const Span c = span_at(j, iw, sw);
        CT acc = 0;
        for (int64_t a = 0; a < r.count; ++a) {
          CT row = 0;
          const T* line = x + (r.first + a) * is.h + c.first * is.w;
          for (int64_t b = 0; b < c.count; ++b) row += static_cast<CT>(c.weight(b)) * static_cast<CT>(line[b * is.w]);
          acc += static_cast<CT>(r.weight(a)) * row;
        }
        y[i * os.h + j * os.w] = k::store_as<T>(acc);
      }
    }
  }
}

}  // namespace

/// out = input [N, C, H, W] resized to output_size (2 positive values) with
/// the antialiased triangle filter; scales_h and scales_w, when given and
/// positive, set ATen's source scales (1 / scale) without align_corners. A
/// real input (Half and BFloat16 in float, integers rounded to the nearest)
/// in any dim order (e.g. channels-last), out of its dtype and dim order,
/// resized.
Tensor& _upsample_bilinear2d_aa_out(KernelRuntimeContext& ctx, const Tensor& input, ArrayRef<int64_t> output_size,
                                    bool align_corners, std::optional<double> scales_h,
                                    std::optional<double> scales_w, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx,
                      ::executorch::runtime::isRealHBF16Type(input.scalar_type()) &&
                          out.scalar_type() == input.scalar_type(),
                      InvalidArgument, out, "%s: a real input, out of the same dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, input.dim() == 4 && k::valid_dim_order(input) && k::same_dim_order(input, out),
                      InvalidArgument, out, "%s: input must be [N, C, H, W], out in its dim order", kName);
  ET_KERNEL_CHECK_MSG(ctx, output_size.size() == 2 && k::size_like(output_size[0], 1) && k::size_like(output_size[1], 1),
                      InvalidArgument, out, "%s: output_size must be 2 positive sizes", kName);
  k::Shape shape = k::shape_of(input);
  shape.sizes[2] = static_cast<::executorch::aten::SizesType>(output_size[0]);
  shape.sizes[3] = static_cast<::executorch::aten::SizesType>(output_size[1]);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, shape), InvalidArgument, out, "%s: cannot resize out", kName);
  const int64_t ih = input.size(2), iw = input.size(3);
  ET_KERNEL_CHECK_MSG(ctx, input.numel() > 0 || out.numel() == 0, InvalidArgument, out,
                      "%s: an empty input has nothing to resample", kName);
  if (out.numel() == 0) return out;
  const double sh = axis_scale(ih, output_size[0], align_corners, scales_h);
  const double sw = axis_scale(iw, output_size[1], align_corners, scales_w);
  ET_SWITCH_REALHBF16_TYPES(input.scalar_type(), ctx, kName, CTYPE, [&]() {
    resample_aa<CTYPE>(input.const_data_ptr<CTYPE>(), k::strides4_of(input), out.mutable_data_ptr<CTYPE>(),
                       k::strides4_of(out), input.size(0), input.size(1), ih, iw, output_size[0], output_size[1], sh,
                       sw);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
