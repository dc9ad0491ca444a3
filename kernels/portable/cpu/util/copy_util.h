// Data movement: strided copies (permute, expand, dim-order changes) with an
// optional dtype conversion, and dispatch on element size.
//
// Kernels that only move elements (permute_copy, expand_copy, split, embedding,
// where's selection) do not need to know the dtype, only its width: they
// dispatch on 1, 2, 4 or 8 bytes, which covers every real, Bool, Half and
// BFloat16 dtype with four small instantiations and nothing for a dtype-
// selective build to trim.
#pragma once

#include "kernel_util.h"

namespace etsb {
namespace kernels {

/// Calls `body(Word{})` with the unsigned integer type as wide as one element
/// of `dtype`; false (body not called) for widths other than 1, 2, 4, 8.
template <typename Body>
ET_INLINE bool with_element_word(ScalarType dtype, const Body& body) {
  switch (::executorch::runtime::elementSize(dtype)) {
    case 1: body(uint8_t{}); return true;
    case 2: body(uint16_t{}); return true;
    case 4: body(uint32_t{}); return true;
    case 8: body(uint64_t{}); return true;
    default: return false;
  }
}

/// The element strides of `t` in its own dim order (contiguous for the
/// default order), computed from sizes and dim order.
inline void strides_of(const Tensor& t, int64_t* strides) {
  const auto sizes = t.sizes();
  const auto order = t.dim_order();
  int64_t running = 1;
  for (size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = running;
    running *= sizes[order[k]];
  }
}

/// Whether a tensor's dim order is a permutation of its dims (runtime tensors
/// always are; this guards kernels against malformed inputs).
inline bool valid_dim_order(const Tensor& t) {
  const auto order = t.dim_order();
  if (order.size() != static_cast<size_t>(t.dim())) return false;
  bool seen[kMaxDim] = {false};
  for (size_t k = 0; k < order.size(); ++k) {
    if (order[k] >= order.size() || seen[order[k]]) return false;
    seen[order[k]] = true;
  }
  return true;
}

/// A walk over a contiguous destination: `ndim` dims of `sizes`, reading the
/// source with `strides`. Size-1 dims are dropped and dims the source also
/// walks contiguously are merged, so the innermost loop is as long as possible.
struct StridedPlan {
  size_t ndim = 1;
  int64_t sizes[kMaxDim];
  int64_t strides[kMaxDim];
};

inline void make_strided_plan(const int64_t* sizes, const int64_t* strides, size_t ndim, StridedPlan* plan) {
  size_t n = 0;  // innermost first while building
  int64_t s[kMaxDim];
  int64_t st[kMaxDim];
  for (size_t d = ndim; d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (n > 0 && strides[d] == st[n - 1] * s[n - 1]) {
      s[n - 1] *= sizes[d];
      continue;
    }
    s[n] = sizes[d];
    st[n] = strides[d];
    ++n;
  }
  if (n == 0) {
    s[0] = 1;
    st[0] = 0;
    n = 1;
  }
  plan->ndim = n;
  for (size_t k = 0; k < n; ++k) {
    plan->sizes[k] = s[n - 1 - k];
    plan->strides[k] = st[n - 1 - k];
  }
}

/// out[contiguous walk] = static_cast<Out>(in[strided walk]).
template <typename In, typename Out>
inline void strided_copy(const In* in, Out* out, const StridedPlan& p) {
  const size_t last = p.ndim - 1;
  const int64_t len = p.sizes[last];
  const int64_t step = p.strides[last];
  int64_t outer = 1;
  for (size_t d = 0; d < last; ++d) outer *= p.sizes[d];
  int64_t index[kMaxDim] = {0};
  int64_t offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const In* src = in + offset;
    Out* dst = out + o * len;
    if (step == 1) {
      for (int64_t j = 0; j < len; ++j) dst[j] = static_cast<Out>(src[j]);
    } else if (step == 0) {
      const Out v = static_cast<Out>(*src);
      for (int64_t j = 0; j < len; ++j) dst[j] = v;
    } else {
      for (int64_t j = 0; j < len; ++j) dst[j] = static_cast<Out>(src[j * step]);
    }
    for (size_t d = last; d-- > 0;) {
      offset += p.strides[d];
      if (++index[d] < p.sizes[d]) break;
      offset -= p.strides[d] * p.sizes[d];
      index[d] = 0;
    }
  }
}

/// out = in walked by `plan`, for tensors of one dtype: the elements are moved
/// as words of their width. False (nothing copied) for an unsupported width.
inline bool strided_move(const Tensor& in, Tensor& out, const StridedPlan& plan) {
  return with_element_word(in.scalar_type(), [&](auto word) {
    using W = decltype(word);
    strided_copy(in.const_data_ptr<W>(), out.mutable_data_ptr<W>(), plan);
  });
}

}  // namespace kernels
}  // namespace etsb
