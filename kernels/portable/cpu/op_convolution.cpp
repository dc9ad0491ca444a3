// aten::convolution.out: 1-D and 2-D convolution (not transposed), NCHW.
#include "util/matmul_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// Geometry of one spatial axis.
struct Axis {
  int64_t in, kernel, stride, pad, dilation, out;
};

/// Reads entry `i` of a per-axis parameter list given with 1 entry (shared by
/// all axes) or one per axis. False if the list has another length.
bool axis_param(ArrayRef<int64_t> list, size_t i, size_t axes, int64_t* value) {
  if (list.size() != 1 && list.size() != axes) return false;
  *value = list.size() == 1 ? list[0] : list[i];
  return true;
}

/// The output positions [lo, hi) whose input position o * stride - pad + off
/// falls inside [0, in).
void valid_range(const Axis& a, int64_t off, int64_t* lo, int64_t* hi) {
  const int64_t shift = a.pad - off;  // o * stride >= shift
  int64_t l = shift <= 0 ? 0 : (shift + a.stride - 1) / a.stride;
  const int64_t last = a.in - 1 + a.pad - off;  // o * stride <= last
  int64_t h = last < 0 ? 0 : last / a.stride + 1;
  if (h > a.out) h = a.out;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/// Direct convolution, weight-stationary: each weight tap scales a shifted
/// input row into an output row, so with stride 1 the inner loop is a
/// contiguous axpy (matmul_util.h) with the bounds hoisted out of it.
template <typename T>
void conv2d(const T* in, const T* weight, const T* bias, T* out, int64_t batch, int64_t in_ch, int64_t out_ch,
            int64_t groups, const Axis& h, const Axis& w) {
  const int64_t in_per_group = in_ch / groups;
  const int64_t out_per_group = out_ch / groups;
  const int64_t in_plane = h.in * w.in;
  const int64_t out_plane = h.out * w.out;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oc = 0; oc < out_ch; ++oc) {
      T* o = out + (b * out_ch + oc) * out_plane;
      const T init = bias != nullptr ? bias[oc] : static_cast<T>(0);
      for (int64_t i = 0; i < out_plane; ++i) o[i] = init;
      const int64_t g = oc / out_per_group;
      for (int64_t ic = 0; ic < in_per_group; ++ic) {
        const T* x = in + (b * in_ch + g * in_per_group + ic) * in_plane;
        const T* wk = weight + (oc * in_per_group + ic) * h.kernel * w.kernel;
        for (int64_t kh = 0; kh < h.kernel; ++kh) {
          int64_t oh_lo, oh_hi;
          valid_range(h, kh * h.dilation, &oh_lo, &oh_hi);
          for (int64_t kw = 0; kw < w.kernel; ++kw) {
            const T tap = wk[kh * w.kernel + kw];
            int64_t ow_lo, ow_hi;
            valid_range(w, kw * w.dilation, &ow_lo, &ow_hi);
            const int64_t len = ow_hi - ow_lo;
            if (len <= 0) continue;
            for (int64_t oh = oh_lo; oh < oh_hi; ++oh) {
              const int64_t ih = oh * h.stride - h.pad + kh * h.dilation;
              const T* src = x + ih * w.in + (ow_lo * w.stride - w.pad + kw * w.dilation);
              T* dst = o + oh * w.out + ow_lo;
              if (w.stride == 1) {
                k::axpy(dst, tap, src, len);
              } else {
                for (int64_t j = 0; j < len; ++j) dst[j] += tap * src[j * w.stride];
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace

/// Convolution of input [N, C, H, W] (or [N, C, L] for 1-D) with weight
/// [OC, C / groups, KH, KW] and optional bias [OC]; stride, padding and
/// dilation take one value for all axes or one per axis. Float and Double,
/// contiguous (NCHW) tensors of one dtype; out is resized to [N, OC, OH, OW].
/// Transposed convolution is not supported and fails through the context.
Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, bool transposed, ArrayRef<int64_t> output_padding,
                        int64_t groups, Tensor& out) {
  (void)output_padding;  // only meaningful for transposed convolution
  ET_KERNEL_CHECK_MSG(ctx, !transposed, InvalidArgument, out,
                      "convolution.out: transposed convolution is not supported");
  const ssize_t rank = input.dim();
  ET_KERNEL_CHECK_MSG(ctx, (rank == 3 || rank == 4) && weight.dim() == rank, InvalidArgument, out,
                      "convolution.out: input and weight must both be 3-D or 4-D");
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK(ctx, weight.scalar_type() == dtype && out.scalar_type() == dtype, InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(input) && k::is_contiguous(weight) && k::is_contiguous(out),
                  InvalidArgument, out);
  const int64_t batch = input.sizes()[0];
  const int64_t in_ch = input.sizes()[1];
  const int64_t out_ch = weight.sizes()[0];
  ET_KERNEL_CHECK_MSG(ctx,
                      groups >= 1 && in_ch % groups == 0 && out_ch % groups == 0 &&
                          weight.sizes()[1] * groups == in_ch,
                      InvalidArgument, out, "convolution.out: channels do not match weight and groups");
  if (bias.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, bias->dim() == 1 && bias->sizes()[0] == out_ch && bias->scalar_type() == dtype,
                        InvalidArgument, out, "convolution.out: bias must be [OC] of the input's dtype");
  }
  // Axes: 2-D uses (H, W); 1-D is W alone with a unit H.
  const size_t axes = static_cast<size_t>(rank - 2);
  Axis ax[2] = {{1, 1, 1, 0, 1, 1}, {1, 1, 1, 0, 1, 1}};
  for (size_t i = 0; i < axes; ++i) {
    Axis& a = ax[2 - axes + i];
    a.in = input.sizes()[2 + i];
    a.kernel = weight.sizes()[2 + i];
    ET_KERNEL_CHECK_MSG(ctx,
                        axis_param(stride, i, axes, &a.stride) && axis_param(padding, i, axes, &a.pad) &&
                            axis_param(dilation, i, axes, &a.dilation),
                        InvalidArgument, out, "convolution.out: stride, padding, dilation need 1 or %zu values",
                        axes);
    ET_KERNEL_CHECK_MSG(ctx,
                        k::size_like(a.stride, 1) && k::size_like(a.dilation, 1) && k::size_like(a.pad, 0) &&
                            a.kernel > 0,
                        InvalidArgument, out,
                        "convolution.out: invalid stride, padding, dilation or kernel size");
    const int64_t span = a.dilation * (a.kernel - 1) + 1;
    ET_KERNEL_CHECK_MSG(ctx, a.in + 2 * a.pad >= span, InvalidArgument, out,
                        "convolution.out: kernel larger than the padded input");
    a.out = (a.in + 2 * a.pad - span) / a.stride + 1;
  }
  k::Shape shape;
  shape.push(batch);
  shape.push(out_ch);
  for (size_t i = 0; i < axes; ++i) shape.push(ax[2 - axes + i].out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  ET_SWITCH_FLOAT_TYPES(dtype, ctx, "convolution.out", CTYPE, [&]() {
    conv2d<CTYPE>(input.const_data_ptr<CTYPE>(), weight.const_data_ptr<CTYPE>(),
                  bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr, out.mutable_data_ptr<CTYPE>(), batch,
                  in_ch, out_ch, groups, ax[0], ax[1]);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
