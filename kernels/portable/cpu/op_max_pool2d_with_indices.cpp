// aten::max_pool2d_with_indices.out: 2-D max pooling, returning the maxima and
// where they were found.
#include "util/fast_math.h"
#include "util/math_util.h"
#include "util/parallel_util.h"
#include "util/pool_util.h"
#include "util/widened_io.h"

#include <cmath>
#include <cstdint>
#include <cstring>
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

#if defined(ETSB_X86_BUILDS)
#define ETSB_MAX_POOL_ROWS ETSB_AVX2_BUILD
#elif defined(__GNUC__) && !defined(__clang__) && defined(__aarch64__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_MAX_POOL_ROWS ETSB_HOT_LOOP
#endif

#if defined(ETSB_MAX_POOL_ROWS)
/// Float rows of max pooling, 8 outputs to a vector (GCC's vector
/// extensions), for strides 1 and 2 along the row: built for AVX2 alone on
/// x86-64 (a CPU without it takes the window-by-window loop; an SSE build of
/// these vectors was 6 KB a stride), once on AArch64 (NEON). Left out of
/// etsb's size configuration (fast_math.h's builds).
typedef float F8 __attribute__((vector_size(32)));
typedef int32_t I8 __attribute__((vector_size(32)));
constexpr I8 kLanes = {0, 1, 2, 3, 4, 5, 6, 7};

/// Floats of the stack buffer holding one output row's input rows, padded
/// with -inf (4 KB): wider rows take the window-by-window loop.
constexpr int64_t kPoolRowFloats = 1024;

/// The padded row's width an output row of w reads (from column -w.pad).
inline int64_t padded_width(const k::Window& w) { return (w.out - 1) * w.stride + (w.kernel - 1) * w.dilation + 1; }

/// Whether max_pool_row_f32 serves w (and h, for the buffer and the int32
/// indices of the plane) on this CPU.
inline bool rows_fit(const k::Window& h, const k::Window& w) {
  return (w.stride == 1 || w.stride == 2) && w.out >= 8 && padded_width(w) * h.kernel <= kPoolRowFloats &&
         h.in * w.in <= INT32_MAX && k::avx2_runs();
}

/// *v = the 8 taps at p, p + s, ..., p + 7 * s (s: 1, or 2 when `two`).
__attribute__((always_inline)) inline void taps8(const float* p, bool two, F8* v) {
  std::memcpy(v, p, sizeof *v);
  if (two) {
    F8 b;
    std::memcpy(&b, p + 8, sizeof b);
    *v = __builtin_shuffle(*v, b, I8{0, 2, 4, 6, 8, 10, 12, 14});
  }
}

/// *at = the plane index (row h0) of the first tap inside the input of
/// outputs ow0 .. ow0 + 7 (their columns *lane - w.pad): where ATen leaves
/// the index of a window of -inf.
__attribute__((always_inline)) inline void first_inside(int64_t ow0, const k::Window& w, int64_t h0, I8* lane,
                                                        I8* at) {
  *lane = (kLanes + static_cast<int32_t>(ow0)) * static_cast<int32_t>(w.stride);
  I8 iw = *lane - static_cast<int32_t>(w.pad);
  for (int64_t d = 0; d < w.pad && ow0 * w.stride < w.pad; d += w.dilation) {
    iw += (iw < 0) & static_cast<int32_t>(w.dilation);
  }
  *at = iw + static_cast<int32_t>(h0 * w.in);
}

/// Output row oh of plane x (rows_fit): the row's input rows copied padded
/// with -inf (which never wins, as a skipped tap), then 16 outputs at a time
/// (the last group overlapping the one before), tap by tap in max_pool's
/// order with the same rule (greater or NaN wins), so the same maximum and
/// index win; indices in int32 lanes, widened once.
ETSB_MAX_POOL_ROWS static void max_pool_row_f32(const float* __restrict x, float* __restrict out,
                                                int64_t* __restrict where, int64_t oh, const k::Window& h,
                                                const k::Window& w) {
  float rows[kPoolRowFloats];
  const int64_t width = padded_width(w), s = w.stride;
  int64_t h0 = oh * h.stride - h.pad;
  const int64_t h_end = h0 + (h.kernel - 1) * h.dilation + 1 < h.in ? h0 + (h.kernel - 1) * h.dilation + 1 : h.in;
  while (h0 < 0) h0 += h.dilation;
  int64_t taps_h = 0;
  for (int64_t ih = h0; ih < h_end; ih += h.dilation, ++taps_h) {
    float* r = rows + taps_h * width;
    const int64_t lo = w.pad < width ? w.pad : width, hi = w.pad + w.in < width ? w.pad + w.in : width;
    for (int64_t j = 0; j < lo; ++j) r[j] = -std::numeric_limits<float>::infinity();
    std::memcpy(r + lo, x + ih * w.in, (hi - lo) * sizeof(float));
    for (int64_t j = hi; j < width; ++j) r[j] = -std::numeric_limits<float>::infinity();
  }
  for (int64_t c = 0; c < w.out; c += 16) {
    // two groups of 8 at once: two chains of compare and select
    const int64_t a0 = c + 8 <= w.out ? c : w.out - 8, b0 = c + 16 <= w.out ? c + 8 : w.out - 8;
    I8 la, lb, ia, ib;
    first_inside(a0, w, h0, &la, &ia);
    first_inside(b0, w, h0, &lb, &ib);
    F8 ma = F8{} - std::numeric_limits<float>::infinity(), mb = ma;
    for (int64_t t = 0; t < taps_h; ++t) {
      const int32_t row_at = static_cast<int32_t>((h0 + t * h.dilation) * w.in - w.pad);
      const float* r = rows + t * width;
      for (int64_t kw = 0; kw < w.kernel; ++kw) {
        const int32_t at = row_at + static_cast<int32_t>(kw * w.dilation);
        F8 va, vb;
        taps8(r + a0 * s + kw * w.dilation, s == 2, &va);
        taps8(r + b0 * s + kw * w.dilation, s == 2, &vb);
        const I8 wa = (va > ma) | (va != va), wb = (vb > mb) | (vb != vb);
        ma = wa ? va : ma;
        mb = wb ? vb : mb;
        ia = wa ? la + at : ia;
        ib = wb ? lb + at : ib;
      }
    }
    std::memcpy(out + a0, &ma, sizeof ma);
    std::memcpy(out + b0, &mb, sizeof mb);
    for (int i = 0; i < 8; ++i) where[a0 + i] = ia[i];
    for (int i = 0; i < 8; ++i) where[b0 + i] = ib[i];
  }
}
#endif

/// Max-pools `planes` planes of h.in x w.in, elements read and written
/// through `io` as Acc; indices are flat positions within the input plane
/// (ih * W + iw), as ATen reports them. Float's rows go to max_pool_row_f32
/// where it serves them (rows_fit); the rest (and other dtypes) window by
/// window. Out of line: one build per Acc and Io, the integers
/// sharing one (in int64_t), Half and BFloat16 another (in float).
template <typename Acc, typename Io>
__attribute__((noinline)) void max_pool_io(const Io& io, const void* in, void* out, int64_t* indices, int64_t planes,
                                           const k::Window& h, const k::Window& w, Acc lowest) {
#if defined(ETSB_MAX_POOL_ROWS)
  if constexpr (std::is_same<Io, k::SameIo<float>>::value) {
    if (rows_fit(h, w)) {
      for (int64_t p = 0; p < planes; ++p) {
        for (int64_t oh = 0; oh < h.out; ++oh) {
          const float* x = static_cast<const float*>(in) + p * h.in * w.in;
          const int64_t row = (p * h.out + oh) * w.out;
          max_pool_row_f32(x, static_cast<float*>(out) + row, indices + row, oh, h, w);
        }
      }
      return;
    }
  }
#endif
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t x = p * h.in * w.in;
    for (int64_t oh = 0; oh < h.out; ++oh) {
      int64_t h0 = oh * h.stride - h.pad;
      const int64_t h_end = h0 + (h.kernel - 1) * h.dilation + 1 < h.in ? h0 + (h.kernel - 1) * h.dilation + 1 : h.in;
      while (h0 < 0) h0 += h.dilation;  // first tap inside the input
      for (int64_t ow = 0; ow < w.out; ++ow) {
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
/// worth a thread: ~1.8 us at the ~0.22 ns a tap of the vector rows on
/// ResNet-18's 3x3 stride-2 pool at 224 px (0.40 ms for 1.8 million taps,
/// out of cache; the window-by-window loop took ~0.6 ns), against a ~0.3 us
/// hand-over to a spinning worker (gemm_f32.h's kGemmTaskWork says more).
constexpr int64_t kPoolTaskWork = 8192;

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
