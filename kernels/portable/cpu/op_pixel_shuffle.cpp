// aten::pixel_shuffle.out and aten::pixel_unshuffle.out: channels moved into
// space blocks and back, each one permuted view of self.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kShuffle[] = "pixel_shuffle.out";
constexpr char kUnshuffle[] = "pixel_unshuffle.out";

/// The checks both share: rank >= 3 (and room for two more dims), out of
/// self's dtype, a positive factor. False with ctx failed otherwise.
bool shuffle_args_ok(KernelRuntimeContext& ctx, const char* name, const Tensor& self, int64_t factor,
                     const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.dim() >= 3 && static_cast<size_t>(self.dim()) + 2 <= k::kMaxDim, InvalidArgument,
                      false, "%s: self must have at least 3 dims", name);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::valid_dim_order(self), InvalidArgument,
                      false, "%s: out must have self's dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, k::size_like(factor, 1), InvalidArgument, false, "%s: factor %" PRId64 " out of range",
                      name, factor);
  return true;
}

/// The view's dims from `lead` on reordered (dim lead + j becomes old dim
/// lead + order[j], for `count` dims); the leading dims stay.
void permute_tail(k::View* v, size_t lead, const size_t* order, size_t count) {
  size_t perm[k::kMaxDim];
  for (size_t j = 0; j < lead; ++j) perm[j] = j;
  for (size_t j = 0; j < count; ++j) perm[lead + j] = lead + order[j];
  k::view_permute(v, perm);
}

}  // namespace

/// out[..., c, h * r + i, w * r + j] = self[..., c * r * r + i * r + j, h, w]
/// for r = upscale_factor (self's channels divisible by r * r): self viewed
/// as [..., C, r, r, H, W] and permuted to [..., C, H, r, W, r]. Any dtype,
/// copied by width; out contiguous, resized to [..., C, H * r, W * r].
Tensor& pixel_shuffle_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t upscale_factor, Tensor& out) {
  if (!shuffle_args_ok(ctx, kShuffle, self, upscale_factor, out)) return out;
  const size_t c = static_cast<size_t>(self.dim()) - 3;
  const int64_t r = upscale_factor;
  ET_KERNEL_CHECK_MSG(ctx, self.sizes()[c] % (r * r) == 0, InvalidArgument, out,
                      "%s: %d channels do not divide by %" PRId64 " squared", kShuffle,
                      static_cast<int>(self.sizes()[c]), r);
  k::Shape shape = k::shape_of(self);
  shape.sizes[c] /= static_cast<::executorch::aten::SizesType>(r * r);
  ET_KERNEL_CHECK_MSG(ctx, self.sizes()[c + 1] * r <= INT32_MAX && self.sizes()[c + 2] * r <= INT32_MAX,
                      InvalidArgument, out, "%s: result too large", kShuffle);
  shape.sizes[c + 1] *= static_cast<::executorch::aten::SizesType>(r);
  shape.sizes[c + 2] *= static_cast<::executorch::aten::SizesType>(r);
  k::View v = k::view_of(self);
  k::view_split_dim(&v, c, r * r);  // [..., C, r * r, H, W]
  k::view_split_dim(&v, c + 1, r);  // [..., C, r, r, H, W]
  const size_t order[5] = {0, 3, 1, 4, 2};  // C, H, r, W, r
  permute_tail(&v, c, order, 5);
  k::copy_view_as<kShuffle>(ctx, self, v, shape, out);
  return out;
}

/// The inverse of pixel_shuffle: out[..., c * r * r + i * r + j, h, w] =
/// self[..., c, h * r + i, w * r + j] for r = downscale_factor (self's last
/// two sizes divisible by r): self viewed as [..., C, H, r, W, r] and
/// permuted to [..., C, r, r, H, W]. Any dtype; out contiguous, resized.
Tensor& pixel_unshuffle_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t downscale_factor, Tensor& out) {
  if (!shuffle_args_ok(ctx, kUnshuffle, self, downscale_factor, out)) return out;
  const size_t c = static_cast<size_t>(self.dim()) - 3;
  const int64_t r = downscale_factor;
  ET_KERNEL_CHECK_MSG(ctx, self.sizes()[c + 1] % r == 0 && self.sizes()[c + 2] % r == 0, InvalidArgument, out,
                      "%s: height and width must divide by %" PRId64, kUnshuffle, r);
  k::Shape shape = k::shape_of(self);
  ET_KERNEL_CHECK_MSG(ctx, self.sizes()[c] * r * r <= INT32_MAX, InvalidArgument, out, "%s: result too large",
                      kUnshuffle);
  shape.sizes[c] *= static_cast<::executorch::aten::SizesType>(r * r);
  shape.sizes[c + 1] /= static_cast<::executorch::aten::SizesType>(r);
  shape.sizes[c + 2] /= static_cast<::executorch::aten::SizesType>(r);
  k::View v = k::view_of(self);
  k::view_split_dim(&v, c + 2, r);  // [..., C, H * r, W, r]
  k::view_split_dim(&v, c + 1, r);  // [..., C, H, r, W, r]
  const size_t order[5] = {0, 2, 4, 1, 3};  // C, r, r, H, W
  permute_tail(&v, c, order, 5);
  k::copy_view_as<kUnshuffle>(ctx, self, v, shape, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
