// aten::max_pool2d_with_indices.out: 2-D max pooling, returning the maxima and
// where they were found.
#include "util/math_util.h"
#include "util/pool_util.h"

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

/// True if v should replace the current maximum: greater, or NaN (which
/// propagates, as in ATen).
template <typename T>
inline bool beats(T v, T max) {
  return static_cast<bool>((v > max) | k::is_nan(v));  // no short circuit: no branch
}

/// Max-pools `planes` planes of h.in x w.in; indices are flat positions
/// within the input plane (ih * W + iw), as ATen reports them.
template <typename T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const k::Window& h, const k::Window& w) {
  const T lowest = k::lowest_value<T>();
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
            // Selects, not a branch: which tap wins is data, and mispredicting it cost most of the time.
            const T v = x[ih * w.in + iw];
            const bool wins = beats(v, max);
            max = wins ? v : max;
            where = wins ? ih * w.in + iw : where;
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
/// out (the input's dtype: real, Half, BFloat16) and indices (Long) are
/// resized to the pooled shape.
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(
    KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> kernel_size, ArrayRef<int64_t> stride,
    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, bool ceil_mode, Tensor& out, Tensor& indices) {
  Outputs outs(out, indices);
  ET_KERNEL_CHECK(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, outs);
  ET_KERNEL_CHECK_MSG(ctx, indices.scalar_type() == ScalarType::Long, InvalidArgument, outs,
                      "max_pool2d_with_indices.out: indices must be Long");
  ET_KERNEL_CHECK(ctx, k::is_contiguous(out) && k::is_contiguous(indices), InvalidArgument, outs);
  k::Window win[2];
  k::Shape shape;
  if (!k::make_pool_windows(ctx, "max_pool2d_with_indices.out", self, kernel_size, stride, padding, dilation,
                            ceil_mode, win, &shape)) {
    return outs;
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape) && k::resize_to(indices, shape), InvalidArgument, outs);
  const int64_t planes = k::size_product(self.sizes(), 0, self.dim() - 2);
  if (planes == 0) return outs;
  ET_SWITCH_REALHBF16_TYPES(self.scalar_type(), ctx, "max_pool2d_with_indices.out", CTYPE, [&]() {
    max_pool(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), indices.mutable_data_ptr<int64_t>(),
             planes, win[0], win[1]);
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
