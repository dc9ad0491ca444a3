// The engines of the extreme-value reductions: amax / amin over dim lists,
// argmax / argmin and max.dim / min.dim along one dim, max / min of a whole
// tensor. `Max` picks the direction; NaN wins either way, as in ATen.
#pragma once

#include "math_util.h"
#include "reduce_util.h"

#include <optional>
#include <tuple>

namespace etsb {
namespace kernels {

/// The NaN-propagating larger (Max) or smaller of x and y.
template <bool Max, typename T>
inline T nan_extreme(T x, T y) {
  return Max ? nan_maximum(x, y) : nan_minimum(x, y);
}

/// The identity of the extreme: -inf / lowest for Max, +inf / highest else.
template <bool Max, typename T>
inline T extreme_identity() {
  return Max ? lowest_value<T>() : highest_value<T>();
}

/// out = the extreme element over `dim` (an empty list: all dims), keeping
/// reduced dims as 1 with keepdim; NaN propagates. Real, Bool, Half and
/// BFloat16 dtypes, out the same; contiguous; a reduction over zero elements
/// fails the call (amax.out, amin.out).
template <const char* Name, bool Max>
inline Tensor& extreme_over_dims_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dim,
                                     bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", Name);
  ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", Name);
  ET_KERNEL_CHECK_MSG(ctx, plan.count > 0 || plan.out.numel() == 0, InvalidArgument, out,
                      "%s: cannot reduce over zero elements", Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, plan.out), InvalidArgument, out, "%s: cannot resize out", Name);
  if (out.numel() == 0) return out;
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    reduce_fold(plan, self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>(), extreme_identity<Max, CTYPE>(),
                [](CTYPE acc, CTYPE x) { return nan_extreme<Max>(acc, x); });
  });
  return out;
}

/// The output shape of a reduction along `dim` (keepdim: kept as 1) in
/// `shape`, and the [outer, n, inner] view around it; without dim, the
/// whole tensor flattened (keepdim: all dims 1). False on a bad dim.
inline bool plan_along_dim(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Shape* shape,
                           DimView* view) {
  if (!dim.has_value()) {
    view->n = self.numel();
    for (ssize_t j = 0; keepdim && j < self.dim(); ++j) shape->push(1);
    return true;
  }
  int64_t d = 0;
  if (!normalize_dim(*dim, self.dim(), &d)) return false;
  *view = view_around(self, d);
  for (ssize_t j = 0; j < self.dim(); ++j) {
    if (j != d) shape->push(self.sizes()[j]);
    else if (keepdim) shape->push(1);
  }
  return true;
}

/// For every output of `view`: the index along the dim of the extreme
/// element (the first one on ties; the first NaN if any, as in ATen), passed
/// to `emit(output, index, value)`.
template <bool Max, typename T, typename Emit>
inline void extreme_along(const DimView& view, const T* in, const Emit& emit) {
  for (int64_t o = 0; o < view.outer; ++o) {
    for (int64_t i = 0; i < view.inner; ++i) {
      const T* x = in + o * view.n * view.inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < view.n && !is_nan(x[best * view.inner]); ++j) {
        const T v = x[j * view.inner];
        if (is_nan(v) || (Max ? v > x[best * view.inner] : v < x[best * view.inner])) best = j;
      }
      emit(o * view.inner + i, best, x[best * view.inner]);
    }
  }
}

/// out (Long) = the index along `dim` of the extreme element (argmax.out,
/// argmin.out); without dim, the flat index in the whole tensor. Real, Half
/// and BFloat16 dtypes; contiguous; a reduction over zero elements fails.
template <const char* Name, bool Max>
inline Tensor& arg_extreme_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim,
                               bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Long, InvalidArgument, out, "%s: out must be Long",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", Name);
  Shape shape;
  DimView view;
  ET_KERNEL_CHECK_MSG(ctx, plan_along_dim(self, dim, keepdim, &shape, &view), InvalidArgument, out,
                      "%s: dim out of range", Name);
  ET_KERNEL_CHECK_MSG(ctx, view.n > 0 || shape.numel() == 0, InvalidArgument, out,
                      "%s: cannot reduce over zero elements", Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, shape), InvalidArgument, out, "%s: cannot resize out", Name);
  if (out.numel() == 0) return out;
  int64_t* result = out.mutable_data_ptr<int64_t>();
  ET_SWITCH_REALHBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    extreme_along<Max>(view, self.const_data_ptr<CTYPE>(),
                       [result](int64_t o, int64_t index, CTYPE) { result[o] = index; });
  });
  return out;
}

/// (values, indices) = the extreme along `dim` and its index (max.dim_max,
/// min.dim_min): values of self's dtype (real, Bool, Half, BFloat16),
/// indices Long; keepdim keeps the dim as 1. Contiguous; a reduction over
/// zero elements fails the call.
template <const char* Name, bool Max>
inline std::tuple<Tensor&, Tensor&> extreme_dim_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim,
                                                    bool keepdim, Tensor& values, Tensor& indices) {
  std::tuple<Tensor&, Tensor&> both(values, indices);
  ET_KERNEL_CHECK_MSG(ctx, values.scalar_type() == self.scalar_type() && indices.scalar_type() == ScalarType::Long,
                      InvalidArgument, both, "%s: values must have self's dtype, indices Long", Name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(values) && is_contiguous(indices), InvalidArgument,
                      both, "%s: tensors must be contiguous", Name);
  Shape shape;
  DimView view;
  ET_KERNEL_CHECK_MSG(ctx, plan_along_dim(self, dim, keepdim, &shape, &view), InvalidArgument, both,
                      "%s: dim %" PRId64 " out of range", Name, dim);
  ET_KERNEL_CHECK_MSG(ctx, view.n > 0 || shape.numel() == 0, InvalidArgument, both,
                      "%s: cannot reduce over zero elements", Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(values, shape) && resize_to(indices, shape), InvalidArgument, both,
                      "%s: cannot resize the outputs", Name);
  if (values.numel() == 0) return both;
  int64_t* index_data = indices.mutable_data_ptr<int64_t>();
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    CTYPE* value_data = values.mutable_data_ptr<CTYPE>();
    extreme_along<Max>(view, self.const_data_ptr<CTYPE>(), [&](int64_t o, int64_t index, CTYPE value) {
      index_data[o] = index;
      value_data[o] = value;
    });
  });
  return both;
}

/// out (0-dim) = the extreme element of the whole tensor, NaN if any
/// (max.unary_out, min.unary_out); an empty self gives the identity (-inf
/// or the lowest value for max), as ExecuTorch's kernel test suite expects.
/// out of any real, Bool, Half or BFloat16 dtype self's casts to.
template <const char* Name, bool Max>
inline Tensor& extreme_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && is_realhbbf16(out.scalar_type()), InvalidArgument,
                      out, "%s: unsupported dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, can_cast(self.scalar_type(), out.scalar_type()), InvalidArgument, out,
                      "%s: out cannot hold self's dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, Shape{}), InvalidArgument, out, "%s: out must be 0-dim", Name);
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, IN, [&]() {
    const IN* in = self.const_data_ptr<IN>();
    IN acc = extreme_identity<Max, IN>();
    for (ssize_t i = 0; i < self.numel() && !is_nan(acc); ++i) acc = nan_extreme<Max>(acc, in[i]);
    ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, Name, OUT, [&]() {
      out.mutable_data_ptr<OUT>()[0] = static_cast<OUT>(acc);
    });
  });
  return out;
}

}  // namespace kernels
}  // namespace etsb
