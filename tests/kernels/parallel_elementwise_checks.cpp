// The elementwise, batch-norm, mean and transpose cuts of etsb's kernels
// (unary_util.h's map_float_cut, elementwise_util.h's binary_same_dtype,
// binary_op_util.h's binary_maps_f32,
// batch_norm_util.h's batch_norm_f32, reduce_util.h's reduce_sum,
// transpose_tiles.h's transpose_strips, copy_util.h's move_runs: parallel_flat
// and parallel_range of parallel_util.h), through the operators (op_relu.cpp,
// op_hardtanh.cpp, op_add.cpp, op_native_batch_norm.cpp, op_mean.cpp,
// op_permute_copy.cpp, op_split_with_sizes_copy.cpp, linked in): Float at one and two threads, every cut taken (the caller sets
// assume_workers_awake), gives the same bits, and the values of a plain loop
// (batch norm and mean: within float rounding, as vector builds may fuse a
// multiply-add and a sum adds in its own order). Part of parallel_checks.cpp's
// program, which calls check_elementwise_cuts.
#include "kernels/portable/cpu/util/parallel_util.h"
#include "parallel_checks.h"

#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::KernelRuntimeContext;

// The kernels, as kernels/portable/functions.yaml declares them.
namespace torch {
namespace executor {
namespace native {
Tensor& relu_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out);
Tensor& hardtanh_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& min_val, const Scalar& max_val,
                     Tensor& out);
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out);
std::tuple<Tensor&, Tensor&, Tensor&> _native_batch_norm_legit_no_training_out(
    KernelRuntimeContext& ctx, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const Tensor& running_mean, const Tensor& running_var, double momentum,
    double eps, Tensor& out0, Tensor& out1, Tensor& out2);
Tensor& mean_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                     bool keepdim, std::optional<ScalarType> dtype, Tensor& out);
Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out);
void split_with_sizes_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> split_sizes,
                               int64_t dim, ArrayRef<Tensor> out);
}  // namespace native
}  // namespace executor
}  // namespace torch

namespace native = torch::executor::native;

namespace {

/// n random floats (in [-0.5, 0.5)) from `seed`.
std::vector<float> randoms(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) x = next_random(seed);
  return v;
}

/// `run(threads, out)` at one and at two threads (out starting as -7s each
/// time): the same bits at both, and those of `expected` (exactly, or within
/// `tolerance` of each value's size when given).
/// With `pooled`, the two-thread run must end a loop on the pool (be cut).
template <typename Run>
void check_cut(const char* name, size_t n, const std::vector<float>& expected, const Run& run,
               double tolerance = 0, bool pooled = false) {
  std::vector<float> one(n, -7.0f), two(n, -7.0f);
  set_pool_threads(1);
  run(one);
  set_pool_threads(2);
#if defined(ETSB_KERNELS_THREADPOOL)
  etsb::kernels::last_parallel_end() = 0;  // set again by a loop that ends on the pool
#endif
  run(two);
#if defined(ETSB_KERNELS_THREADPOOL)
  CHECK(!pooled || etsb::kernels::parallel_threads() < 2 || etsb::kernels::last_parallel_end() != 0,
        "%s: not cut on two threads", name);
#else
  (void)pooled;
#endif
  CHECK(std::memcmp(one.data(), two.data(), n * sizeof(float)) == 0, "%s: one and two threads differ", name);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const double error = std::fabs(static_cast<double>(two[i]) - expected[i]);
    wrong += tolerance == 0 ? two[i] != expected[i] : error > tolerance * (std::fabs(expected[i]) + 1.0);
  }
  CHECK(wrong == 0, "%s: %zu of %zu values differ from a plain loop", name, wrong, n);
}

/// relu and hardtanh (its vectorised clamp, cut in longer pieces), each
/// over a length of several pieces and a partial block.
void check_unary() {
  constexpr int64_t kRelu = 5 * 4096 + 21, kClamp = 5 * 16384 + 21;
  std::vector<float> x = randoms(kClamp, 99u), relu(kRelu), clamped(kClamp);
  for (int64_t i = 0; i < kClamp; ++i) {
    if (i < kRelu) relu[i] = x[i] < 0 ? 0.0f : x[i];
    clamped[i] = x[i] < -0.25f ? -0.25f : (x[i] > 0.3f ? 0.3f : x[i]);
  }
  check_cut("relu", kRelu, relu, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kRelu}, x.data()), ty({kRelu}, y.data());
    Tensor out = ty.t();
    native::relu_out(ctx, tx.t(), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "relu failed");
  });
  check_cut("hardtanh", kClamp, clamped, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kClamp}, x.data()), ty({kClamp}, y.data());
    Tensor out = ty.t();
    native::hardtanh_out(ctx, tx.t(), Scalar(-0.25), Scalar(0.3), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "hardtanh failed");
  });
}

/// add of two tensors of one shape, and of a tensor and a one-element one
/// (alpha 2: exact products, so a fused multiply-add rounds the same).
void check_add() {
  constexpr int64_t kC = 3, kPlane = 4001;
  constexpr int64_t kN = kC * kPlane;
  std::vector<float> a = randoms(kN, 5u), b = randoms(kN, 6u), sum(kN), shifted(kN);
  float one_value = 0.375f;
  for (int64_t i = 0; i < kN; ++i) {
    sum[i] = a[i] + 2.0f * b[i];
    shifted[i] = a[i] + 2.0f * one_value;
  }
  check_cut("add", kN, sum, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense ta({1, kC, kPlane}, a.data()), tb({1, kC, kPlane}, b.data()), ty({1, kC, kPlane}, y.data());
    Tensor out = ty.t();
    native::add_out(ctx, ta.t(), tb.t(), Scalar(2), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "add failed");
  });
  check_cut("add of a one-element tensor", kN, shifted, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense ta({1, kC, kPlane}, a.data()), tb({1}, &one_value), ty({1, kC, kPlane}, y.data());
    Tensor out = ty.t();
    native::add_out(ctx, ta.t(), tb.t(), Scalar(2), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "add of a one-element tensor failed");
  });
  // alpha 1: add_f32's loop, in pieces of 32K elements, a partial block last; and in place (out is self)
  constexpr int64_t kLong = 3 * 32768 + 21;
  std::vector<float> c = randoms(kLong, 7u), d = randoms(kLong, 8u), plain(kLong);
  for (int64_t i = 0; i < kLong; ++i) plain[i] = c[i] + d[i];
  check_cut("add with alpha 1", kLong, plain, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tc({kLong}, c.data()), td({kLong}, d.data()), ty({kLong}, y.data());
    Tensor out = ty.t();
    native::add_out(ctx, tc.t(), td.t(), Scalar(1), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "add with alpha 1 failed");
  });
  check_cut("add with alpha 1 in place", kLong, plain, [&](std::vector<float>& y) {
    y = c;
    KernelRuntimeContext ctx;
    Dense ty({kLong}, y.data()), td({kLong}, d.data());
    Tensor out = ty.t();
    native::add_out(ctx, out, td.t(), Scalar(1), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "add with alpha 1 in place failed");
  });
}

/// Batch norm of [n, c, h, w], cut by channel: pieces within a chunk of 64
/// channels and across chunks, two images.
void check_batch_norm(int64_t n, int64_t c, int64_t h, int64_t w) {
  const int64_t count = n * c * h * w, inner = h * w;
  std::vector<float> x = randoms(count, 31u), weight = randoms(c, 32u), bias = randoms(c, 33u),
                     mean = randoms(c, 34u), var = randoms(c, 35u), expected(count);
  for (float& v : var) v += 0.75f;
  constexpr double kEps = 1e-5;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ch = i / inner % c;
    const float invstd = 1.0f / std::sqrt(var[ch] + static_cast<float>(kEps));
    const float scale = invstd * weight[ch], shift = bias[ch] - mean[ch] * scale;
    expected[i] = x[i] * scale + shift;
  }
  char name[64];
  std::snprintf(name, sizeof name, "batch norm %lldx%lldx%lldx%lld", (long long)n, (long long)c, (long long)h,
                (long long)w);
  check_cut(name, count, expected, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    float none[1] = {0};
    Dense tx({n, c, h, w}, x.data()), ty({n, c, h, w}, y.data()), tw({c}, weight.data()), tb({c}, bias.data()),
        tm({c}, mean.data()), tv({c}, var.data()), t1({0}, none), t2({0}, none);
    Tensor out0 = ty.t(), out1 = t1.t(), out2 = t2.t();
    native::_native_batch_norm_legit_no_training_out(ctx, tx.t(), std::optional<Tensor>(tw.t()),
                                                     std::optional<Tensor>(tb.t()), tm.t(), tv.t(), 0.1, kEps, out0,
                                                     out1, out2);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "%s failed", name);
  }, 1e-6);
}

/// The mean of [a, b, c, d] over `dims` (keepdim), cut by output row:
/// contiguous sums, and rows of several outer dims.
void check_mean(int64_t a, int64_t b, int64_t c, int64_t d, std::vector<int64_t> dims) {
  const int64_t sizes[4] = {a, b, c, d};
  bool reduced[4] = {false, false, false, false};
  int64_t kept_count = 1, out_sizes[4];
  for (int64_t dim : dims) reduced[dim] = true;
  for (int i = 0; i < 4; ++i) kept_count *= reduced[i] ? 1 : sizes[i], out_sizes[i] = reduced[i] ? 1 : sizes[i];
  const int64_t count = a * b * c * d, per_output = count / kept_count;
  std::vector<float> x = randoms(count, 41u), expected(kept_count, 0.0f);
  std::vector<double> sums(kept_count, 0.0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t rest = i, o = 0, scale = 1;
    for (int dim = 3; dim >= 0; --dim) {
      const int64_t at = rest % sizes[dim];
      rest /= sizes[dim];
      if (!reduced[dim]) o += at * scale, scale *= sizes[dim];
    }
    sums[o] += x[i];
  }
  for (int64_t o = 0; o < kept_count; ++o) expected[o] = static_cast<float>(sums[o] / per_output);
  char name[80];
  std::snprintf(name, sizeof name, "mean of %lldx%lldx%lldx%lld over %zu dims", (long long)a, (long long)b,
                (long long)c, (long long)d, dims.size());
  check_cut(name, kept_count, expected, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({a, b, c, d}, x.data()), ty({out_sizes[0], out_sizes[1], out_sizes[2], out_sizes[3]}, y.data());
    Tensor out = ty.t();
    native::mean_dim_out(ctx, tx.t(), ArrayRef<int64_t>(dims.data(), dims.size()), true, std::nullopt, out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "%s failed", name);
  }, 1e-6);
}

/// add (alpha 1) of [2, 40, 25, 40] and [2, 40, 1, 1] both ways round (a
/// squeeze-and-excite product's shapes: binary_maps_f32's rows of the
/// trailing dims, by_scalar and scalar_by), cut by rows.
void check_add_rows() {
  constexpr int64_t kRows = 2 * 40, kInner = 25 * 40, kN = kRows * kInner;
  std::vector<float> full = randoms(kN, 61u), rows = randoms(kRows, 62u), expected(kN);
  for (int64_t i = 0; i < kN; ++i) expected[i] = full[i] + rows[i / kInner];
  for (const bool rows_first : {false, true}) {
    check_cut(rows_first ? "add of channels first" : "add of channels second", kN, expected,
              [&](std::vector<float>& y) {
                KernelRuntimeContext ctx;
                Dense tf({2, 40, 25, 40}, full.data()), tr({2, 40, 1, 1}, rows.data()), ty({2, 40, 25, 40}, y.data());
                Tensor out = ty.t();
                native::add_out(ctx, rows_first ? tr.t() : tf.t(), rows_first ? tf.t() : tr.t(), Scalar(1), out);
                CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "add of channels failed");
              });
  }
}

/// permute_copy of [10, 1290] to [1290, 10] (a linear layer's weight
/// transposed), cut by tiles of rows.
void check_permute() {
  constexpr int64_t kRows = 10, kCols = 1290;
  std::vector<float> x = randoms(kRows * kCols, 51u), expected(kRows * kCols);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) expected[c * kRows + r] = x[r * kCols + c];
  }
  const int64_t dims[2] = {1, 0};
  check_cut("permute_copy", kRows * kCols, expected, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kRows, kCols}, x.data()), ty({kCols, kRows}, y.data());
    Tensor out = ty.t();
    native::permute_copy_out(ctx, tx.t(), ArrayRef<int64_t>(dims, 2), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "permute_copy failed");
  });
}

/// permute_copy of [3, 40, 300] by [0, 2, 1] (a transpose per index of dim
/// 0), cut by strips of rows across the three transposes.
void check_permute_batched() {
  constexpr int64_t kBatch = 3, kRows = 40, kCols = 300;
  std::vector<float> x = randoms(kBatch * kRows * kCols, 53u), expected(kBatch * kRows * kCols);
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t r = 0; r < kRows; ++r) {
      for (int64_t c = 0; c < kCols; ++c) expected[(b * kCols + c) * kRows + r] = x[(b * kRows + r) * kCols + c];
    }
  }
  const int64_t dims[3] = {0, 2, 1};
  check_cut("permute_copy batched", kBatch * kRows * kCols, expected, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kBatch, kRows, kCols}, x.data()), ty({kBatch, kCols, kRows}, y.data());
    Tensor out = ty.t();
    native::permute_copy_out(ctx, tx.t(), ArrayRef<int64_t>(dims, 3), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "permute_copy failed");
  });
}

/// Copies of whole runs (copy_util.h's move_runs), cut on the pool: ShuffleNet-v2's channel shuffle (permute_copy
/// of [2, 58, 28, 28] by [1, 0, 2, 3]: runs of 784), one run of 30,000 (the identity permutation, cut by bytes) and
/// a split of [2, 96, 784] along dim 1 into 58 and 38 (two runs a piece, self's a block apart).
void check_moves() {
  constexpr int64_t kA = 2, kB = 58, kPlane = 784;
  std::vector<float> x = randoms(kA * kB * kPlane, 57u), shuffled(kA * kB * kPlane);
  for (int64_t a = 0; a < kA; ++a) {
    for (int64_t b = 0; b < kB; ++b) {
      std::memcpy(&shuffled[(b * kA + a) * kPlane], &x[(a * kB + b) * kPlane], kPlane * sizeof(float));
    }
  }
  const int64_t shuffle[4] = {1, 0, 2, 3}, same[2] = {0, 1};
  check_cut("permute_copy, runs of 784", x.size(), shuffled, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kA, kB, 28, 28}, x.data()), ty({kB, kA, 28, 28}, y.data());
    Tensor out = ty.t();
    native::permute_copy_out(ctx, tx.t(), ArrayRef<int64_t>(shuffle, 4), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "permute_copy failed");
  }, 0, true);
  const std::vector<float> run(x.begin(), x.begin() + 30000);
  check_cut("permute_copy, one run", run.size(), run, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({300, 100}, const_cast<float*>(run.data())), ty({300, 100}, y.data());
    Tensor out = ty.t();
    native::permute_copy_out(ctx, tx.t(), ArrayRef<int64_t>(same, 2), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "permute_copy failed");
  }, 0, true);
  constexpr int64_t kTotal = 96, kFirst = 58;
  std::vector<float> whole = randoms(2 * kTotal * kPlane, 59u), expected;
  for (const auto& [from, count] : {std::pair<int64_t, int64_t>{0, kFirst}, {kFirst, kTotal - kFirst}}) {
    for (int64_t o = 0; o < 2; ++o) {
      const auto start = whole.begin() + (o * kTotal + from) * kPlane;
      expected.insert(expected.end(), start, start + count * kPlane);
    }
  }
  const int64_t sizes[2] = {kFirst, kTotal - kFirst};
  check_cut("split_with_sizes_copy", expected.size(), expected, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({2, kTotal, kPlane}, whole.data()), t0({2, kFirst, kPlane}, y.data()),
        t1({2, kTotal - kFirst, kPlane}, y.data() + 2 * kFirst * kPlane);
    Tensor outs[2] = {t0.t(), t1.t()};
    native::split_with_sizes_copy_out(ctx, tx.t(), ArrayRef<int64_t>(sizes, 2), 1, ArrayRef<Tensor>(outs, 2));
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "split_with_sizes_copy failed");
  }, 0, true);
}

}  // namespace

void check_elementwise_cuts() {
  check_moves();
  check_mean(1, 1500, 3, 3, {2, 3});
  check_mean(3, 5, 900, 1, {1});
  check_mean(6, 5, 7, 40, {1, 3});
  check_permute();
  check_permute_batched();
  check_unary();
  check_add();
  check_add_rows();
  check_batch_norm(2, 200, 13, 11);
  check_batch_norm(1, 400, 7, 7);
}
