// 2-D pooling geometry (max_pool2d_with_indices, avg_pool2d): parameter lists
// of 1 or 2 values, window checks and ATen's output lengths.
#pragma once

#include "kernel_util.h"

namespace etsb {
namespace kernels {

/// Geometry of one spatial axis of a sliding window (pooling, convolution).
struct Window {
  int64_t in, kernel, stride, pad, dilation, out;
};

/// Entry `i` of a 2-D parameter given as 1 value (both axes) or 2; `empty`
/// when the list is empty (stride defaults to the kernel size).
inline bool pair_param(ArrayRef<int64_t> list, size_t i, int64_t empty, int64_t* value) {
  if (list.size() == 0) {
    *value = empty;
    return true;
  }
  if (list.size() != 1 && list.size() != 2) return false;
  *value = list.size() == 1 ? list[0] : list[i];
  return true;
}

/// ATen's output length: floor (or ceil) of the window count, where with
/// ceil_mode the last window must still start inside the input or left pad.
inline int64_t pooled_size(const Window& w, bool ceil_mode) {
  const int64_t span = w.dilation * (w.kernel - 1) + 1;
  const int64_t room = w.in + 2 * w.pad - span;
  if (room < 0) return 0;
  int64_t out = (room + (ceil_mode ? w.stride - 1 : 0)) / w.stride + 1;
  if (ceil_mode && (out - 1) * w.stride >= w.in + w.pad) --out;
  return out;
}

/// Fills the two windows of a 2-D pooling of `self` (3-D [C, H, W] or 4-D
/// [N, C, H, W]) and its output shape; false with ctx failed (a log naming
/// `name`) on a bad input or parameter. An empty `dilation` means 1.
inline bool make_pool_windows(KernelRuntimeContext& ctx, const char* name, const Tensor& self,
                              ArrayRef<int64_t> kernel_size, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                              ArrayRef<int64_t> dilation, bool ceil_mode, Window* win, Shape* shape) {
  const ssize_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, rank == 3 || rank == 4, InvalidArgument, false, "%s: input must be 3-D or 4-D", name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self), InvalidArgument, false, "%s: input must be contiguous", name);
  for (size_t i = 0; i < 2; ++i) {
    Window& w = win[i];
    w.in = self.sizes()[rank - 2 + i];
    ET_KERNEL_CHECK_MSG(ctx,
                        kernel_size.size() != 0 && pair_param(kernel_size, i, 0, &w.kernel) &&
                            pair_param(stride, i, w.kernel, &w.stride) && pair_param(padding, i, 0, &w.pad) &&
                            pair_param(dilation, i, 1, &w.dilation),
                        InvalidArgument, false, "%s: kernel_size, stride, padding, dilation need 1 or 2 values",
                        name);
    ET_KERNEL_CHECK_MSG(ctx,
                        size_like(w.kernel, 1) && size_like(w.stride, 1) && size_like(w.dilation, 1) &&
                            size_like(w.pad, 0) && 2 * w.pad <= w.kernel,
                        InvalidArgument, false, "%s: invalid window", name);
    w.out = pooled_size(w, ceil_mode);
    ET_KERNEL_CHECK_MSG(ctx, w.out > 0, InvalidArgument, false, "%s: window larger than the padded input", name);
  }
  *shape = shape_of(self);
  shape->sizes[rank - 2] = static_cast<SizesType>(win[0].out);
  shape->sizes[rank - 1] = static_cast<SizesType>(win[1].out);
  return true;
}

}  // namespace kernels
}  // namespace etsb
