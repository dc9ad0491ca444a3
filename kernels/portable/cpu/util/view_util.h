// Strided views and their copies: the engine of the view-copy operators.
//
// A view-copy operator (transpose, t, narrow, split, unbind, diagonal, unfold,
// pixel_shuffle, stack's and repeat's placements, roll's halves) is a strided
// view of its input, described by sizes, element strides and the offset of
// its first element, copied into a contiguous out. The view is built by
// composing the small steps below; copy_view / copy_box then do the copy
// through util/copy_util.h's plans (moved by element width when the dtypes
// agree, converted element by element otherwise).
#pragma once

#include "complex_util.h"
#include "copy_util.h"

namespace etsb {
namespace kernels {

/// A strided view of a tensor's elements: `ndim` dims of `sizes`, walked
/// with `strides` (in elements), starting `offset` elements into the data.
struct View {
  size_t ndim = 0;
  int64_t sizes[kMaxDim];
  int64_t strides[kMaxDim];
  int64_t offset = 0;

  int64_t numel() const {
    int64_t n = 1;
    for (size_t d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

/// The view of all of `t`, following its dim order.
inline View view_of(const Tensor& t) {
  View v;
  v.ndim = static_cast<size_t>(t.dim());
  strides_of(t, v.strides);
  for (size_t d = 0; d < v.ndim; ++d) v.sizes[d] = t.sizes()[d];
  return v;
}

/// Dims a and b swapped (transpose).
inline void view_transpose(View* v, size_t a, size_t b) {
  const int64_t size = v->sizes[a];
  const int64_t stride = v->strides[a];
  v->sizes[a] = v->sizes[b];
  v->strides[a] = v->strides[b];
  v->sizes[b] = size;
  v->strides[b] = stride;
}

/// Dim d cut to `length` elements taken every `step` from `start` (the
/// caller checks the range).
inline void view_narrow(View* v, size_t d, int64_t start, int64_t length, int64_t step = 1) {
  v->offset += start * v->strides[d];
  v->sizes[d] = length;
  v->strides[d] *= step;
}

/// Dim d removed at `index` (select).
inline void view_select(View* v, size_t d, int64_t index) {
  v->offset += index * v->strides[d];
  for (size_t k = d + 1; k < v->ndim; ++k) {
    v->sizes[k - 1] = v->sizes[k];
    v->strides[k - 1] = v->strides[k];
  }
  --v->ndim;
}

/// A new dim of `size` and stride `stride` inserted before dim d (stride 0
/// repeats the view along it). False if the rank limit is reached.
inline bool view_insert(View* v, size_t d, int64_t size, int64_t stride) {
  if (v->ndim >= kMaxDim) return false;
  for (size_t k = v->ndim; k > d; --k) {
    v->sizes[k] = v->sizes[k - 1];
    v->strides[k] = v->strides[k - 1];
  }
  v->sizes[d] = size;
  v->strides[d] = stride;
  ++v->ndim;
  return true;
}

/// Dim d (of a size divisible by `inner`) split into two dims, d of
/// sizes[d] / inner and d + 1 of `inner`. False at the rank limit.
inline bool view_split_dim(View* v, size_t d, int64_t inner) {
  const int64_t stride = v->strides[d];
  if (!view_insert(v, d + 1, inner, stride)) return false;
  v->sizes[d] /= inner;
  v->strides[d] = stride * inner;
  return true;
}

/// The dims reordered: new dim j is old dim perm[j] (a permutation of ndim).
inline void view_permute(View* v, const size_t* perm) {
  View old = *v;
  for (size_t j = 0; j < v->ndim; ++j) {
    v->sizes[j] = old.sizes[perm[j]];
    v->strides[j] = old.strides[perm[j]];
  }
}

/// The size of the diagonal `offset` of dims of sizes `rows` and `cols`
/// (above the main one when positive, below when negative).
inline int64_t diagonal_size(int64_t rows, int64_t cols, int64_t offset) {
  const int64_t n = offset >= 0 ? (rows < cols - offset ? rows : cols - offset)
                                : (rows + offset < cols ? rows + offset : cols);
  return n > 0 ? n : 0;
}

/// Dims a and b (distinct) replaced by their diagonal `offset`, appended as
/// the last dim.
inline void view_diagonal(View* v, size_t a, size_t b, int64_t offset) {
  const int64_t n = diagonal_size(v->sizes[a], v->sizes[b], offset);
  const int64_t stride = v->strides[a] + v->strides[b];
  if (n > 0) v->offset += offset >= 0 ? offset * v->strides[b] : -offset * v->strides[a];
  const size_t hi = a > b ? a : b;
  const size_t lo = a > b ? b : a;
  view_select(v, hi, 0);
  view_select(v, lo, 0);
  v->sizes[v->ndim] = n;
  v->strides[v->ndim] = stride;
  ++v->ndim;
}

/// Dim d cut into windows of `size` every `step` (the caller checks size <=
/// sizes[d], step > 0): d counts the windows, a new last dim walks one.
/// False at the rank limit.
inline bool view_unfold(View* v, size_t d, int64_t size, int64_t step) {
  if (v->ndim >= kMaxDim) return false;
  const int64_t stride = v->strides[d];
  v->sizes[v->ndim] = size;
  v->strides[v->ndim] = stride;
  ++v->ndim;
  v->sizes[d] = (v->sizes[d] - size) / step + 1;
  v->strides[d] = stride * step;
  return true;
}

/// The view's sizes as a Shape; false if one exceeds a tensor size's range.
inline bool view_shape(const View& v, Shape* shape) {
  shape->ndim = 0;
  for (size_t d = 0; d < v.ndim; ++d) {
    if (!shape->push(v.sizes[d])) return false;
  }
  return true;
}

/// The elements of view `src` of `in` written to view `dst` of `out` (views
/// of equal sizes): moved when the dtypes agree (complex ones included),
/// converted when they differ (copy_or_convert; `Name` is the operator's
/// switch name). False with ctx failed on an unsupported dtype.
template <const char* Name>
inline bool copy_box(KernelRuntimeContext& ctx, const Tensor& in, const View& src, const Tensor& out,
                     const View& dst) {
  if (src.numel() == 0) return true;
  CopyPlan plan;
  make_copy_plan(src.sizes, src.strides, dst.strides, src.ndim, &plan);
  if (in.scalar_type() == out.scalar_type() && is_complex(in.scalar_type())) {  // ComplexDouble: 16 bytes
    complex_move_walk<Name>(ctx, in.scalar_type(), in.const_data_ptr(), src.offset, out.mutable_data_ptr(),
                            dst.offset, plan);
    return ctx.failure_state() == ::executorch::runtime::Error::Ok;
  }
  return copy_or_convert<Name>(ctx, in.scalar_type(), in.const_data_ptr(), src.offset, out.scalar_type(),
                               out.mutable_data_ptr(), dst.offset, plan);
}

/// out (contiguous) resized to `shape` and filled with view `src` of `in` in
/// order (shape and view have the same number of elements): converted when
/// out's dtype differs from in's. False with ctx failed (a log naming `Name`)
/// if out is not contiguous, cannot take the shape, or has an unsupported dtype.
template <const char* Name>
inline bool copy_view_as(KernelRuntimeContext& ctx, const Tensor& in, const View& src, const Shape& shape,
                         const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(out), InvalidArgument, false, "%s: out must be contiguous", Name);
  ET_KERNEL_CHECK_MSG(ctx, shape.numel() == src.numel() && resize_to(out, shape), InvalidArgument, false,
                      "%s: out cannot take the result's shape", Name);
  View dst = src;
  dst.offset = 0;
  contiguous_strides(src.sizes, src.ndim, dst.strides);
  return copy_box<Name>(ctx, in, src, out, dst);
}

/// out resized to the view's own shape and filled with it (copy_view_as).
template <const char* Name>
inline bool copy_view(KernelRuntimeContext& ctx, const Tensor& in, const View& src, const Tensor& out) {
  Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, view_shape(src, &shape), InvalidArgument, false, "%s: result too large", Name);
  return copy_view_as<Name>(ctx, in, src, shape, out);
}

/// Whether a converting view copy takes in's and out's dtypes: the same
/// dtype (moved by width), or two real, Bool, Half or BFloat16 dtypes
/// (converted as static_cast does, like ExecuTorch's split, unbind and unfold).
inline bool convertible(ScalarType in, ScalarType out) {
  return in == out || (is_realhbbf16(in) && is_realhbbf16(out));
}

}  // namespace kernels
}  // namespace etsb
