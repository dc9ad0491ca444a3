// aten::upsample_nearest2d.vec_out: nearest-neighbour 2-D resampling.
#include "util/copy_util.h"
#include "util/upsample_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "upsample_nearest2d.vec_out";
}  // namespace

/// out[n, c, i, j] = input[n, c, floor(i * sh), floor(j * sw)] (clamped to
/// the input), sh and sw ATen's source scales (k::source_scale without
/// align_corners); a 4-D input of any dtype, moved by width, in any dim order
/// (walked through its strides); out has its dtype and dim order and is
/// resized.
Tensor& upsample_nearest2d_vec_out(KernelRuntimeContext& ctx, const Tensor& input,
                                   std::optional<ArrayRef<int64_t>> output_size,
                                   std::optional<ArrayRef<double>> scale_factors, Tensor& out) {
  k::UpsampleAxis axes[2];
  k::Shape shape;
  if (!k::make_upsample_axes(ctx, kName, input, output_size, scale_factors, axes, out, &shape)) return out;
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == input.scalar_type(), InvalidArgument, out,
                      "%s: out must have the input's dtype", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const double sh = k::source_scale(axes[0], false);
  const double sw = k::source_scale(axes[1], false);
  const int64_t batch = input.sizes()[0], channels = input.sizes()[1];
  const int64_t h = axes[0].in, w = axes[1].in, oh = axes[0].out, ow = axes[1].out;
  const k::Strides4 is = k::strides4_of(input);
  const k::Strides4 os = k::strides4_of(out);
  const bool moved = k::with_element_word(input.scalar_type(), [&](auto word) {
    using W = decltype(word);
    const W* in = input.const_data_ptr<W>();
    W* result = out.mutable_data_ptr<W>();
    for (int64_t p = 0; p < batch * channels; ++p) {
      const int64_t n = p / channels, c = p % channels;
      for (int64_t i = 0; i < oh; ++i) {
        int64_t r = static_cast<int64_t>(std::floor(static_cast<double>(i) * sh));
        r = r < h - 1 ? r : h - 1;
        const W* row = in + n * is.n + c * is.c + r * is.h;
        W* dst = result + n * os.n + c * os.c + i * os.h;
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t col = static_cast<int64_t>(std::floor(static_cast<double>(j) * sw));
          dst[j * os.w] = row[(col < w - 1 ? col : w - 1) * is.w];
        }
      }
    }
  });
  ET_KERNEL_CHECK_MSG(ctx, moved, InvalidArgument, out, "%s: unsupported dtype", kName);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
