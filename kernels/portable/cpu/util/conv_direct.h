// The Float convolution's direct loops (op_convolution.cpp), plain and
// transposed, for the size configuration's runs without scratch memory
// (kDirectWithoutScratch there): no im2col, no matrix product.
#pragma once

#include "conv_f32.h"
#include "matmul_util.h"
#include "pool_util.h"

#include <cstdint>

namespace etsb {
namespace kernels {

/// Direct convolution, weight-stationary: each weight tap scales a shifted
/// input row into an output row, so with stride 1 the inner loop is a
/// contiguous axpy (matmul_util.h) with the bounds hoisted out of it.
template <typename T>
static void conv2d_direct(const T* in, const T* weight, const T* bias, T* out, int64_t batch, int64_t in_ch,
                          int64_t out_ch, int64_t groups, const Window& h, const Window& w) {
  const int64_t in_per_group = in_ch / groups;
  const int64_t out_per_group = out_ch / groups;
  const int64_t in_plane = h.in * w.in;
  const int64_t out_plane = h.out * w.out;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t oc = 0; oc < out_ch; ++oc) {
      T* o = out + (b * out_ch + oc) * out_plane;
      fill_columns_with_bias(o, bias, oc, 1, out_plane, 0, out_plane);
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
                axpy(dst, tap, src, len);
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

/// Transposed convolution (the gradient of conv2d_direct with respect to its
/// input), scattering: each input element times each weight tap is added to
/// the output position it maps to. weight is [IC, OC / groups, KH, KW].
template <typename T>
static void conv2d_transposed_direct(const T* in, const T* weight, const T* bias, T* out, int64_t batch,
                                     int64_t in_ch, int64_t out_ch, int64_t groups, const Window& h, const Window& w) {
  const int64_t in_per_group = in_ch / groups;
  const int64_t out_per_group = out_ch / groups;
  const int64_t in_plane = h.in * w.in;
  const int64_t out_plane = h.out * w.out;
  for (int64_t b = 0; b < batch; ++b) {
    fill_columns_with_bias(out + b * out_ch * out_plane, bias, 0, out_ch, out_plane, 0, out_plane);
    for (int64_t ic = 0; ic < in_ch; ++ic) {
      const int64_t g = ic / in_per_group;
      const T* x = in + (b * in_ch + ic) * in_plane;
      for (int64_t ocl = 0; ocl < out_per_group; ++ocl) {
        T* o = out + (b * out_ch + g * out_per_group + ocl) * out_plane;
        const T* wk = weight + (ic * out_per_group + ocl) * h.kernel * w.kernel;
        for (int64_t kh = 0; kh < h.kernel; ++kh) {
          for (int64_t ih = 0; ih < h.in; ++ih) {
            const int64_t oh = ih * h.stride - h.pad + kh * h.dilation;
            if (oh < 0 || oh >= h.out) continue;
            for (int64_t kw = 0; kw < w.kernel; ++kw) {
              const T tap = wk[kh * w.kernel + kw];
              for (int64_t iw = 0; iw < w.in; ++iw) {
                const int64_t ow = iw * w.stride - w.pad + kw * w.dilation;
                if (ow >= 0 && ow < w.out) o[oh * w.out + ow] += tap * x[ih * w.in + iw];
              }
            }
          }
        }
      }
    }
  }
}

}  // namespace kernels
}  // namespace etsb
