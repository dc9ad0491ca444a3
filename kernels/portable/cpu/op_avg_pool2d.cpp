// aten::avg_pool2d.out: 2-D average pooling.
#include "util/pool_util.h"

#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "avg_pool2d.out";  // the switch name

/// Averages each window of `planes` planes of h.in x w.in. The divisor is
/// ATen's: divisor_override when given (non-zero), else the window clipped
/// to the padded input (count_include_pad) or to the input itself.
/// Floating types sum in their compute type (float for Half and BFloat16);
/// integers in int64_t, divided with truncation.
template <typename T>
void avg_pool(const T* in, T* out, int64_t planes, const k::Window& h, const k::Window& w, bool count_include_pad,
              int64_t divisor_override) {
  using Acc = typename std::conditional<std::is_integral<T>::value, int64_t, k::float_compute_t<T>>::type;
  for (int64_t p = 0; p < planes; ++p) {
    const T* x = in + p * h.in * w.in;
    for (int64_t oh = 0; oh < h.out; ++oh) {
      int64_t h0 = oh * h.stride - h.pad;
      int64_t h1 = h0 + h.kernel < h.in + h.pad ? h0 + h.kernel : h.in + h.pad;
      const int64_t h_span = h1 - h0;
      h0 = h0 < 0 ? 0 : h0;
      h1 = h1 > h.in ? h.in : h1;
      for (int64_t ow = 0; ow < w.out; ++ow) {
        int64_t w0 = ow * w.stride - w.pad;
        int64_t w1 = w0 + w.kernel < w.in + w.pad ? w0 + w.kernel : w.in + w.pad;
        const int64_t w_span = w1 - w0;
        w0 = w0 < 0 ? 0 : w0;
        w1 = w1 > w.in ? w.in : w1;
        Acc sum = 0;
        for (int64_t ih = h0; ih < h1; ++ih) {
          for (int64_t iw = w0; iw < w1; ++iw) sum += static_cast<Acc>(x[ih * w.in + iw]);
        }
        int64_t divisor = divisor_override;
        if (divisor == 0) divisor = count_include_pad ? h_span * w_span : (h1 - h0) * (w1 - w0);
        const int64_t o = (p * h.out + oh) * w.out + ow;
        out[o] = divisor == 0 ? T(0) : static_cast<T>(sum / static_cast<Acc>(divisor));
      }
    }
  }
}

}  // namespace

/// Average pooling over the last two dims of a 3-D [C, H, W] or 4-D
/// [N, C, H, W] contiguous input: kernel_size, stride (empty: the kernel
/// size) and padding take 1 or 2 values, padding at most half the kernel;
/// divisor_override, when given, must be non-zero. Real, Half and BFloat16
/// dtypes; out has the input's dtype and is resized to the pooled shape.
Tensor& avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> kernel_size,
                       ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type() && k::is_contiguous(out), InvalidArgument, out,
                      "%s: out must be contiguous with self's dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, !divisor_override.has_value() || k::size_like(*divisor_override, 1), InvalidArgument, out,
                      "%s: divisor_override must be positive", kName);
  k::Window win[2];
  k::Shape shape;
  if (!k::make_pool_windows(ctx, kName, self, kernel_size, stride, padding, {}, ceil_mode, win, &shape)) return out;
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const int64_t planes = k::size_product(self.sizes(), 0, self.dim() - 2);
  if (planes == 0) return out;
  const int64_t divisor = divisor_override.has_value() ? *divisor_override : 0;
  ET_SWITCH_REALHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    avg_pool(self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), planes, win[0], win[1], count_include_pad,
             divisor);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
