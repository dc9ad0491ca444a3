// The elementwise and batch-norm cuts of etsb's kernels (unary_util.h's
// map_float_cut, elementwise_util.h's binary_same_dtype, batch_norm_util.h's
// batch_norm_f32: parallel_flat and parallel_range of parallel_util.h),
// through the operators (op_relu.cpp, op_hardtanh.cpp, op_add.cpp,
// op_native_batch_norm.cpp, linked in): Float at one and two threads, every
// cut taken (the caller sets assume_workers_awake), gives the same bits,
// and the values of a plain loop (batch norm: within float rounding, as its
// vector builds may fuse the multiply-add). Part of parallel_checks.cpp's
// program, which calls check_elementwise_cuts.
#include "parallel_checks.h"

#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <tuple>
#include <vector>

using ::executorch::aten::Scalar;
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
template <typename Run>
void check_cut(const char* name, size_t n, const std::vector<float>& expected, const Run& run,
               double tolerance = 0) {
  std::vector<float> one(n, -7.0f), two(n, -7.0f);
  set_pool_threads(1);
  run(one);
  set_pool_threads(2);
  run(two);
  CHECK(std::memcmp(one.data(), two.data(), n * sizeof(float)) == 0, "%s: one and two threads differ", name);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i) {
    const double error = std::fabs(static_cast<double>(two[i]) - expected[i]);
    wrong += tolerance == 0 ? two[i] != expected[i] : error > tolerance * (std::fabs(expected[i]) + 1.0);
  }
  CHECK(wrong == 0, "%s: %zu of %zu values differ from a plain loop", name, wrong, n);
}

/// relu and hardtanh (its vectorised clamp) over a length with a partial block.
void check_unary() {
  constexpr int64_t kN = 5 * 4096 + 21;
  std::vector<float> x = randoms(kN, 99u), relu(kN), clamped(kN);
  for (int64_t i = 0; i < kN; ++i) {
    relu[i] = x[i] < 0 ? 0.0f : x[i];
    clamped[i] = x[i] < -0.25f ? -0.25f : (x[i] > 0.3f ? 0.3f : x[i]);
  }
  check_cut("relu", kN, relu, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kN}, x.data()), ty({kN}, y.data());
    Tensor out = ty.t();
    native::relu_out(ctx, tx.t(), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "relu failed");
  });
  check_cut("hardtanh", kN, clamped, [&](std::vector<float>& y) {
    KernelRuntimeContext ctx;
    Dense tx({kN}, x.data()), ty({kN}, y.data());
    Tensor out = ty.t();
    native::hardtanh_out(ctx, tx.t(), Scalar(-0.25), Scalar(0.3), out);
    CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "hardtanh failed");
  });
}

/// add of two tensors of one shape, and of a tensor and a one-element one
/// (alpha 2: exact products, so a fused multiply-add rounds the same).
void check_add() {
  constexpr int64_t kC = 3, kPlane = 3001;
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

}  // namespace

void check_elementwise_cuts() {
  check_unary();
  check_add();
  check_batch_norm(2, 70, 13, 11);
  check_batch_norm(1, 200, 7, 7);
}
