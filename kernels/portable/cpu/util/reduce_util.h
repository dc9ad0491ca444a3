// Reductions over a list of dims (sum, mean): dim-list validation (negative
// dims, duplicates, "no list means all dims"), the output shape with or without
// keepdim, and a summation loop.
//
// The input (contiguous) is viewed as three nested walks after dropping size-1
// dims and merging neighbours: kept outer dims x reduced dims x a trailing
// block of kept dims. When that trailing block is longer than 1, each reduced
// step adds a whole contiguous row into the output row, which vectorises; when
// it is empty and the reduced dims are innermost, each output is a contiguous
// sum with several accumulators.
#pragma once

#include "elementwise_util.h"
#include "fast_math.h"
#include "kernel_util.h"

#include <optional>

namespace etsb {
namespace kernels {

struct ReducePlan {
  Shape out;               // output shape (reduced dims kept as 1 with keepdim)
  int64_t count = 1;       // input elements summed into each output element
  size_t n_outer = 0;      // kept dims outside the trailing block, outermost first
  int64_t outer_sizes[kMaxDim];
  int64_t outer_strides[kMaxDim];
  size_t n_reduced = 0;    // reduced dims, outermost first
  int64_t reduced_sizes[kMaxDim];
  int64_t reduced_strides[kMaxDim];
  int64_t inner = 1;       // length of the trailing run of kept dims (stride 1)
};

/// Validates `dims` against `in` and fills `plan`. A missing or empty dim list
/// reduces every dim (ATen's convention for sum and mean). False on a dim out
/// of range or listed twice.
inline bool make_reduce_plan(
    const Tensor& in, const std::optional<ArrayRef<int64_t>>& dims, bool keepdim, ReducePlan* plan) {
  const size_t rank = static_cast<size_t>(in.dim());
  bool reduced[kMaxDim] = {false};
  const bool all = !dims.has_value() || dims->size() == 0;
  if (!all) {
    for (const int64_t dim : *dims) {
      int64_t d = 0;
      if (!normalize_dim(dim, static_cast<int64_t>(rank), &d)) return false;
      if (rank == 0) continue;  // dim 0 / -1 of a 0-dim tensor: nothing to mark
      if (reduced[d]) return false;
      reduced[d] = true;
    }
  }
  const auto sizes = in.sizes();
  plan->out.ndim = 0;
  plan->count = 1;
  for (size_t d = 0; d < rank; ++d) {
    const bool r = all || reduced[d];
    reduced[d] = r;
    if (r) plan->count *= sizes[d];
    if (!r) plan->out.push(sizes[d]);
    else if (keepdim) plan->out.push(1);
  }
  // Collapse the contiguous input into alternating kept / reduced groups.
  int64_t group_size[kMaxDim];
  int64_t group_stride[kMaxDim];
  bool group_reduced[kMaxDim];
  size_t groups = 0;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {  // innermost first
    const int64_t s = sizes[d];
    if (s == 1) continue;
    if (groups > 0 && group_reduced[groups - 1] == reduced[d]) {
      group_size[groups - 1] *= s;
    } else {
      group_size[groups] = s;
      group_stride[groups] = stride;
      group_reduced[groups] = reduced[d];
      ++groups;
    }
    stride *= s;
  }
  size_t g = 0;
  plan->inner = 1;
  if (groups > 0 && !group_reduced[0]) plan->inner = group_size[g++];
  plan->n_outer = plan->n_reduced = 0;
  for (size_t k = groups; k-- > g;) {  // outermost first
    if (group_reduced[k]) {
      plan->reduced_sizes[plan->n_reduced] = group_size[k];
      plan->reduced_strides[plan->n_reduced++] = group_stride[k];
    } else {
      plan->outer_sizes[plan->n_outer] = group_size[k];
      plan->outer_strides[plan->n_outer++] = group_stride[k];
    }
  }
  return true;
}

/// Reads element i of an input as Acc: `static_cast<Acc>(data[i])` for an
/// input of C type In. The reduction loops below take a reader rather than a
/// typed pointer, so that one loop per accumulator type serves every input
/// dtype (see with_reader).
template <typename In, typename Acc>
struct TypedReader {
  const In* data;
  Acc operator()(int64_t i) const { return static_cast<Acc>(data[i]); }
};

/// Reads element i of an input of any other dtype as Acc, through `load`:
/// each element is first widened exactly to W (int64_t for integral and Bool
/// dtypes, double for floating ones and for every dtype summed in double),
/// and converting that to Acc gives the value a direct conversion of the
/// element would.
template <typename W, typename Acc>
struct WideReader {
  LoadFn<W> load;
  const void* data;
  Acc operator()(int64_t i) const { return static_cast<Acc>(load(data, i)); }
};

/// Calls `visit(reader)` with a reader of `in`'s elements as Acc: a typed one
/// when in has dtype `Same` (the fast, vectorised case), else a WideReader
/// (a call per element) chosen by an ET_SWITCH named `Name` on in's dtype, so
/// that a loop instantiated per Acc serves every input dtype. Fails ctx (and
/// does not visit) for a dtype outside real, Bool, Half and BFloat16, or
/// outside the floating ones unless `Integral` (for callers that checked).
template <const char* Name, typename Same, typename Acc, bool Integral = true, typename Visit>
ET_INLINE void with_reader(KernelRuntimeContext& ctx, const Tensor& in, const Visit& visit) {
  const ScalarType t = in.scalar_type();
  if (t == ::executorch::runtime::CppTypeToScalarType<Same>::value) {
    visit(TypedReader<Same, Acc>{in.const_data_ptr<Same>()});
  } else if (!Integral || is_floating(t)) {
    LoadFn<double> load = nullptr;
    ET_SWITCH_FLOATHBF16_TYPES(t, ctx, Name, T, [&]() { load = &load_as<double, T>; });
    if (load != nullptr) visit(WideReader<double, Acc>{load, in.const_data_ptr()});
  } else if constexpr (Integral && std::is_same<Acc, double>::value) {
    // Into double, an integer through double gives the bits it would through
    // int64_t (one rounding either way): the floating dtypes' loop serves it
    // (a Double mean or sum links one loop, 1.7 KB less).
    LoadFn<double> load = nullptr;
    ET_SWITCH_INT_TYPES_AND(Bool, t, ctx, Name, T, [&]() { load = &load_as<double, T>; });
    if (load != nullptr) visit(WideReader<double, Acc>{load, in.const_data_ptr()});
  } else if constexpr (Integral) {
    LoadFn<int64_t> load = nullptr;
    ET_SWITCH_INT_TYPES_AND(Bool, t, ctx, Name, T, [&]() { load = &load_as<int64_t, T>; });
    if (load != nullptr) visit(WideReader<int64_t, Acc>{load, in.const_data_ptr()});
  }
}

/// Calls `visit(reader)` with a WideReader<double, Acc> of a Half or BFloat16
/// `in` (a reduction into a wider out). The visit is instantiated in the
/// switch's cases only, so a dtype-selective build keeping neither dtype for
/// `Name` compiles none of it; both cases share one reader type, so one loop.
template <const char* Name, typename Acc, typename Visit>
ET_INLINE void with_reduced_float_reader(KernelRuntimeContext& ctx, const Tensor& in, const Visit& visit) {
  ET_SWITCH_TWO_TYPES(Half, BFloat16, in.scalar_type(), ctx, Name, T, [&]() {
    visit(WideReader<double, Acc>{&load_as<double, T>, in.const_data_ptr()});
  });
}

/// Sum of the n values read at first, first + 1, ... in Acc, with four
/// independent partial sums so the loop pipelines (and vectorises for floats).
template <typename Acc, typename Read>
ET_INLINE Acc sum_contiguous(const Read& read, int64_t first, int64_t n) {
  Acc s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 = wrapping_add(s0, read(first + j));
    s1 = wrapping_add(s1, read(first + j + 1));
    s2 = wrapping_add(s2, read(first + j + 2));
    s3 = wrapping_add(s3, read(first + j + 3));
  }
  for (; j < n; ++j) s0 = wrapping_add(s0, read(first + j));
  return wrapping_add(wrapping_add(s0, s1), wrapping_add(s2, s3));
}

/// row[i] += the value read at first + i, for i < n, unrolled by 8 (see
/// elementwise_util.h on why).
template <typename Out, typename Read>
ET_INLINE void accumulate_row(Out* row, const Read& read, int64_t first, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Out x[8];
    for (int u = 0; u < 8; ++u) x[u] = wrapping_add(row[i + u], read(first + i + u));
    for (int u = 0; u < 8; ++u) row[i + u] = x[u];
  }
  for (; i < n; ++i) row[i] = wrapping_add(row[i], read(first + i));
}

/// Walks an odometer over `n` dims; returns the change of offset.
ET_INLINE int64_t odometer_step(int64_t* index, const int64_t* sizes, const int64_t* strides, size_t n) {
  int64_t delta = 0;
  for (size_t d = n; d-- > 0;) {
    delta += strides[d];
    if (++index[d] < sizes[d]) return delta;
    delta -= strides[d] * sizes[d];
    index[d] = 0;
  }
  return delta;
}

/// The sum of a contiguous row (sum_contiguous), Float rows read typed by
/// fast_math.h's vectorised sum (16 partial sums, AVX2: sum_avx2_f32) from
/// 128 elements on, where it pays for its horizontal sum (EfficientNet-B0's
/// squeeze-and-excite means at 224 px: 0.45 -> 0.23 ms a run; its 7x7
/// planes ran slower by it). x86-64 with AVX2 only (the size configuration
/// has no such build).
template <typename Out, typename Read>
ET_INLINE Out sum_row(const Read& read, int64_t first, int64_t n) {
#if defined(ETSB_X86_BUILDS)
  if constexpr (std::is_same<Read, TypedReader<float, float>>::value) {
    if (n >= 128 && avx2_runs()) return sum_avx2_f32(read.data + first, n);
  }
#endif
  return sum_contiguous<Out>(read, first, n);
}

/// out[o] = sum of the input elements reducing into o, for the outer rows
/// [o0, o1) (each p.inner outputs; reduce_sum).
template <typename Out, typename Read>
ET_INLINE void reduce_sum_rows(const ReducePlan& p, const Read& read, Out* out, int64_t o0, int64_t o1,
                               int64_t reduce_count) {
  const bool reduce_is_contiguous = p.inner == 1 && p.n_reduced == 1 && p.reduced_strides[0] == 1;
  int64_t outer_index[kMaxDim] = {0};
  int64_t base = 0;
  for (size_t d = p.n_outer, rest = static_cast<size_t>(o0); d-- > 0;) {  // row o0's place in the outer dims
    outer_index[d] = static_cast<int64_t>(rest % static_cast<size_t>(p.outer_sizes[d]));
    rest /= static_cast<size_t>(p.outer_sizes[d]);
    base += outer_index[d] * p.outer_strides[d];
  }
  for (int64_t o = o0; o < o1; ++o) {
    Out* row = out + o * p.inner;
    if (reduce_is_contiguous) {
      row[0] = sum_row<Out>(read, base, reduce_count);
    } else {
      for (int64_t i = 0; i < p.inner; ++i) row[i] = 0;
      int64_t reduced_index[kMaxDim] = {0};
      int64_t offset = base;
      for (int64_t r = 0; r < reduce_count; ++r) {
        accumulate_row(row, read, offset, p.inner);
        offset += odometer_step(reduced_index, p.reduced_sizes, p.reduced_strides, p.n_reduced);
      }
    }
    base += odometer_step(outer_index, p.outer_sizes, p.outer_strides, p.n_outer);
  }
}

/// A row's cost beyond its elements (its setup and store), in elements, for
/// the cut of a Float sum.
constexpr int64_t kReduceRowWork = 8;

/// out[o] = sum of the input elements reducing into o, each read as Out (the
/// output's type: sum(dtype=Double) of a Float tensor adds doubles) and
/// accumulated in it; Float cut by outer row on the thread pool
/// (parallel_range: a row's sum does not depend on the cut). Not inlined:
/// the callers of one Out and reader (operators, overloads) share one copy.
template <typename Out, typename Read>
ET_NOINLINE void reduce_sum(const ReducePlan& p, const Read& read, Out* out) {
  int64_t outer = 1;
  for (size_t d = 0; d < p.n_outer; ++d) outer *= p.outer_sizes[d];
  int64_t reduce_count = 1;
  for (size_t d = 0; d < p.n_reduced; ++d) reduce_count *= p.reduced_sizes[d];
  if constexpr (std::is_same<Out, float>::value) {
    const int64_t row_work = reduce_count * p.inner + kReduceRowWork;
    parallel_range(0, outer, (kElementwiseTaskWork + row_work - 1) / row_work, [&](int64_t o0, int64_t o1) {
      reduce_sum_rows(p, read, out, o0, o1, reduce_count);
    });
  } else {
    reduce_sum_rows(p, read, out, 0, outer, reduce_count);
  }
}

/// out[o] = fold(...fold(fold(init, x0), x1)..., xn) over the input elements
/// reducing into o, in input order, for reductions other than sums (any,
/// all, amax, argmax...): `fold(Out acc, In x)` gives the new accumulator.
template <typename In, typename Out, typename Fold>
inline void reduce_fold(const ReducePlan& p, const In* in, Out* out, Out init, const Fold& fold) {
  int64_t outer = 1;
  for (size_t d = 0; d < p.n_outer; ++d) outer *= p.outer_sizes[d];
  int64_t reduce_count = 1;
  for (size_t d = 0; d < p.n_reduced; ++d) reduce_count *= p.reduced_sizes[d];
  int64_t outer_index[kMaxDim] = {0};
  int64_t base = 0;
  for (int64_t o = 0; o < outer; ++o) {
    Out* row = out + o * p.inner;
    for (int64_t i = 0; i < p.inner; ++i) row[i] = init;
    int64_t reduced_index[kMaxDim] = {0};
    int64_t offset = base;
    for (int64_t r = 0; r < reduce_count; ++r) {
      const In* x = in + offset;
      for (int64_t i = 0; i < p.inner; ++i) row[i] = fold(row[i], x[i]);
      offset += odometer_step(reduced_index, p.reduced_sizes, p.reduced_strides, p.n_reduced);
    }
    base += odometer_step(outer_index, p.outer_sizes, p.outer_strides, p.n_outer);
  }
}

/// Calls `visit(out_index, first_offset)` for every output element of the
/// plan: out_index counts outputs in order, first_offset is the input offset
/// of the first element reducing into it. Pair with for_each_reduced.
template <typename Visit>
inline void for_each_output(const ReducePlan& p, const Visit& visit) {
  int64_t outer = 1;
  for (size_t d = 0; d < p.n_outer; ++d) outer *= p.outer_sizes[d];
  int64_t outer_index[kMaxDim] = {0};
  int64_t base = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < p.inner; ++i) visit(o * p.inner + i, base + i);
    base += odometer_step(outer_index, p.outer_sizes, p.outer_strides, p.n_outer);
  }
}

/// Calls `visit(offset)` for the input offset of every element reducing into
/// the output whose first element is at `first` (from for_each_output), in
/// input order.
template <typename Visit>
inline void for_each_reduced(const ReducePlan& p, int64_t first, const Visit& visit) {
  int64_t reduce_count = 1;
  for (size_t d = 0; d < p.n_reduced; ++d) reduce_count *= p.reduced_sizes[d];
  int64_t reduced_index[kMaxDim] = {0};
  int64_t offset = first;
  for (int64_t r = 0; r < reduce_count; ++r) {
    visit(offset);
    offset += odometer_step(reduced_index, p.reduced_sizes, p.reduced_strides, p.n_reduced);
  }
}

/// Whether a dtype is one of the reduced-precision floating types, which
/// reductions accumulate in float (as ATen does).
inline bool is_reduced_float(ScalarType t) { return t == ScalarType::Half || t == ScalarType::BFloat16; }

/// out[o] = finish(sum in Acc of the input elements reducing into o, each
/// read as Acc), for inputs or outputs of reduced precision: elements are
/// widened to Acc before adding, and the sum rounded once. Not inlined, as
/// reduce_sum.
template <typename Acc, typename Out, typename Read, typename Finish>
ET_NOINLINE void reduce_sum_widened(const ReducePlan& p, const Read& read, Out* out, const Finish& finish) {
  for_each_output(p, [&](int64_t o, int64_t first) {
    Acc acc = 0;
    for_each_reduced(p, first, [&](int64_t at) { acc += read(at); });
    out[o] = static_cast<Out>(finish(acc));
  });
}

/// The finish of a plain sum (reduce_sum_widened): the sum itself.
struct KeepSum {
  template <typename Acc>
  Acc operator()(Acc acc) const {
    return acc;
  }
};

/// var[o] = sum((x - mean)^2) / max(N - correction, 0) over the elements x
/// (each read as a double) reducing into o, and mean[o] = the mean when
/// `mean` is not null: two passes per output, accumulated in double; no
/// element (N = 0) or a zero denominator gives NaN or inf, as in ATen. Not
/// inlined, as reduce_sum.
template <typename Out, typename Read>
ET_NOINLINE void variance_and_mean(const ReducePlan& plan, const Read& read, Out* var, Out* mean, double correction) {
  const double count = static_cast<double>(plan.count);
  const double denominator = count - correction > 0 ? count - correction : 0.0;
  for_each_output(plan, [&](int64_t o, int64_t first) {
    double sum = 0;
    for_each_reduced(plan, first, [&](int64_t at) { sum += read(at); });
    const double average = sum / count;
    double squares = 0;
    for_each_reduced(plan, first, [&](int64_t at) {
      const double delta = read(at) - average;
      squares += delta * delta;
    });
    var[o] = static_cast<Out>(squares / denominator);
    if (mean != nullptr) mean[o] = static_cast<Out>(average);
  });
}

/// A tensor viewed as [outer, n, inner] around dim `d` (a 0-dim tensor as
/// [1, 1, 1]): for kernels that walk one dim (argmax, cumsum).
struct DimView {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
};

inline DimView view_around(const Tensor& t, int64_t d) {
  DimView v;
  if (t.dim() == 0) return v;
  v.outer = size_product(t.sizes(), 0, d);
  v.n = t.sizes()[d];
  v.inner = size_product(t.sizes(), d + 1, t.dim());
  return v;
}

}  // namespace kernels
}  // namespace etsb
