// Convolution and its gradients by gathering: every tensor read and written through its strides
// (any dim order, e.g. channels-last), for the dtypes and layouts without a
// fast path in op_convolution.cpp.
#pragma once

#include "copy_util.h"
#include "kernel_util.h"
#include "pool_util.h"
#include "widened_io.h"

#include <type_traits>

namespace etsb {
namespace kernels {

/// The element strides of a 3-D or 4-D tensor as 4-D (N, C, H, W; a 1-D
/// convolution's unit H gets stride 0), from its dim order. For the weight
/// the first two are its two channel dims.
struct Strides4 {
  int64_t n, c, h, w;
};

inline Strides4 strides4_of(const Tensor& t) {
  if (is_contiguous(t)) {  // the exported programs' tensors: no scatter through the dim order (see dense)
    const int64_t c = t.sizes()[1], w = t.sizes()[t.dim() - 1], h = t.dim() == 3 ? 1 : t.sizes()[2];
    return {c * h * w, h * w, t.dim() == 3 ? 0 : w, 1};
  }
  int64_t s[kMaxDim];
  strides_of(t, s);
  if (t.dim() == 3) return {s[0], s[1], 0, s[2]};
  return {s[0], s[1], s[2], s[3]};
}

/// Whether a tensor's elements lie where the default dim order puts them
/// (dims of size 1 aside, whose stride is never used): then the contiguous
/// loops apply whatever its dim order says.
inline bool dense(const Tensor& t) {
  // Contiguous at once: strides_of's stores through the dim order, each followed by a load of the next
  // size, took ~0.1 us of a small convolution's call (a stall on every store-to-load pair).
  if (is_contiguous(t)) return true;
  int64_t s[kMaxDim];
  strides_of(t, s);
  int64_t running = 1;
  for (ssize_t d = t.dim(); d-- > 0;) {
    if (t.sizes()[d] != 1 && s[d] != running) return false;
    running *= t.sizes()[d];
  }
  return true;
}

/// Sizes and strides of a convolution's three tensors, for the gathering loop.
struct ConvShape {
  int64_t batch, in_ch, out_ch, groups;
  Window h, w;
  Strides4 in, weight, out;
  bool transposed;
};

/// The input index along one axis that output position o reads through
/// kernel tap kk, or -1 where none does (padding, or a transposed
/// convolution's stride skipping it).
inline int64_t source_index(const Window& a, int64_t o, int64_t kk, bool transposed) {
  int64_t i = o * a.stride - a.pad + kk * a.dilation;
  if (transposed) {
    const int64_t shifted = o + a.pad - kk * a.dilation;
    if (shifted < 0 || shifted % a.stride != 0) return -1;
    i = shifted / a.stride;
  }
  return i < a.in ? i : -1;
}

/// Reads entry `i` of a per-axis parameter list given with 1 entry (shared by
/// all axes) or one per axis. False if the list has another length.
inline bool conv_axis_param(ArrayRef<int64_t> list, size_t i, size_t axes, int64_t* value) {
  if (list.size() != 1 && list.size() != axes) return false;
  *value = list.size() == 1 ? list[0] : list[i];
  return true;
}

/// The geometry of spatial axis i of `axes` (0: H or L, 1: W) from the
/// sizes and the per-axis parameters; false with ctx failed (a log naming
/// `name`) when they are invalid or give no output.
inline bool make_conv_axis(KernelRuntimeContext& ctx, const char* name, size_t i, size_t axes, const Tensor& input,
                           const Tensor& weight, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                           ArrayRef<int64_t> dilation, bool transposed, ArrayRef<int64_t> output_padding, Window* axis) {
  Window& a = *axis;
  a.in = input.sizes()[2 + i];
  a.kernel = weight.sizes()[2 + i];
  ET_KERNEL_CHECK_MSG(ctx,
                      conv_axis_param(stride, i, axes, &a.stride) && conv_axis_param(padding, i, axes, &a.pad) &&
                          conv_axis_param(dilation, i, axes, &a.dilation),
                      InvalidArgument, false, "%s: stride, padding, dilation need 1 or %zu values", name, axes);
  ET_KERNEL_CHECK_MSG(ctx, size_like(a.stride, 1) && size_like(a.dilation, 1) && size_like(a.pad, 0) && a.kernel > 0,
                      InvalidArgument, false, "%s: invalid stride, padding, dilation or kernel size", name);
  const int64_t span = a.dilation * (a.kernel - 1) + 1;
  if (transposed) {
    int64_t extra = 0;
    ET_KERNEL_CHECK_MSG(ctx,
                        output_padding.size() == 0 ||
                            (conv_axis_param(output_padding, i, axes, &extra) && extra >= 0 &&
                             (extra < a.stride || extra < a.dilation)),
                        InvalidArgument, false, "%s: output_padding must be below stride or dilation", name);
    a.out = (a.in - 1) * a.stride - 2 * a.pad + span + extra;
    ET_KERNEL_CHECK_MSG(ctx, a.in > 0 && size_like(a.out, 1), InvalidArgument, false,
                        "%s: invalid transposed output size", name);
  } else {
    ET_KERNEL_CHECK_MSG(ctx, a.in + 2 * a.pad >= span, InvalidArgument, false,
                        "%s: kernel larger than the padded input", name);
    a.out = (a.in + 2 * a.pad - span) / a.stride + 1;
  }
  return true;
}

/// The ConvShape (strides aside) and output shape of a convolution (plain or
/// transposed, 1-D or 2-D) of input by weight: ranks, groups and channels
/// checked; false with ctx failed (a log naming `name`) otherwise.
inline bool make_conv_shape(KernelRuntimeContext& ctx, const char* name, const Tensor& input, const Tensor& weight,
                            ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                            bool transposed, ArrayRef<int64_t> output_padding, int64_t groups, ConvShape* shape,
                            Shape* out_shape) {
  const ssize_t rank = input.dim();
  ET_KERNEL_CHECK_MSG(ctx, (rank == 3 || rank == 4) && weight.dim() == rank, InvalidArgument, false,
                      "%s: input and weight must both be 3-D or 4-D", name);
  ConvShape& s = *shape;
  s.batch = input.sizes()[0];
  s.in_ch = input.sizes()[1];
  s.groups = groups;
  s.transposed = transposed;
  ET_KERNEL_CHECK_MSG(ctx, groups >= 1 && groups <= INT32_MAX, InvalidArgument, false,
                      "%s: groups must be positive", name);
  s.out_ch = transposed ? weight.sizes()[1] * groups : weight.sizes()[0];
  const bool channels_match = transposed ? weight.sizes()[0] == s.in_ch && s.in_ch % groups == 0
                                         : s.in_ch % groups == 0 && s.out_ch % groups == 0 &&
                                               weight.sizes()[1] * groups == s.in_ch;
  ET_KERNEL_CHECK_MSG(ctx, channels_match, InvalidArgument, false, "%s: channels do not match weight and groups",
                      name);
  // Axes: 2-D uses (H, W); 1-D is W alone with a unit H.
  const size_t axes = static_cast<size_t>(rank - 2);
  s.h = s.w = {1, 1, 1, 0, 1, 1};
  out_shape->ndim = 0;
  out_shape->push(s.batch);
  out_shape->push(s.out_ch);
  for (size_t i = 0; i < axes; ++i) {
    Window* a = i + 1 == axes ? &s.w : &s.h;
    if (!make_conv_axis(ctx, name, i, axes, input, weight, stride, padding, dilation, transposed, output_padding, a)) {
      return false;
    }
    out_shape->push(a->out);
  }
  return true;
}

/// conv2d_gather's loop over untyped data, its elements read and written
/// through `io`. Out of line: one copy per Acc and Io, whatever the callers.
template <typename Acc, typename Io>
__attribute__((noinline)) void conv2d_gather_io(const Io& io, const void* in, const void* weight, const void* bias,
                                                void* out, const ConvShape& s) {
  const int64_t in_per_group = s.in_ch / s.groups;
  const int64_t out_per_group = s.out_ch / s.groups;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t oc = 0; oc < s.out_ch; ++oc) {
      const int64_t g = oc / out_per_group;
      for (int64_t oh = 0; oh < s.h.out; ++oh) {
        for (int64_t ow = 0; ow < s.w.out; ++ow) {
          Acc acc = bias != nullptr ? io.load(bias, oc) : Acc(0);
          for (int64_t icl = 0; icl < in_per_group; ++icl) {
            const int64_t ic = g * in_per_group + icl;
            const int64_t x = b * s.in.n + ic * s.in.c;
            const int64_t wk = s.transposed ? ic * s.weight.n + (oc % out_per_group) * s.weight.c
                                            : oc * s.weight.n + icl * s.weight.c;
            for (int64_t kh = 0; kh < s.h.kernel; ++kh) {
              const int64_t ih = source_index(s.h, oh, kh, s.transposed);
              if (ih < 0) continue;
              for (int64_t kw = 0; kw < s.w.kernel; ++kw) {
                const int64_t iw = source_index(s.w, ow, kw, s.transposed);
                if (iw < 0) continue;
                acc += io.load(in, x + ih * s.in.h + iw * s.in.w) *
                       io.load(weight, wk + kh * s.weight.h + kw * s.weight.w);
              }
            }
          }
          io.store(out, b * s.out.n + oc * s.out.c + oh * s.out.h + ow * s.out.w, acc);
        }
      }
    }
  }
}

/// Convolution (plain or transposed) by gathering each output element's sum,
/// every tensor read or written through its strides: the path of the dtypes
/// without a fast path (integers, Half, BFloat16, Double) and of layouts
/// other than the default (channels-last). Sums in T for Float and Double;
/// in float for Half and BFloat16 (rounded once), in uint64_t for integers
/// (so that overflow wraps, as ATen's integer convolution does, without
/// undefined behaviour), those sharing one loop per sum type (WidenedIo).
template <typename T>
void conv2d_gather(const T* in, const T* weight, const T* bias, T* out, const ConvShape& s) {
  if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value) {
    conv2d_gather_io<T>(SameIo<T>{}, in, weight, bias, out, s);
  } else {
    conv2d_gather_io<widened_t<T>>(widened_io<T>(), in, weight, bias, out, s);
  }
}

/// The output position that reads input position i along one axis through
/// kernel tap kk (source_index's inverse), or -1 where none does.
inline int64_t target_index(const Window& a, int64_t i, int64_t kk, bool transposed) {
  int64_t o = i * a.stride - a.pad + kk * a.dilation;
  if (!transposed) {
    const int64_t shifted = i + a.pad - kk * a.dilation;
    if (shifted < 0 || shifted % a.stride != 0) return -1;
    o = shifted / a.stride;
  }
  return o >= 0 && o < a.out ? o : -1;
}

/// The gradients of a convolution (plain or transposed) by gathering, each
/// element's sum in float (double for Double; wrapping uint64_t for
/// integers) and rounded once: grad_input
/// from grad_output and the weight, grad_weight from grad_output and the
/// input, grad_bias the sum of grad_output per output channel. A null
/// destination is not computed. grad_input, grad_weight and grad_output are
/// read or written with the strides of input, weight and out in `s`.
template <typename T>
void conv2d_backward_gather(const T* grad_out, const T* in, const T* weight, T* grad_in, T* grad_weight, T* grad_bias,
                            const ConvShape& s) {
  // Integers (ATen's dilated convolutions take them) sum in uint64_t so that overflow wraps.
  using Acc = typename std::conditional<std::is_integral<T>::value, uint64_t, float_compute_t<T>>::type;
  const int64_t in_per_group = s.in_ch / s.groups, out_per_group = s.out_ch / s.groups;
  // The weight element linking input channel ic and output channel oc.
  const auto weight_at = [&](int64_t ic, int64_t oc) {
    return s.transposed ? ic * s.weight.n + (oc % out_per_group) * s.weight.c
                        : oc * s.weight.n + (ic % in_per_group) * s.weight.c;
  };
  for (int64_t b = 0; grad_in != nullptr && b < s.batch; ++b) {
    for (int64_t ic = 0; ic < s.in_ch; ++ic) {
      const int64_t g = ic / in_per_group;
      for (int64_t ih = 0; ih < s.h.in; ++ih) {
        for (int64_t iw = 0; iw < s.w.in; ++iw) {
          Acc acc = 0;
          for (int64_t oc = g * out_per_group; oc < (g + 1) * out_per_group; ++oc) {
            const T* go = grad_out + b * s.out.n + oc * s.out.c;
            const T* wk = weight + weight_at(ic, oc);
            for (int64_t kh = 0; kh < s.h.kernel; ++kh) {
              const int64_t oh = target_index(s.h, ih, kh, s.transposed);
              if (oh < 0) continue;
              for (int64_t kw = 0; kw < s.w.kernel; ++kw) {
                const int64_t ow = target_index(s.w, iw, kw, s.transposed);
                if (ow < 0) continue;
                acc += acc_of<Acc>(go[oh * s.out.h + ow * s.out.w]) *
                       acc_of<Acc>(wk[kh * s.weight.h + kw * s.weight.w]);
              }
            }
          }
          grad_in[b * s.in.n + ic * s.in.c + ih * s.in.h + iw * s.in.w] = static_cast<T>(acc);
        }
      }
    }
  }
  for (int64_t ic = 0; grad_weight != nullptr && ic < s.in_ch; ++ic) {
    const int64_t g = ic / in_per_group;
    for (int64_t oc = g * out_per_group; oc < (g + 1) * out_per_group; ++oc) {
      for (int64_t kh = 0; kh < s.h.kernel; ++kh) {
        for (int64_t kw = 0; kw < s.w.kernel; ++kw) {
          Acc acc = 0;
          for (int64_t b = 0; b < s.batch; ++b) {
            const T* go = grad_out + b * s.out.n + oc * s.out.c;
            const T* x = in + b * s.in.n + ic * s.in.c;
            for (int64_t oh = 0; oh < s.h.out; ++oh) {
              const int64_t ih = source_index(s.h, oh, kh, s.transposed);
              if (ih < 0) continue;
              for (int64_t ow = 0; ow < s.w.out; ++ow) {
                const int64_t iw = source_index(s.w, ow, kw, s.transposed);
                if (iw < 0) continue;
                acc += acc_of<Acc>(go[oh * s.out.h + ow * s.out.w]) *
                       acc_of<Acc>(x[ih * s.in.h + iw * s.in.w]);
              }
            }
          }
          grad_weight[weight_at(ic, oc) + kh * s.weight.h + kw * s.weight.w] = static_cast<T>(acc);
        }
      }
    }
  }
  for (int64_t oc = 0; grad_bias != nullptr && oc < s.out_ch; ++oc) {
    Acc acc = 0;
    for (int64_t b = 0; b < s.batch; ++b) {
      for (int64_t oh = 0; oh < s.h.out; ++oh) {
        for (int64_t ow = 0; ow < s.w.out; ++ow) {
          acc += acc_of<Acc>(grad_out[b * s.out.n + oc * s.out.c + oh * s.out.h + ow * s.out.w]);
        }
      }
    }
    grad_bias[oc] = static_cast<T>(acc);
  }
}

}  // namespace kernels
}  // namespace etsb
