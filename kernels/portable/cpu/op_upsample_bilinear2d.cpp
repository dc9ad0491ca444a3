// aten::upsample_bilinear2d.vec_out: bilinear 2-D resampling.
#include "util/upsample_util.h"

#include <cmath>
#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
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

/// Bilinear resampling of every [H, W] plane, each tensor read or written
/// through its strides (any dim order).
template <typename T>
void resample(const T* in, const k::Strides4& is, T* result, const k::Strides4& os, int64_t batch,
              int64_t channels, const k::UpsampleAxis* axes, bool align_corners) {
  using CT = k::interp_t<T>;
  const double sh = k::source_scale(axes[0], align_corners);
  const double sw = k::source_scale(axes[1], align_corners);
  for (int64_t p = 0; p < batch * channels; ++p) {
    const T* x = in + (p / channels) * is.n + (p % channels) * is.c;
    T* y = result + (p / channels) * os.n + (p % channels) * os.c;
    for (int64_t i = 0; i < axes[0].out; ++i) {
      const Tap r = tap_at(i, axes[0], sh, align_corners);
      const CT wr = static_cast<CT>(r.weight);
      const T* top_row = x + r.first * is.h;
      const T* bottom_row = x + r.second * is.h;
      for (int64_t j = 0; j < axes[1].out; ++j) {
        const Tap c = tap_at(j, axes[1], sw, align_corners);
        const CT wc = static_cast<CT>(c.weight);
        const int64_t left = c.first * is.w, right = c.second * is.w;
        const CT top = (CT(1) - wc) * static_cast<CT>(top_row[left]) + wc * static_cast<CT>(top_row[right]);
        const CT bottom =
            (CT(1) - wc) * static_cast<CT>(bottom_row[left]) + wc * static_cast<CT>(bottom_row[right]);
        y[i * os.h + j * os.w] = k::store_as<T>((CT(1) - wr) * top + wr * bottom);
      }
    }
  }
}

}  // namespace

/// out = the input resampled to the output size with bilinear
/// interpolation (ATen's source coordinates, with or without
/// align_corners); a 4-D real input (Half and BFloat16 computing in float,
/// integers rounded to the nearest) in any dim order, out of the same dtype
/// and dim order, resized.
Tensor& upsample_bilinear2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                    std::optional<ArrayRef<int64_t>> output_size, bool align_corners,
                                    std::optional<ArrayRef<double>> scale_factors, Tensor& out) {
  k::UpsampleAxis axes[2];
  k::Shape shape;
  if (!k::make_upsample_axes(ctx, kName, input, output_size, scale_factors, axes, out, &shape)) return out;
  ET_KERNEL_CHECK_MSG(ctx,
                      ::executorch::runtime::isRealHBF16Type(input.scalar_type()) &&
                          out.scalar_type() == input.scalar_type(),
                      InvalidArgument, out, "%s: a real input, out of the same dtype", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  ET_SWITCH_REALHBF16_TYPES(input.scalar_type(), ctx, kName, CTYPE, [&]() {
    resample<CTYPE>(input.const_data_ptr<CTYPE>(), k::strides4_of(input), out.mutable_data_ptr<CTYPE>(),
                    k::strides4_of(out), input.sizes()[0], input.sizes()[1], axes, align_corners);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
