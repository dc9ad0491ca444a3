// Broadcasting: the output shape of tensors combined elementwise, and an
// iteration plan that walks the output in order while tracking where each
// input's element lives.
//
// The plan drops output dims of size 1 and merges adjacent dims that every
// input walks contiguously (or broadcasts over together), so a typical
// broadcast such as [B, N, D] + [D] becomes a 2-D walk whose innermost run is a
// plain loop. Each innermost run has, per input, a stride of 1 (walks along)
// or 0 (repeats one element): kernels pick a specialised loop per case.
// All tensors are taken in the default (contiguous) dim order.
#pragma once

#include "kernel_util.h"

namespace etsb {
namespace kernels {

/// The broadcast of `count` tensor shapes (NumPy rules: align right, a size-1
/// dim stretches). False if two sizes differ and neither is 1.
inline bool broadcast_shape(const Tensor* const* tensors, size_t count, Shape* out) {
  size_t ndim = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t r = static_cast<size_t>(tensors[i]->dim());
    if (r > ndim) ndim = r;
  }
  out->ndim = ndim;
  for (size_t d = 0; d < ndim; ++d) {
    int64_t size = 1;
    for (size_t i = 0; i < count; ++i) {
      const auto sizes = tensors[i]->sizes();
      const size_t r = sizes.size();
      if (d + r < ndim) continue;  // this tensor has no such leading dim
      const int64_t s = sizes[d + r - ndim];
      if (s == size || s == 1) continue;
      if (size != 1) return false;
      size = s;
    }
    out->sizes[d] = static_cast<SizesType>(size);
  }
  return true;
}

inline bool broadcast_shape(const Tensor& a, const Tensor& b, Shape* out) {
  const Tensor* ts[2] = {&a, &b};
  return broadcast_shape(ts, 2, out);
}

inline bool broadcast_shape(const Tensor& a, const Tensor& b, const Tensor& c, Shape* out) {
  const Tensor* ts[3] = {&a, &b, &c};
  return broadcast_shape(ts, 3, out);
}

/// The elements of `out` for each element of `rows` when rows, of out's
/// rank, stretches along out's trailing dims only (its sizes are out's up to
/// some dim and 1 after it: squeeze-and-excite's [N, C, 1, 1] against
/// [N, C, H, W]), so that out's element r * inner + j pairs with rows'
/// element r (both contiguous); 0 for any other shape.
inline int64_t trailing_broadcast_inner(const Tensor& rows, const Tensor& out) {
  const ssize_t rank = out.dim();
  if (rows.dim() != rank) return 0;
  ssize_t d = 0;
  while (d < rank && rows.size(d) == out.size(d)) ++d;
  int64_t inner = 1;
  for (; d < rank; ++d) {
    if (rows.size(d) != 1) return 0;
    inner *= out.size(d);
  }
  return inner;
}

/// How N inputs map onto a contiguous output, after collapsing dims.
template <size_t N>
struct BroadcastPlan {
  size_t ndim = 1;                // collapsed rank, at least 1
  int64_t sizes[kMaxDim];         // collapsed output sizes
  int64_t strides[N][kMaxDim];    // element stride of each input per dim; 0 = broadcast
};

/// Builds the plan for inputs that broadcast to `out` (checked by the caller).
template <size_t N>
inline void make_broadcast_plan(const Shape& out, const Tensor* const (&inputs)[N], BroadcastPlan<N>* plan) {
  // Contiguous stride of every output dim in every input, innermost first.
  int64_t stride[N][kMaxDim];
  for (size_t i = 0; i < N; ++i) {
    const auto sizes = inputs[i]->sizes();
    const size_t r = sizes.size();
    int64_t running = 1;
    for (size_t d = out.ndim; d-- > 0;) {
      const size_t back = out.ndim - 1 - d;  // position from the right
      if (back >= r) {
        stride[i][d] = 0;  // missing leading dim: broadcast
        continue;
      }
      const int64_t s = sizes[r - 1 - back];
      stride[i][d] = (s == 1) ? 0 : running;
      running *= s;
    }
  }
  // Walk dims innermost first; skip size-1 dims, merge where all inputs agree.
  size_t n = 0;  // collapsed dims so far, stored innermost first
  int64_t sizes[kMaxDim];
  int64_t strides[N][kMaxDim];
  for (size_t d = out.ndim; d-- > 0;) {
    const int64_t size = out.sizes[d];
    if (size == 1) continue;
    bool merge = n > 0;
    for (size_t i = 0; merge && i < N; ++i) {
      merge = stride[i][d] == strides[i][n - 1] * sizes[n - 1];
    }
    if (merge) {
      sizes[n - 1] *= size;
      continue;
    }
    sizes[n] = size;
    for (size_t i = 0; i < N; ++i) strides[i][n] = stride[i][d];
    ++n;
  }
  if (n == 0) {  // a single element (or a 0-dim output)
    sizes[0] = 1;
    for (size_t i = 0; i < N; ++i) strides[i][0] = 0;
    n = 1;
  }
  // Store outermost first.
  plan->ndim = n;
  for (size_t k = 0; k < n; ++k) {
    plan->sizes[k] = sizes[n - 1 - k];
    for (size_t i = 0; i < N; ++i) plan->strides[i][k] = strides[i][n - 1 - k];
  }
}

/// Calls `run(out_offset, in_offsets, length)` for every innermost run of the
/// plan, in output order. Within a run, input i advances by
/// plan.strides[i][plan.ndim - 1] (0 or 1) per element.
template <size_t N, typename Run>
inline void for_each_run(const BroadcastPlan<N>& plan, Run&& run) {
  const size_t last = plan.ndim - 1;
  const int64_t length = plan.sizes[last];
  int64_t outer = 1;
  for (size_t d = 0; d < last; ++d) outer *= plan.sizes[d];
  int64_t index[kMaxDim] = {0};
  int64_t offset[N] = {0};
  for (int64_t o = 0; o < outer; ++o) {
    run(o * length, static_cast<const int64_t*>(offset), length);
    // Advance the odometer over the outer dims.
    for (size_t d = last; d-- > 0;) {
      for (size_t i = 0; i < N; ++i) offset[i] += plan.strides[i][d];
      if (++index[d] < plan.sizes[d]) break;
      for (size_t i = 0; i < N; ++i) offset[i] -= plan.strides[i][d] * plan.sizes[d];
      index[d] = 0;
    }
  }
}

/// Walks two tensors broadcast to `shape` (both in the default dim order),
/// calling `visit(flat_index, a_index, b_index)` per element of the broadcast
/// shape, in order (masked_fill, masked_scatter, masked_select).
template <typename Visit>
inline void for_each_binary(const Tensor& a, const Tensor& b, const Shape& shape, const Visit& visit) {
  const int64_t n = shape.numel();
  if (a.numel() == n && b.numel() == n) {
    for (int64_t i = 0; i < n; ++i) visit(i, i, i);  // no stretched dims: flat indices coincide
    return;
  }
  BroadcastPlan<2> plan;
  const Tensor* inputs[2] = {&a, &b};
  make_broadcast_plan(shape, inputs, &plan);
  const size_t last = plan.ndim - 1;
  const int64_t sa = plan.strides[0][last], sb = plan.strides[1][last];
  for_each_run(plan, [&](int64_t o, const int64_t* in, int64_t len) {
    for (int64_t j = 0; j < len; ++j) visit(o + j, in[0] + j * sa, in[1] + j * sb);
  });
}

/// Walks three tensors and out together, broadcast to out's shape (all in
/// the default dim order), calling `visit(out_index, a_index, b_index,
/// c_index)` per output element, in output order.
template <typename Visit>
inline void for_each_ternary(const Tensor& a, const Tensor& b, const Tensor& c, const Tensor& out,
                             const Visit& visit) {
  const int64_t n = out.numel();
  if (a.numel() == n && b.numel() == n && c.numel() == n) {
    for (int64_t i = 0; i < n; ++i) visit(i, i, i, i);  // no stretched dims: flat indices coincide
    return;
  }
  BroadcastPlan<3> plan;
  const Tensor* inputs[3] = {&a, &b, &c};
  make_broadcast_plan(shape_of(out), inputs, &plan);
  const size_t last = plan.ndim - 1;
  const int64_t sa = plan.strides[0][last], sb = plan.strides[1][last], sc = plan.strides[2][last];
  for_each_run(plan, [&](int64_t o, const int64_t* in, int64_t len) {
    for (int64_t j = 0; j < len; ++j) visit(o + j, in[0] + j * sa, in[1] + j * sb, in[2] + j * sc);
  });
}

}  // namespace kernels
}  // namespace etsb
