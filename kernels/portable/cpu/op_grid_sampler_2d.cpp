// aten::grid_sampler_2d.out: samples an NCHW input at the normalised
// positions of a grid (bilinear, nearest or bicubic; zeros, border or
// reflection padding), as torch.nn.functional.grid_sample.
#include "util/kernel_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "grid_sampler_2d.out";  // the switch name
enum Mode : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

/// How positions map onto one axis of the input.
struct Axis {
  int64_t size;
  Padding padding;
  bool align_corners;
};

/// A normalised coordinate (-1 .. 1 spans the input) in input pixels.
template <typename CT>
CT unnormalise(CT coord, const Axis& a) {
  const CT size = static_cast<CT>(a.size);
  return a.align_corners ? (coord + 1) / 2 * (size - 1) : ((coord + 1) * size - 1) / 2;
}

/// `x` reflected into [low2 / 2, high2 / 2] (bounds given doubled).
template <typename CT>
CT reflect(CT x, int64_t low2, int64_t high2) {
  if (low2 == high2) return 0;
  const CT low = static_cast<CT>(low2) / 2, span = static_cast<CT>(high2 - low2) / 2;
  x = std::fabs(x - low);
  const CT extra = std::fmod(x, span);
  const int64_t flips = static_cast<int64_t>(std::floor(x / span));
  return flips % 2 == 0 ? extra + low : span - extra + low;
}

/// A pixel coordinate after padding: clipped into the input for border,
/// reflected then clipped for reflection, unchanged for zeros.
template <typename CT>
CT pad(CT x, const Axis& a) {
  if (a.padding == kZeros) return x;
  if (a.padding == kReflection) {
    x = a.align_corners ? reflect(x, 0, 2 * (a.size - 1)) : reflect(x, -1, 2 * a.size - 1);
  }
  const CT high = static_cast<CT>(a.size - 1);
  return x < 0 ? CT(0) : (x > high ? high : x);
}

/// One input plane [H, W] and its axes.
template <typename T>
struct Plane {
  const T* data;
  Axis h, w;
  /// The value at integer pixel (y, x), 0 outside the plane.
  template <typename CT>
  CT at(int64_t y, int64_t x) const {
    if (y < 0 || x < 0 || y >= h.size || x >= w.size) return 0;
    return static_cast<CT>(data[y * w.size + x]);
  }
};

/// The cubic convolution weights (A = -0.75) of the four taps around t in [0, 1).
template <typename CT>
void cubic_weights(CT t, CT* w) {
  const CT A = CT(-0.75);
  const auto near = [A](CT x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  const auto far = [A](CT x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
}

/// The sample of plane p at normalised grid position (gx, gy).
template <typename CT, typename T>
CT sample(const Plane<T>& p, Mode mode, CT gx, CT gy) {
  CT x = unnormalise(gx, p.w), y = unnormalise(gy, p.h);
  if (mode == kBicubic) {
    const CT x0 = std::floor(x), y0 = std::floor(y);
    CT wx[4], wy[4];
    cubic_weights(x - x0, wx);
    cubic_weights(y - y0, wy);
    CT acc = 0;
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        // Each tap is padded on its own, as ATen does for bicubic.
        const CT ty = pad(y0 - 1 + i, p.h), tx = pad(x0 - 1 + j, p.w);
        acc += wy[i] * wx[j] * p.template at<CT>(static_cast<int64_t>(ty), static_cast<int64_t>(tx));
      }
    }
    return acc;
  }
  x = pad(x, p.w);
  y = pad(y, p.h);
  if (mode == kNearest) {
    return p.template at<CT>(static_cast<int64_t>(std::nearbyint(y)), static_cast<int64_t>(std::nearbyint(x)));
  }
  const CT x0 = std::floor(x), y0 = std::floor(y);
  const CT fx = x - x0, fy = y - y0;
  const int64_t ix = static_cast<int64_t>(x0), iy = static_cast<int64_t>(y0);
  return (1 - fy) * ((1 - fx) * p.template at<CT>(iy, ix) + fx * p.template at<CT>(iy, ix + 1)) +
         fy * ((1 - fx) * p.template at<CT>(iy + 1, ix) + fx * p.template at<CT>(iy + 1, ix + 1));
}

}  // namespace

/// out[n, c, i, j] = input[n, c] sampled at grid[n, i, j] = (x, y), both in
/// [-1, 1] across the input (align_corners: at the corner pixels' centres;
/// else at the image's edges). interpolation_mode 0 bilinear, 1 nearest
/// (ties to even), 2 bicubic; padding_mode 0 zeros, 1 border, 2 reflection.
/// input [N, C, H, W] and grid [N, H_out, W_out, 2] contiguous, of one
/// floating dtype with out (Half and BFloat16 in float); out [N, C, H_out, W_out].
Tensor& grid_sampler_2d_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& grid,
                            int64_t interpolation_mode, int64_t padding_mode, bool align_corners, Tensor& out) {
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(dtype) && grid.scalar_type() == dtype && out.scalar_type() == dtype,
                      InvalidArgument, out, "%s: input, grid and out must share a floating dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx,
                      input.dim() == 4 && grid.dim() == 4 && grid.size(3) == 2 && grid.size(0) == input.size(0),
                      InvalidArgument, out, "%s: input must be [N, C, H, W] and grid [N, H_out, W_out, 2]", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(input) && k::is_contiguous(grid) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: input, grid and out must be contiguous", kName);
  ET_KERNEL_CHECK_MSG(ctx, interpolation_mode >= kBilinear && interpolation_mode <= kBicubic, InvalidArgument, out,
                      "%s: interpolation_mode must be 0, 1 or 2", kName);
  ET_KERNEL_CHECK_MSG(ctx, padding_mode >= kZeros && padding_mode <= kReflection, InvalidArgument, out,
                      "%s: padding_mode must be 0, 1 or 2", kName);
  const int64_t batch = input.size(0), channels = input.size(1), height = input.size(2), width = input.size(3);
  const int64_t oh = grid.size(1), ow = grid.size(2);
  const SizesType sizes[4] = {static_cast<SizesType>(batch), static_cast<SizesType>(channels),
                              static_cast<SizesType>(oh), static_cast<SizesType>(ow)};
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, {sizes, 4}), InvalidArgument, out, "%s: cannot resize out", kName);
  const Padding padding = static_cast<Padding>(padding_mode);
  const Mode mode = static_cast<Mode>(interpolation_mode);
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* g = grid.const_data_ptr<CTYPE>();
    CTYPE* y = out.mutable_data_ptr<CTYPE>();
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t c = 0; c < channels; ++c) {
        const Plane<CTYPE> plane{input.const_data_ptr<CTYPE>() + (n * channels + c) * height * width,
                                 {height, padding, align_corners}, {width, padding, align_corners}};
        const CTYPE* pos = g + n * oh * ow * 2;
        for (int64_t i = 0; i < oh * ow; ++i) {
          // ATen's bicubic sampling of Half and BFloat16 computes in the dtype itself (each step
          // rounded), which moves the taps; doing the same is what matches torch there.
          *y++ = mode == kBicubic && sizeof(CTYPE) == 2
                     ? sample<CTYPE>(plane, mode, pos[2 * i], pos[2 * i + 1])
                     : static_cast<CTYPE>(sample<CT>(plane, mode, static_cast<CT>(pos[2 * i]),
                                                     static_cast<CT>(pos[2 * i + 1])));
        }
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
