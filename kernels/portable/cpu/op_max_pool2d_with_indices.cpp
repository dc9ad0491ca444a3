// aten::max_pool2d_with_indices.out: 2-D max pooling, returning the maxima and
// where they were found.
#include "util/fast_math.h"
#include "util/math_util.h"
#include "util/parallel_util.h"
#include "util/pool_util.h"
#include "util/widened_io.h"

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

/// The outputs [*lo, *hi) along axis a whose every tap falls inside the
/// input (no padding read).
void inner_range(const k::Window& a, int64_t* lo, int64_t* hi) {
  const int64_t span = (a.kernel - 1) * a.dilation;
  *lo = a.pad <= 0 ? 0 : (a.pad + a.stride - 1) / a.stride;  // o * stride >= pad
  const int64_t last = a.in - 1 - span + a.pad;               // o * stride <= last
  *hi = last < 0 ? 0 : last / a.stride + 1;
  if (*hi > a.out) *hi = a.out;
  if (*lo > *hi) *lo = *hi;
}

/// Float outputs [ow_lo, ow_hi) of output row oh, every tap inside the
/// plane x: tap by tap (in the order max_pool takes them, so the same
/// maximum and index win), each a pass along the row the vectoriser takes
/// whole (strided loads, selects of value and index).
ETSB_HOT_LOOP static void max_pool_row_f32(const float* __restrict x, float* __restrict out,
                                           int64_t* __restrict where, int64_t oh, int64_t ow_lo, int64_t ow_hi,
                                           const k::Window& h, const k::Window& w) {
  const float lowest = k::lowest_value<float>();
  const int64_t first = (oh * h.stride - h.pad) * w.in - w.pad;
  for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
    out[ow] = lowest;
    where[ow] = first + ow * w.stride;
  }
  for (int64_t kh = 0; kh < h.kernel; ++kh) {
    for (int64_t kw = 0; kw < w.kernel; ++kw) {
      const int64_t at = first + kh * h.dilation * w.in + kw * w.dilation;
      for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
        const float v = x[at + ow * w.stride];
        const bool wins = (v > out[ow]) | (v != v);
        out[ow] = wins ? v : out[ow];
        where[ow] = wins ? at + ow * w.stride : where[ow];
      }
    }
  }
}

/// Max-pools `planes` planes of h.in x w.in, elements read and written
/// through `io` as Acc; indices are flat positions within the input plane
/// (ih * W + iw), as ATen reports them. Float's outputs whose window lies
/// inside the plane go to max_pool_row_f32; the rest (and other dtypes)
/// window by window. Out of line: one build per Acc and Io, the integers
/// sharing one (in int64_t), Half and BFloat16 another (in float).
template <typename Acc, typename Io>
__attribute__((noinline)) void max_pool_io(const Io& io, const void* in, void* out, int64_t* indices, int64_t planes,
                                           const k::Window& h, const k::Window& w, Acc lowest) {
  constexpr bool kFloat = std::is_same<Io, k::SameIo<float>>::value;
  int64_t oh_lo = 0, oh_hi = 0, ow_lo = 0, ow_hi = 0;
  if constexpr (kFloat) {
    inner_range(h, &oh_lo, &oh_hi);
    inner_range(w, &ow_lo, &ow_hi);
  }
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t x = p * h.in * w.in;
    for (int64_t oh = 0; oh < h.out; ++oh) {
      const bool inner_row = oh >= oh_lo && oh < oh_hi;
      if constexpr (kFloat) {
        if (inner_row) {
          const int64_t row = (p * h.out + oh) * w.out;
          max_pool_row_f32(static_cast<const float*>(in) + x, static_cast<float*>(out) + row, indices + row, oh,
                           ow_lo, ow_hi, h, w);
        }
      }
      int64_t h0 = oh * h.stride - h.pad;
      const int64_t h_end = h0 + (h.kernel - 1) * h.dilation + 1 < h.in ? h0 + (h.kernel - 1) * h.dilation + 1 : h.in;
      while (h0 < 0) h0 += h.dilation;  // first tap inside the input
      for (int64_t ow = 0; ow < w.out; ++ow) {
        if (inner_row && ow == ow_lo) ow = ow_hi;  // done above
        if (ow >= w.out) break;
        int64_t w0 = ow * w.stride - w.pad;
        const int64_t w_end =
            w0 + (w.kernel - 1) * w.dilation + 1 < w.in ? w0 + (w.kernel - 1) * w.dilation + 1 : w.in;
        while (w0 < 0) w0 += w.dilation;
        Acc max = lowest;
        int64_t where = h0 * w.in + w0;
        for (int64_t ih = h0; ih < h_end; ih += h.dilation) {
          for (int64_t iw = w0; iw < w_end; iw += w.dilation) {
            // Selects, not a branch: which tap wins is data, and mispredicting it cost most of the time.
            const Acc v = io.load(in, x + ih * w.in + iw);
            const bool wins = beats(v, max);
            max = wins ? v : max;
            where = wins ? ih * w.in + iw : where;
          }
        }
        const int64_t o = (p * h.out + oh) * w.out + ow;
        io.store(out, o, max);
        indices[o] = where;
      }
    }
  }
}

/// Taps (window elements read) below which a piece of max pooling is not
/// worth a thread: ~2 us at the ~0.6 ns a tap ResNet's 3x3 stride-2 pool
/// takes (bench/results/bench_profile.md), against a ~0.3 us hand-over to a
/// spinning worker (gemm_f32.h's kGemmTaskWork says more).
constexpr int64_t kPoolTaskWork = 4096;

/// max_pool_io for T: Float and Double on their own builds, the others
/// widened (integers to int64_t, Half and BFloat16 to float: every value
/// and comparison exact). Float's planes are cut into pieces for the thread
/// pool (parallel_util.h) when there are enough taps; each plane is pooled
/// alike whatever the cut.
template <typename T>
void max_pool(const T* in, T* out, int64_t* indices, int64_t planes, const k::Window& h, const k::Window& w) {
  if constexpr (std::is_same<T, float>::value) {
    const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out;
    const int64_t taps = out_plane * h.kernel * w.kernel, plane_taps = taps > 0 ? taps : 1;
    k::parallel_range(0, planes, (kPoolTaskWork + plane_taps - 1) / plane_taps, [&](int64_t first, int64_t last) {
      max_pool_io<float>(k::SameIo<float>{}, in + first * in_plane, out + first * out_plane,
                         indices + first * out_plane, last - first, h, w, k::lowest_value<float>());
    });
  } else if constexpr (std::is_same<T, double>::value) {
    max_pool_io<T>(k::SameIo<T>{}, in, out, indices, planes, h, w, k::lowest_value<T>());
  } else {
    using Acc = typename std::conditional<std::is_integral<T>::value, int64_t, float>::type;
    max_pool_io<Acc>(k::widened_io<T, Acc>(), in, out, indices, planes, h, w, k::acc_of<Acc>(k::lowest_value<T>()));
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
