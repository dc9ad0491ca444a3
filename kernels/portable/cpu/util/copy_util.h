// Data movement: strided copies (permute, expand, dim-order changes) with an
// optional dtype conversion, and dispatch on element size.
//
// Kernels that only move elements (permute_copy, expand_copy, split, embedding,
// where's selection) do not need to know the dtype, only its width: they
// dispatch on 1, 2, 4 or 8 bytes, which covers every real, Bool, Half and
// BFloat16 dtype with four small instantiations. A dtype-selective build keeps
// only the widths of the dtypes selected for the operator (its switch name
// given as `Name`): a Float-only permute_copy moves 4-byte words alone.
#pragma once

#include "element_width.h"
#include "elementwise_util.h"
#include "kernel_util.h"
#include "transpose_tiles.h"

#include <optional>

namespace etsb {
namespace kernels {

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

/// A walk that copies a box of `ndim` dims of `sizes` from a source read with
/// `src` strides to a destination written with `dst` strides (in elements).
/// Size-1 dims are dropped and neighbouring dims that both sides walk
/// contiguously are merged, so the innermost loop is as long as possible.
/// Strides may be 0 (a broadcast source) or negative (flip).
struct CopyPlan {
  size_t ndim = 1;
  int64_t sizes[kMaxDim];
  int64_t src[kMaxDim];
  int64_t dst[kMaxDim];
};

/// Builds the plan of a box copy; a box with a zero-sized dim gets one empty run.
inline void make_copy_plan(const int64_t* sizes, const int64_t* src_strides, const int64_t* dst_strides,
                           size_t ndim, CopyPlan* plan) {
  size_t n = 0;  // innermost first while building
  int64_t s[kMaxDim];
  int64_t a[kMaxDim];
  int64_t b[kMaxDim];
  for (size_t d = ndim; d-- > 0;) {
    if (sizes[d] == 0) {  // nothing to copy at all
      plan->ndim = 1;
      plan->sizes[0] = 0;
      plan->src[0] = plan->dst[0] = 0;
      return;
    }
    if (sizes[d] == 1) continue;
    if (n > 0 && src_strides[d] == a[n - 1] * s[n - 1] && dst_strides[d] == b[n - 1] * s[n - 1]) {
      s[n - 1] *= sizes[d];
      continue;
    }
    s[n] = sizes[d];
    a[n] = src_strides[d];
    b[n] = dst_strides[d];
    ++n;
  }
  if (n == 0) {
    s[0] = 1;
    a[0] = b[0] = 0;
    n = 1;
  }
  plan->ndim = n;
  for (size_t k = 0; k < n; ++k) {
    plan->sizes[k] = s[n - 1 - k];
    plan->src[k] = a[n - 1 - k];
    plan->dst[k] = b[n - 1 - k];
  }
}

/// The contiguous (row-major) strides of `sizes`.
inline void contiguous_strides(const int64_t* sizes, size_t ndim, int64_t* strides) {
  int64_t running = 1;
  for (size_t d = ndim; d-- > 0;) {
    strides[d] = running;
    running *= sizes[d];
  }
}

/// The plan of a copy into a contiguous destination of `sizes`, reading the
/// source with `strides`.
inline void make_strided_plan(const int64_t* sizes, const int64_t* strides, size_t ndim, CopyPlan* plan) {
  int64_t dst[kMaxDim];
  contiguous_strides(sizes, ndim, dst);
  make_copy_plan(sizes, strides, dst, ndim, plan);
}

/// Steps a walk's position over the plan's dims [0, dims) (the last fastest)
/// to the next one, moving its offsets on both sides (in elements). Always
/// inline: called, it cost the size configuration's binaries 32 bytes each.
__attribute__((always_inline)) inline void next_position(const CopyPlan& p, size_t dims, int64_t* index, int64_t* so,
                                                        int64_t* dof) {
  for (size_t d = dims; d-- > 0;) {
    *so += p.src[d];
    *dof += p.dst[d];
    if (++index[d] < p.sizes[d]) return;
    *so -= p.src[d] * p.sizes[d];
    *dof -= p.dst[d] * p.sizes[d];
    index[d] = 0;
  }
}

/// Bytes of a copy below which a piece is not worth a thread: ~1 us out of
/// the first-level cache (the parallel_range grain of move_runs).
constexpr int64_t kCopyTaskBytes = 16 * 1024;

/// The plan's box of `width`-byte elements, whose innermost dim both sides
/// walk contiguously, moved a run (that dim) at a time: cut by runs on the
/// thread pool, or a single run by bytes (parallel_range, pieces of
/// kCopyTaskBytes or more), so that the copies between the operators a
/// thread pool cuts (a concatenation, a channel shuffle's permute and clone,
/// a split) keep its workers awake. Each byte is moved alone: the cut changes
/// nothing but the time. Out of line, in bytes: one copy for every width.
__attribute__((noinline)) inline void move_runs(const char* src, char* dst, const CopyPlan& p, int64_t width) {
  const size_t last = p.ndim - 1;
  const int64_t run = p.sizes[last] * width;
  int64_t outer = 1;
  for (size_t d = 0; d < last; ++d) outer *= p.sizes[d];
  if (outer == 1) {  // memmove: only a corrupt program makes the two overlap, but then memcpy is undefined
    return parallel_range(0, run, kCopyTaskBytes, [&](int64_t b, int64_t e) { std::memmove(dst + b, src + b, e - b); });
  }
  parallel_range(0, outer, run > 0 ? (kCopyTaskBytes + run - 1) / run : outer, [&](int64_t o0, int64_t o1) {
    int64_t index[kMaxDim] = {0};
    int64_t so = 0, dof = 0, rest = o0;  // run o0's offsets (in elements)
    for (size_t d = last; d-- > 0;) {
      index[d] = rest % p.sizes[d];
      rest /= p.sizes[d];
      so += index[d] * p.src[d];
      dof += index[d] * p.dst[d];
    }
    for (int64_t o = o0; o < o1; ++o, next_position(p, last, index, &so, &dof)) {
      std::memmove(dst + dof * width, src + so * width, static_cast<size_t>(run));
    }
  });
}

/// dst[walk] = static_cast<Out>(src[walk]) over the plan's box; src and dst
/// point at the box's first element on each side. When the two innermost
/// dims swap unit strides (a transpose: dst's last dim and src's one before
/// it contiguous), they move in tiles (transpose_tiles; 4-byte words of one
/// type by strips cut on the thread pool: transpose_strips, but in the size
/// configuration, which keeps one loop).
template <typename In, typename Out>
inline void copy_walk(const In* src, Out* dst, const CopyPlan& p) {
  if (p.ndim >= 2 && p.dst[p.ndim - 1] == 1 && p.src[p.ndim - 2] == 1 && p.src[p.ndim - 1] > 1 &&
      p.sizes[p.ndim - 1] >= 4 && p.sizes[p.ndim - 2] >= 4) {
    int64_t count = 1;  // the dims outside the transpose, one tile walk each
    for (size_t d = 0; d + 2 < p.ndim; ++d) count *= p.sizes[d];
#if !defined(ETSB_KERNELS_ONE_PATH)
    if constexpr (std::is_same<In, Out>::value && sizeof(In) == 4) {  // Float's width (and Int's) only: less code
      return transpose_strips(src, dst, p, count);
    }
#endif
    int64_t index[kMaxDim] = {0};
    int64_t so = 0, dof = 0;
    for (int64_t o = 0; o < count; ++o, next_position(p, p.ndim - 2, index, &so, &dof)) {
      transpose_tiles(src + so, p.src[p.ndim - 1], dst + dof, p.dst[p.ndim - 2], p.sizes[p.ndim - 2],
                      p.sizes[p.ndim - 1]);
    }
    return;
  }
  const size_t last = p.ndim - 1;
  const int64_t len = p.sizes[last];
  const int64_t ss = p.src[last];
  const int64_t ds = p.dst[last];
#if !defined(ETSB_KERNELS_ONE_PATH)
  if constexpr (std::is_same<In, Out>::value) {
    if (ss == 1 && ds == 1) {
      return move_runs(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(dst), p, sizeof(In));
    }
  }
#endif
  int64_t outer = 1;
  for (size_t d = 0; d < last; ++d) outer *= p.sizes[d];
  int64_t index[kMaxDim] = {0};
  int64_t src_offset = 0;
  int64_t dst_offset = 0;
  for (int64_t o = 0; o < outer; ++o) {
    const In* from = src + src_offset;
    Out* to = dst + dst_offset;
    if (ss == 1 && ds == 1) {
      if constexpr (std::is_same<In, Out>::value) {
        std::memmove(to, from, static_cast<size_t>(len) * sizeof(Out));
      } else {
        for (int64_t j = 0; j < len; ++j) to[j] = static_cast<Out>(from[j]);
      }
    } else if (ss == 0) {
      const Out v = static_cast<Out>(*from);
      for (int64_t j = 0; j < len; ++j) to[j * ds] = v;
    } else {
      for (int64_t j = 0; j < len; ++j) to[j * ds] = static_cast<Out>(from[j * ss]);
    }
    next_position(p, last, index, &src_offset, &dst_offset);
  }
}

/// Moves the plan's box of `dtype` elements as words of their width, from
/// element `src_offset` of src to element `dst_offset` of dst. False (nothing
/// copied) for an unsupported width.
template <const char* Name = nullptr>
inline bool move_walk(ScalarType dtype, const void* src, int64_t src_offset, void* dst, int64_t dst_offset,
                      const CopyPlan& plan) {
  return with_element_word<Name>(dtype, [&](auto word) {
    using W = decltype(word);
    copy_walk(static_cast<const W*>(src) + src_offset, static_cast<W*>(dst) + dst_offset, plan);
  });
}

/// out = in walked by `plan` (out contiguous), for tensors of one dtype.
template <const char* Name = nullptr>
inline bool strided_move(const Tensor& in, Tensor& out, const CopyPlan& plan, int64_t in_offset = 0) {
  return move_walk<Name>(in.scalar_type(), in.const_data_ptr(), in_offset, out.mutable_data_ptr(), 0, plan);
}

/// The element strides of a contiguous tensor, as int64_t.
inline void contiguous_strides_of(const Tensor& t, int64_t* strides) {
  int64_t running = 1;
  for (size_t d = static_cast<size_t>(t.dim()); d-- > 0;) {
    strides[d] = running;
    running *= t.sizes()[d];
  }
}

/// out = self's elements in order under a new shape (view, reshape, squeeze,
/// unsqueeze, alias): same dtype and element count, both contiguous; out is
/// resized to `shape`. False with ctx failed (a log naming `name`) otherwise.
inline bool reshape_copy(KernelRuntimeContext& ctx, const char* name, const Tensor& self, const Shape& shape,
                         const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, false,
                      "%s: out must have self's dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, shape.numel() == self.numel(), InvalidArgument, false,
                      "%s: the new shape has %" PRId64 " elements, self has %zd", name, shape.numel(),
                      static_cast<ssize_t>(self.numel()));
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(out), InvalidArgument, false,
                      "%s: tensors must be contiguous", name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, shape), InvalidArgument, false, "%s: cannot resize out", name);
  const void* src = self.const_data_ptr();
  void* dst = out.mutable_data_ptr();
  if (self.nbytes() != 0 && src != dst) std::memmove(dst, src, self.nbytes());
  return true;
}

/// Whether out's dim order is the requested one: `dim_order` when given,
/// otherwise self's (the dim-order ops preserve the layout by default).
inline bool dim_order_matches(const Tensor& self, const std::optional<ArrayRef<int64_t>>& dim_order,
                              const Tensor& out) {
  if (!dim_order.has_value()) return same_dim_order(self, out);
  const auto have = out.dim_order();
  if (dim_order->size() != have.size()) return false;
  for (size_t d = 0; d < have.size(); ++d) {
    if ((*dim_order)[d] != static_cast<int64_t>(have[d])) return false;
  }
  return true;
}

/// The plan that reads self in out's memory order (out's dims outermost in
/// memory first, with self's strides), for a copy between dim orders.
inline void plan_in_out_order(const Tensor& self, const Tensor& out, CopyPlan* plan) {
  int64_t self_strides[kMaxDim];
  strides_of(self, self_strides);
  const auto order = out.dim_order();
  int64_t sizes[kMaxDim];
  int64_t strides[kMaxDim];
  for (size_t j = 0; j < order.size(); ++j) {
    sizes[j] = self.sizes()[order[j]];
    strides[j] = self_strides[order[j]];
  }
  make_strided_plan(sizes, strides, order.size(), plan);
}

/// ATen's slice of a dim of `size`: start and end default to 0 and size,
/// count from the end when negative, and are clamped into [0, size]; gives
/// the first index and the number of elements taken every `step`. False if
/// step is not positive.
inline bool slice_range(int64_t size, const std::optional<int64_t>& start, const std::optional<int64_t>& end,
                        int64_t step, int64_t* first, int64_t* length) {
  if (step <= 0) return false;
  const auto clamp = [size](int64_t i) {
    if (i < 0) i += size;
    return i < 0 ? 0 : (i > size ? size : i);
  };
  const int64_t b = start.has_value() ? clamp(*start) : 0;
  const int64_t e = end.has_value() ? clamp(*end) : size;
  *first = b;
  *length = e > b ? (e - b + step - 1) / step : 0;
  return true;
}

/// The plan's box copied with a dtype conversion, element by element through
/// CT (int64_t when both dtypes are integral or Bool, so that the conversion
/// is exact; double otherwise). `Name` is the calling operator's switch name
/// (see loader_for). False with ctx failed on an unsupported dtype.
template <const char* Name>
inline bool convert_walk(KernelRuntimeContext& ctx, ScalarType in_type, const void* src, int64_t src_offset,
                         ScalarType out_type, void* dst, int64_t dst_offset, const CopyPlan& p) {
  const auto run = [&](auto tag) {
    using CT = decltype(tag);
    const LoadFn<CT> load = loader_for<CT, Name>(in_type, ctx);
    const StoreFn<CT> store = storer_for<CT, Name>(out_type, ctx);
    if (load == nullptr || store == nullptr) return false;
    const size_t last = p.ndim - 1;
    int64_t outer = 1;
    for (size_t d = 0; d < last; ++d) outer *= p.sizes[d];
    int64_t index[kMaxDim] = {0};
    int64_t from = src_offset;
    int64_t to = dst_offset;
    for (int64_t o = 0; o < outer; ++o, next_position(p, last, index, &from, &to)) {
      for (int64_t j = 0; j < p.sizes[last]; ++j) store(dst, to + j * p.dst[last], load(src, from + j * p.src[last]));
    }
    return true;
  };
  if (!is_floating(in_type) && !is_floating(out_type)) return run(int64_t{});
  return run(double{});
}

/// The plan's box copied from src (of in_type) to dst (of out_type): moved by
/// width when the dtypes agree, converted otherwise (convert_walk).
template <const char* Name>
inline bool copy_or_convert(KernelRuntimeContext& ctx, ScalarType in_type, const void* src, int64_t src_offset,
                            ScalarType out_type, void* dst, int64_t dst_offset, const CopyPlan& p) {
  if (in_type == out_type) {
    ET_KERNEL_CHECK_MSG(ctx, move_walk<Name>(in_type, src, src_offset, dst, dst_offset, p), InvalidArgument, false,
                        "%s: unsupported dtype", Name);
    return true;
  }
  return convert_walk<Name>(ctx, in_type, src, src_offset, out_type, dst, dst_offset, p);
}

/// Resizes `out` to `size` (each in [0, INT32_MAX], at most kMaxDim of
/// them), for the creation operators (full, zeros, ones, empty); false with
/// ctx failed and a log line naming `Name` on a bad size.
template <const char* Name>
inline bool resize_to_size_list(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, const Tensor& out) {
  Shape shape;
  for (const int64_t s : size) {
    ET_KERNEL_CHECK_MSG(ctx, size_like(s, 0) && shape.push(s), InvalidArgument, false,
                        "%s: invalid size %" PRId64 " or too many dims", Name, s);
  }
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, shape), InvalidArgument, false, "%s: cannot resize out", Name);
  return true;
}

/// Every element of `out` set to `value` converted to out's dtype (any real,
/// Bool, Half or BFloat16 dtype). `Name` is the calling operator's switch name.
template <const char* Name>
inline void fill_scalar(KernelRuntimeContext& ctx, const Tensor& out, const Scalar& value) {
  const int64_t n = out.numel();
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, Name, CTYPE, [&]() {
    const CTYPE v = scalar_to<CTYPE>(value);
    CTYPE* data = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < n; ++i) data[i] = v;
  });
}

}  // namespace kernels
}  // namespace etsb
