// Checks of etsb's kernel threads (util/parallel_util.h), the threaded gemm
// (gemm_f32.h), Float convolution and Float max pooling (op_convolution.cpp,
// op_max_pool2d_with_indices.cpp, linked in), run by tests/test_threads.py
// linked with the wheel's libexecutorch_threadpool.so ("pool") and without.
// With the pool: parallel_range covers its range once, in pieces of at least
// the grain, on two threads; gemm (cut by columns and by rows, partial tiles,
// several k and n passes), convolution (each path: depthwise in place,
// padded and channels-last, pointwise, im2col padded and in place, tiny
// planes' dot, a single column tile) and max pooling (cut by plane) give the same bits on one and
// two threads, within float rounding of double precision (pooling: the
// maxima and indices of a plain window scan); so do the elementwise,
// batch-norm, mean and transpose cuts (parallel_elementwise_checks.cpp); a
// small loop goes to the pool right after another, not to sleeping
// workers. Without: one thread, the whole range in one call, the same
// results. Prints one line per failed check and a summary; exits 1 if any
// failed.
#include "kernels/portable/cpu/util/gemm_f32.h"
#include "parallel_checks.h"

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <vector>

namespace k = etsb::kernels;
using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;

// op_convolution.cpp's and op_max_pool2d_with_indices.cpp's kernels (linked in), as
// kernels/portable/functions.yaml declares them.
namespace torch {
namespace executor {
namespace native {
Tensor& convolution_out(::executorch::runtime::KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, bool transposed, ArrayRef<int64_t> output_padding,
                        int64_t groups, Tensor& out);
std::tuple<Tensor&, Tensor&> max_pool2d_with_indices_out(::executorch::runtime::KernelRuntimeContext& ctx,
                                                         const Tensor& self, ArrayRef<int64_t> kernel_size,
                                                         ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                                                         ArrayRef<int64_t> dilation, bool ceil_mode, Tensor& out,
                                                         Tensor& indices);
}  // namespace native
}  // namespace executor
}  // namespace torch

// Calls of parallel_range over [begin, end): which indices ran, how often, on which threads.
static void check_range(int64_t begin, int64_t end, int64_t grain, size_t threads_expected) {
  std::vector<std::atomic<int>> seen(static_cast<size_t>(end));
  std::mutex mutex;
  std::set<std::thread::id> threads;
  std::atomic<int> calls{0}, short_pieces{0};
  k::parallel_range(begin, end, grain, [&](int64_t b, int64_t e) {
    ++calls;
    if (e - b < grain && e != end) ++short_pieces;
    for (int64_t i = b; i < e; ++i) ++seen[static_cast<size_t>(i)];
    // Long enough for a woken worker to take its piece before the calling
    // thread, done with its own, takes that one too (pthreadpool steals work).
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  int wrong = 0;
  for (int64_t i = 0; i < end; ++i) wrong += seen[static_cast<size_t>(i)] != (i >= begin ? 1 : 0);
  CHECK(wrong == 0, "[%lld, %lld) grain %lld: %d indices not run exactly once", (long long)begin, (long long)end,
        (long long)grain, wrong);
  CHECK(short_pieces == 0, "[%lld, %lld) grain %lld: a piece shorter than the grain", (long long)begin,
        (long long)end, (long long)grain);
  CHECK(threads.size() == threads_expected, "[%lld, %lld) grain %lld: %zu threads, expected %zu", (long long)begin,
        (long long)end, (long long)grain, threads.size(), threads_expected);
  if (threads_expected == 1) {
    CHECK(calls == 1 && *threads.begin() == std::this_thread::get_id(), "one call on the calling thread");
  }
}

struct Shape {
  int64_t m, n, k;
  bool transposed_a, accumulate;
};

// C from gemm_f32 with the pool at `threads` threads (C starts as `init`).
static std::vector<float> product(const Shape& s, const std::vector<float>& a, const std::vector<float>& b,
                                  const std::vector<float>& init, uint32_t threads) {
  set_pool_threads(threads);
  std::vector<float> c = init;
  const int64_t a_row = s.transposed_a ? 1 : s.k, a_col = s.transposed_a ? s.m : 1;
  k::gemm_f32(s.m, s.n, s.k, a.data(), a_row, a_col, b.data(), s.n, c.data(), s.n, s.accumulate);
  return c;
}

static void check_gemm(const Shape& s) {
  std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n)),
      init(static_cast<size_t>(s.m * s.n));
  uint32_t state = 12345u + static_cast<uint32_t>(s.m * 7 + s.n * 13 + s.k);
  for (float& x : a) x = next_random(state);
  for (float& x : b) x = next_random(state);
  for (float& x : init) x = next_random(state);
  k::assume_workers_awake() = true;  // the cut taken, whatever the timing
  const std::vector<float> one = product(s, a, b, init, 1);
  const std::vector<float> two = product(s, a, b, init, 2);
  k::assume_workers_awake() = false;
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0,
        "gemm %lldx%lldx%lld%s%s: one and two threads differ", (long long)s.m, (long long)s.n, (long long)s.k,
        s.transposed_a ? " (A transposed)" : "", s.accumulate ? " (accumulating)" : "");
  double worst = 0;
  for (int64_t i = 0; i < s.m; ++i) {
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = s.accumulate ? init[static_cast<size_t>(i * s.n + j)] : 0.0, scale = std::fabs(sum);
      for (int64_t p = 0; p < s.k; ++p) {
        const double term = static_cast<double>(a[static_cast<size_t>(s.transposed_a ? p * s.m + i : i * s.k + p)]) *
                            b[static_cast<size_t>(p * s.n + j)];
        sum += term;
        scale += std::fabs(term);
      }
      const double error = std::fabs(two[static_cast<size_t>(i * s.n + j)] - sum) / (scale + 1e-30);
      worst = error > worst ? error : worst;
    }
  }
  CHECK(worst < 1e-5, "gemm %lldx%lldx%lld: relative error %g against double precision", (long long)s.m,
        (long long)s.n, (long long)s.k, worst);
}


struct Conv {
  const char* name;
  int64_t n, c, size, oc, kernel, stride, pad, groups;
  bool bias;
  int64_t out_size() const { return (size + 2 * pad - kernel) / stride + 1; }
};

// The convolution's output with the pool at `threads` threads, scratch from a temp allocator.
static std::vector<float> convolve(const Conv& s, std::vector<float>& x, std::vector<float>& w,
                                   std::vector<float>& b, uint32_t threads) {
  set_pool_threads(threads);
  const int64_t os = s.out_size();
  std::vector<float> y(static_cast<size_t>(s.n * s.oc * os * os), -7.0f);
  static uint8_t arena[8 << 20];
  ::executorch::runtime::MemoryAllocator temp(sizeof arena, arena);
  ::executorch::runtime::KernelRuntimeContext ctx(nullptr, &temp);
  Dense tx({s.n, s.c, s.size, s.size}, x.data()), tw({s.oc, s.c / s.groups, s.kernel, s.kernel}, w.data()),
      tb({s.oc}, b.data()), ty({s.n, s.oc, os, os}, y.data());
  const int64_t stride[1] = {s.stride}, pad[1] = {s.pad}, one[1] = {1}, zero[1] = {0};
  Tensor out = ty.t();
  torch::executor::native::convolution_out(ctx, tx.t(), tw.t(), s.bias ? std::optional<Tensor>(tb.t()) : std::nullopt,
                                           ArrayRef<int64_t>(stride, 1), ArrayRef<int64_t>(pad, 1),
                                           ArrayRef<int64_t>(one, 1), false, ArrayRef<int64_t>(zero, 1), s.groups,
                                           out);
  CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "conv %s failed", s.name);
  return y;
}

static void check_conv(const Conv& s) {
  const int64_t os = s.out_size(), cg = s.c / s.groups, og = s.oc / s.groups;
  std::vector<float> x(static_cast<size_t>(s.n * s.c * s.size * s.size)),
      w(static_cast<size_t>(s.oc * cg * s.kernel * s.kernel)), b(static_cast<size_t>(s.oc));
  uint32_t state = 777u + static_cast<uint32_t>(s.c * 7 + s.oc * 13 + s.size);
  for (float& v : x) v = next_random(state);
  for (float& v : w) v = next_random(state);
  for (float& v : b) v = next_random(state);
  const std::vector<float> one = convolve(s, x, w, b, 1);
#if defined(ETSB_KERNELS_THREADPOOL)
  k::last_parallel_end() = 0;  // set again by a loop that ends on the pool
#endif
  const std::vector<float> two = convolve(s, x, w, b, 2);
#if defined(ETSB_KERNELS_THREADPOOL)
  CHECK(k::parallel_threads() < 2 || k::last_parallel_end() != 0, "conv %s: not cut on two threads", s.name);
#endif
  CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0, "conv %s: one and two threads differ",
        s.name);
  double worst = 0;
  for (int64_t i = 0; i < s.n; ++i) {
    for (int64_t o = 0; o < s.oc; ++o) {
      for (int64_t oh = 0; oh < os; ++oh) {
        for (int64_t ow = 0; ow < os; ++ow) {
          double sum = s.bias ? b[static_cast<size_t>(o)] : 0.0, scale = std::fabs(sum);
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t c = o / og * cg + ci;
            for (int64_t kh = 0; kh < s.kernel; ++kh) {
              for (int64_t kw = 0; kw < s.kernel; ++kw) {
                const int64_t ih = oh * s.stride - s.pad + kh, iw = ow * s.stride - s.pad + kw;
                if (ih < 0 || ih >= s.size || iw < 0 || iw >= s.size) continue;
                const double term = static_cast<double>(x[static_cast<size_t>(((i * s.c + c) * s.size + ih) * s.size + iw)]) *
                                    w[static_cast<size_t>(((o * cg + ci) * s.kernel + kh) * s.kernel + kw)];
                sum += term;
                scale += std::fabs(term);
              }
            }
          }
          const double got = two[static_cast<size_t>(((i * s.oc + o) * os + oh) * os + ow)];
          const double error = std::fabs(got - sum) / (scale + 1e-30);
          worst = error > worst ? error : worst;
        }
      }
    }
  }
  CHECK(worst < 1e-5, "conv %s: relative error %g against double precision", s.name, worst);
}

// Every path of op_convolution.cpp's Float convolution, each shape above its
// threshold to be cut on two threads.
static void check_convolutions() {
  const Conv convs[] = {
      {"depthwise 3x3 s1 in place", 1, 32, 24, 32, 3, 1, 1, 32, true},
      {"depthwise 5x5 s2 padded", 1, 24, 21, 24, 5, 2, 2, 24, false},
      {"depthwise 3x3 s2, 2 per channel", 2, 16, 33, 32, 3, 2, 1, 16, true},
      {"depthwise 3x3 4x4 plane, channels-last", 1, 144, 4, 144, 3, 1, 1, 144, true},
      {"depthwise 3x3 2x2 plane, channels-last, odd channels", 1, 237, 2, 237, 3, 1, 1, 237, false},
      {"pointwise", 1, 32, 17, 48, 1, 1, 0, 1, true},
      {"shallow pointwise (MobileNet-v2's 8 deep)", 1, 8, 32, 48, 1, 1, 0, 1, true},
      {"pointwise cut by channel, 7x7 plane, the 49th column by dot in each piece", 1, 96, 7, 203, 1, 1, 0, 1, true},
      {"pointwise cut by channel, 14x14 plane, its last 4 columns by dot in each piece", 1, 40, 14, 84, 1, 1, 0, 1,
       false},
      {"3x3 s1 im2col padded", 1, 16, 18, 32, 3, 1, 1, 1, true},
      {"3x3 s2 im2col in place (no padded copy over 1 MB), 31x31: the last column by dot", 1, 72, 62, 40, 3, 2, 1, 1,
       false},
      {"3x3 s1 7x7 plane, cut by rows (too few column tiles), the last column by dot", 1, 256, 7, 64, 3, 1, 1, 1, true},
      {"3x3 s1 14x14 plane, 7 column tiles: cut by rows", 1, 32, 14, 48, 3, 1, 1, 1, false},
      {"7x7 s2 several tiles (no im2col on AVX-512: 32-wide rows)", 1, 3, 64, 16, 7, 2, 3, 1, true},
      {"3x3 s1 no im2col, 16-wide rows, 8 + 8 + 4 + 1 output rows", 1, 16, 16, 21, 3, 1, 1, 1, true},
      {"3x3 s1 no im2col, two passes of depth", 1, 32, 16, 24, 3, 1, 1, 1, false},
      {"strided 1x1, 8-wide rows", 1, 64, 16, 64, 1, 2, 0, 1, true},
      {"dot 2x2 plane, strided 1x1", 1, 256, 4, 40, 1, 2, 0, 1, true},
      {"dot 2x2 plane, 40 deep", 1, 40, 2, 240, 1, 1, 0, 1, false},
      {"dot 2x2 plane", 1, 128, 4, 96, 3, 2, 1, 1, true},
      {"one column tile", 1, 64, 8, 72, 3, 2, 1, 1, true},
      {"two groups, two images", 2, 16, 12, 32, 3, 1, 1, 2, true},
      {"55 groups of 8 channels, each too small to cut (RegNet-Y's 7x7): cut by group", 1, 440, 7, 440, 3, 1, 1, 55,
       true},
      {"13 groups of 8, stride 2, cut by group unevenly", 1, 104, 28, 104, 3, 2, 1, 13, false},
      {"pointwise, three images, cut by image", 3, 32, 17, 48, 1, 1, 0, 1, true},
  };
  for (const Conv& s : convs) check_conv(s);
}

// 3x3 stride-2 max pooling with padding 1 of 64 planes of 56x56 (ResNet's, enough taps to be cut by plane) at
// `threads` threads: the maxima, and the indices as floats after them.
static std::vector<double> max_pooled(std::vector<float>& x, uint32_t threads) {
  set_pool_threads(threads);
  constexpr int64_t kPlanes = 64, kIn = 56, kOut = 28;
  std::vector<float> y(static_cast<size_t>(kPlanes * kOut * kOut), -7.0f);
  std::vector<int64_t> where(y.size(), -7);
  ::executorch::runtime::KernelRuntimeContext ctx;
  Dense tx({1, kPlanes, kIn, kIn}, x.data()), ty({1, kPlanes, kOut, kOut}, y.data()),
      ti({1, kPlanes, kOut, kOut}, where.data(), ::executorch::aten::ScalarType::Long);
  const int64_t kernel[1] = {3}, stride[1] = {2}, pad[1] = {1}, one[1] = {1};
  Tensor out = ty.t(), indices = ti.t();
  torch::executor::native::max_pool2d_with_indices_out(ctx, tx.t(), ArrayRef<int64_t>(kernel, 1),
                                                       ArrayRef<int64_t>(stride, 1), ArrayRef<int64_t>(pad, 1),
                                                       ArrayRef<int64_t>(one, 1), false, out, indices);
  CHECK(ctx.failure_state() == ::executorch::runtime::Error::Ok, "max pool failed");
  std::vector<double> both(y.begin(), y.end());
  both.insert(both.end(), where.begin(), where.end());
  return both;
}

static void check_max_pool() {
  constexpr int64_t kPlanes = 64, kIn = 56, kOut = 28;
  std::vector<float> x(static_cast<size_t>(kPlanes * kIn * kIn));
  uint32_t state = 4242u;
  for (float& v : x) v = next_random(state);
  const std::vector<double> one = max_pooled(x, 1), two = max_pooled(x, 2);
  CHECK(one == two, "max pool: one and two threads differ");
  int64_t wrong = 0;
  for (int64_t p = 0; p < kPlanes; ++p) {
    for (int64_t o = 0; o < kOut * kOut; ++o) {
      float best = -1e30f;
      int64_t at = -1;
      for (int64_t ih = (o / kOut) * 2 - 1; ih <= (o / kOut) * 2 + 1; ++ih) {
        for (int64_t iw = (o % kOut) * 2 - 1; iw <= (o % kOut) * 2 + 1; ++iw) {
          if (ih < 0 || iw < 0 || ih >= kIn || iw >= kIn) continue;
          const float v = x[static_cast<size_t>((p * kIn + ih) * kIn + iw)];
          if (v > best) best = v, at = ih * kIn + iw;
        }
      }
      const size_t i = static_cast<size_t>(p * kOut * kOut + o);
      wrong += two[i] != best || two[i + two.size() / 2] != static_cast<double>(at);
    }
  }
  CHECK(wrong == 0, "max pool: %lld outputs differ from a plain window scan", (long long)wrong);
}

// The pool is skipped for a small loop while its workers sleep (a loop
// ended on it over kWorkersSpinNs ago), and taken right after another.
static void check_worth_the_pool() {
  // Right after a loop (many grains: on the pool, whatever the timing); tried a few times, as a loaded
  // machine may stop this thread for longer than the workers spin.
  bool worth = false, cut = false;
  for (int attempt = 0; attempt < 100 && !(worth && cut); ++attempt) {
    k::parallel_range(0, 1000, 1, [](int64_t, int64_t) {});
    worth = k::worth_the_pool(1);
    cut = k::parallel_pieces(4 * k::kGemmTaskWork, k::kGemmTaskWork, 100) == 2;
  }
  CHECK(worth, "a small loop right after another was refused the pool");
  CHECK(cut, "a small loop right after another was not cut in two");
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  CHECK(!k::worth_the_pool(k::kWakeWork - 1), "a small loop was given sleeping workers");
  CHECK(k::parallel_pieces(4 * k::kGemmTaskWork, k::kGemmTaskWork, 100) == 1, "a small loop was cut for sleeping "
        "workers");
  CHECK(k::worth_the_pool(k::kWakeWork), "a large loop was refused sleeping workers");
  k::assume_workers_awake() = true;
  CHECK(k::worth_the_pool(1), "assume_workers_awake was not heeded");
  k::assume_workers_awake() = false;
}

// A loop too small to cut runs whole, on the pool while its workers spin
// (run_on_pool: so that they spin on), on the calling thread inside a piece.
static void check_whole_on_the_pool() {
  k::assume_workers_awake() = true;  // the workers taken as spinning, whatever the timing
  const int64_t before = k::last_parallel_end();
  std::atomic<int> calls{0}, inner_calls{0};
  std::atomic<int64_t> covered{0};
  k::parallel_range(3, 13, 10, [&](int64_t b, int64_t e) {
    ++calls;
    covered += e - b;
    CHECK(b == 3 && e == 13, "a single grain was cut: [%lld, %lld)", (long long)b, (long long)e);
    k::parallel_range(0, 5, 5, [&](int64_t, int64_t) { ++inner_calls; });  // inline: the pool is running this
  });
  k::assume_workers_awake() = false;
  CHECK(calls == 1 && covered == 10 && inner_calls == 1, "a single grain ran in %d calls over %lld indices",
        calls.load(), (long long)covered.load());
  CHECK(k::last_parallel_end() > before, "a single grain with spinning workers did not go to the pool");
}

int main(int argc, char** argv) {
  const bool pool = argc == 2 && std::strcmp(argv[1], "pool") == 0;
  if (argc != 2 || (!pool && std::strcmp(argv[1], "none") != 0)) {
    std::fprintf(stderr, "usage: %s pool|none\n", argv[0]);
    return 2;
  }
  CHECK((test_get_threadpool != nullptr) == pool, "the pool is %s", pool ? "missing" : "linked");
  if (!pool) {
    CHECK(k::parallel_threads() == 1, "%lld threads without a pool", (long long)k::parallel_threads());
    check_range(0, 100000, 1, 1);
    check_range(3, 1000, 7, 1);
    check_gemm({96, 1000, 300, false, false});
    check_convolutions();
    check_max_pool();
    check_elementwise_cuts();
  } else {
    set_pool_threads(2);
    CHECK(k::parallel_threads() == 2, "%lld threads with a pool of two", (long long)k::parallel_threads());
    check_range(0, 100000, 1, 2);
    check_range(5, 1005, 10, 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the workers asleep again
    check_range(0, 10, 10, 1);  // a single grain: no thread woken
    check_whole_on_the_pool();
    // A parallel loop inside another runs inline (the pool is busy, and locked, running the outer one).
    std::atomic<int64_t> inner_total{0};
    k::assume_workers_awake() = true;  // a loop of 4 grains: on the pool even if its workers sleep
    k::parallel_range(0, 4, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        CHECK(k::parallel_threads() == 1, "%lld threads inside a parallel loop", (long long)k::parallel_threads());
        k::parallel_range(0, 1000, 1, [&](int64_t ib, int64_t ie) { inner_total += ie - ib; });
      }
    });
    k::assume_workers_awake() = false;
    CHECK(inner_total == 4000, "nested loops covered %lld of 4000 indices", (long long)inner_total.load());
    set_pool_threads(1);
    CHECK(k::parallel_threads() == 1, "%lld threads with a pool of one", (long long)k::parallel_threads());
    check_range(0, 100000, 1, 1);
    // Cut along columns (n has more register tiles), with a partial tile and
    // more than one kNC pass; along rows (m has more); A transposed, as
    // transposed convolution reads it; C accumulated, as addmm and bmm do;
    // and small products that stay on one thread.
    const Shape shapes[] = {
        {64, 1000, 300, false, false},  {37, 2100, 520, false, true},  {1, 4097, 700, false, false},
        {1000, 40, 300, false, false},  {613, 17, 259, true, false},   {500, 500, 3, false, true},
        {3, 5, 7, false, false},        {300, 200, 0, false, false},   {256, 256, 256, true, true},
    };
    for (const Shape& s : shapes) check_gemm(s);
    check_worth_the_pool();
    k::assume_workers_awake() = true;  // every cut taken, whatever the timing
    check_convolutions();
    check_max_pool();
    check_elementwise_cuts();
    k::assume_workers_awake() = false;
  }
  std::printf("%d checks, %d failed\n", g_checks, g_failed);
  return g_failed == 0 ? 0 : 1;
}
