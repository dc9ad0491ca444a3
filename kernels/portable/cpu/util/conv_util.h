// Convolution by gathering: every tensor read and written through its strides
// (any dim order, e.g. channels-last), for the dtypes and layouts without a
// fast path in op_convolution.cpp.
#pragma once

#include "copy_util.h"
#include "kernel_util.h"
#include "pool_util.h"

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
  int64_t s[kMaxDim];
  strides_of(t, s);
  if (t.dim() == 3) return {s[0], s[1], 0, s[2]};
  return {s[0], s[1], s[2], s[3]};
}

/// Whether a tensor's elements lie where the default dim order puts them
/// (dims of size 1 aside, whose stride is never used): then the contiguous
/// loops apply whatever its dim order says.
inline bool dense(const Tensor& t) {
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

/// Convolution (plain or transposed) by gathering each output element's sum,
/// every tensor read or written through its strides: the path of the dtypes
/// without a fast path (integers, Half, BFloat16) and of layouts other than
/// the default (channels-last). Sums in float for Half and BFloat16 (rounded
/// once), in uint64_t for integers (so that overflow wraps, as ATen's
/// integer convolution does, without undefined behaviour).
template <typename T>
void conv2d_gather(const T* in, const T* weight, const T* bias, T* out, const ConvShape& s) {
  using Acc = typename std::conditional<std::is_integral<T>::value, uint64_t, float_compute_t<T>>::type;
  const auto widen = [](T v) {
    if constexpr (std::is_integral<T>::value) {
      return static_cast<Acc>(static_cast<int64_t>(v));
    } else {
      return static_cast<Acc>(v);
    }
  };
  const int64_t in_per_group = s.in_ch / s.groups;
  const int64_t out_per_group = s.out_ch / s.groups;
  for (int64_t b = 0; b < s.batch; ++b) {
    for (int64_t oc = 0; oc < s.out_ch; ++oc) {
      const int64_t g = oc / out_per_group;
      for (int64_t oh = 0; oh < s.h.out; ++oh) {
        for (int64_t ow = 0; ow < s.w.out; ++ow) {
          Acc acc = bias != nullptr ? widen(bias[oc]) : Acc(0);
          for (int64_t icl = 0; icl < in_per_group; ++icl) {
            const int64_t ic = g * in_per_group + icl;
            const T* x = in + b * s.in.n + ic * s.in.c;
            const T* wk = s.transposed ? weight + ic * s.weight.n + (oc % out_per_group) * s.weight.c
                                       : weight + oc * s.weight.n + icl * s.weight.c;
            for (int64_t kh = 0; kh < s.h.kernel; ++kh) {
              const int64_t ih = source_index(s.h, oh, kh, s.transposed);
              if (ih < 0) continue;
              for (int64_t kw = 0; kw < s.w.kernel; ++kw) {
                const int64_t iw = source_index(s.w, ow, kw, s.transposed);
                if (iw < 0) continue;
                acc += widen(x[ih * s.in.h + iw * s.in.w]) * widen(wk[kh * s.weight.h + kw * s.weight.w]);
              }
            }
          }
          out[b * s.out.n + oc * s.out.c + oh * s.out.h + ow * s.out.w] = static_cast<T>(acc);
        }
      }
    }
  }
}

}  // namespace kernels
}  // namespace etsb
