// aten::max_pool2d_with_indices.out: 2-D max pooling, returning the maxima and
// where they were found.
#include "util/kernel_util.h"

#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&>;

/// Pooling geometry of one spatial axis.
struct Window {
  int64_t in, kernel, stride, pad, dilation, out;
};

/// Entry `i` of a 2-D parameter given as 1 value (both axes) or 2; `empty`
/// when the list is empty (stride defaults to the kernel size).
bool pair_param(ArrayRef<int64_t> list, size_t i, int64_t empty, int64_t* value) {
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
int64_t pooled_size(const Window& w, bool ceil_mode) {
  const int64_t span = w.dilation * (w.kernel - 1) + 1;
  const int64_t room = w.in + 2 * w.pad - span;
  if (room < 0) return 0;
  int64_t out = (room + (ceil_mode ? w.stride - 1 : 0)) / w.stride + 1;
  if (ceil_mode && (out - 1) * w.stride >= w.in + w.pad) --out;
  return out;
}

/// True if v should replace the current maximum: greater, or NaN (which
/// propagates, as in ATen).
template <typename T>
inline bool beats(T v, T max) {
  if constexpr (std::is_floating_point<T>::value) {
    return v > max || std::isnan(v);
  } else {
    return v > max;
  }
}

/// Max-pools `planes` planes of h.in x w.in; indices are flat positions
/// within the input plane (ih * W + iw), as ATen reports them.
template <typename T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const Window& h, const Window& w) {
  const T lowest = std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                        : std::numeric_limits<T>::lowest();
  for (int64_t p = 0; p < planes; ++p) {
    const T* x = in + p * h.in * w.in;
    for (int64_t oh = 0; oh < h.out; ++oh) {
      int64_t h0 = oh * h.stride - h.pad;
      const int64_t h_end = h0 + (h.kernel - 1) * h.dilation + 1 < h.in ? h0 + (h.kernel - 1) * h.dilation + 1 : h.in;
      while (h0 < 0) h0 += h.dilation;  // first tap inside the input
      for (int64_t ow = 0; ow < w.out; ++ow) {
        int64_t w0 = ow * w.stride - w.pad;
        const int64_t w_end =
            w0 + (w.kernel - 1) * w.dilation + 1 < w.in ? w0 + (w.kernel - 1) * w.dilation + 1 : w.in;
        while (w0 < 0) w0 += w.dilation;
        T max = lowest;
        int64_t where = h0 * w.in + w0;
        for (int64_t ih = h0; ih < h_end; ih += h.dilation) {
          for (int64_t iw = w0; iw < w_end; iw += w.dilation) {
            const T v = x[ih * w.in + iw];
            if (beats(v, max)) {
              max = v;
              where = ih * w.in + iw;
            }
          }
        }
        const int64_t o = (p * h.out + oh) * w.out + ow;
        out[o] = max;
        indices[o] = where;
      }
    }
  }
}

}  // namespace

/// Max pooling over the last two dims of a 3-D [C, H, W] or 4-D [N, C, H, W]
/// contiguous input. kernel_size, stride (empty: the kernel size), padding
/// and dilation take 1 or 2 values; padding may be at most half the kernel.
/// out (the input's dtype, real types) and indices (Long) are resized to the
/// pooled shape.
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> kernel_size, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool ceil_mode, Tensor& out, Tensor& indices) {
  Outputs outs(out, indices);
  const ssize_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, rank == 3 || rank == 4, InvalidArgument, outs,
                      "max_pool2d_with_indices.out: input must be 3-D or 4-D");
  ET_KERNEL_CHECK(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, outs);
  ET_KERNEL_CHECK_MSG(ctx, indices.scalar_type() == ScalarType::Long, InvalidArgument, outs,
                      "max_pool2d_with_indices.out: indices must be Long");
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out) && k::is_contiguous(indices),
                  InvalidArgument, outs);
  Window win[2];
  for (size_t i = 0; i < 2; ++i) {
    Window& w = win[i];
    w.in = self.sizes()[rank - 2 + i];
    ET_KERNEL_CHECK_MSG(ctx,
                        kernel_size.size() != 0 && pair_param(kernel_size, i, 0, &w.kernel) &&
                            pair_param(stride, i, w.kernel, &w.stride) && pair_param(padding, i, 0, &w.pad) &&
                            pair_param(dilation, i, 1, &w.dilation),
                        InvalidArgument, outs,
                        "max_pool2d_with_indices.out: kernel_size, stride, padding, dilation need 1 or 2 values");
    ET_KERNEL_CHECK_MSG(ctx, k::size_like(w.kernel, 1) && k::size_like(w.stride, 1) && k::size_like(w.dilation, 1) &&
                            k::size_like(w.pad, 0) && 2 * w.pad <= w.kernel,
                        InvalidArgument, outs, "max_pool2d_with_indices.out: invalid window");
    w.out = pooled_size(w, ceil_mode);
    ET_KERNEL_CHECK_MSG(ctx, w.out > 0, InvalidArgument, outs,
                        "max_pool2d_with_indices.out: window larger than the padded input");
  }
  k::Shape shape = k::shape_of(self);
  shape.sizes[rank - 2] = static_cast<::executorch::aten::SizesType>(win[0].out);
  shape.sizes[rank - 1] = static_cast<::executorch::aten::SizesType>(win[1].out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape) && k::resize_to(indices, shape), InvalidArgument, outs);
  const int64_t planes = k::size_product(self.sizes(), 0, rank - 2);
  if (planes == 0) return outs;
  ET_SWITCH_REAL_TYPES(self.scalar_type(), ctx, "max_pool2d_with_indices.out", CTYPE, [&]() {
    max_pool(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), indices.mutable_data_ptr<int64_t>(),
             planes, win[0], win[1]);
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
