// Checks of etsb's kernel threads (kernels/portable/cpu/util/parallel_util.h)
// and of the threaded matrix product (gemm_f32.h), built and run by
// tests/test_threads.py twice: linked with the wheel's
// libexecutorch_threadpool.so (argument "pool") and without it ("none").
//
// With the pool: parallel_range covers its range exactly once in pieces of at
// least the grain, on two threads when the pool has two; gemm_f32 gives the
// same bits on one and two threads for shapes cut along columns and along
// rows, with partial register tiles and several k and n cache passes, and
// stays within float rounding of a double-precision product. Without it: one
// thread, the whole range in one call on the calling thread.
//
// Prints one line per failed check and a summary; exits 1 if any failed.
#include "kernels/portable/cpu/util/gemm_f32.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

// executorch::extension::threadpool::get_threadpool() and
// ThreadPool::_unsafe_reset_threadpool(uint32_t), as tools/runner/threads.h
// names them; weak, so that the program also links without the pool.
extern void* test_get_threadpool() __asm__("_ZN10executorch9extension10threadpool14get_threadpoolEv")
    __attribute__((weak));
extern bool test_reset_threadpool(void* pool, uint32_t threads) __asm__(
    "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj") __attribute__((weak));

namespace k = etsb::kernels;

int g_failed = 0;
int g_checks = 0;

#define CHECK(cond, ...)                          \
  do {                                            \
    ++g_checks;                                   \
    if (!(cond)) {                                \
      ++g_failed;                                 \
      std::printf("FAILED %s: ", #cond);          \
      std::printf(__VA_ARGS__);                   \
      std::printf("\n");                          \
    }                                             \
  } while (0)

static void set_pool_threads(uint32_t threads) {
  if (test_get_threadpool == nullptr) return;  // no pool: one thread whatever is asked
  void* pool = test_get_threadpool();
  CHECK(pool != nullptr && test_reset_threadpool(pool, threads), "resizing the pool to %u", threads);
}

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
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
  };
  for (float& x : a) x = next();
  for (float& x : b) x = next();
  for (float& x : init) x = next();
  const std::vector<float> one = product(s, a, b, init, 1);
  const std::vector<float> two = product(s, a, b, init, 2);
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
  } else {
    set_pool_threads(2);
    CHECK(k::parallel_threads() == 2, "%lld threads with a pool of two", (long long)k::parallel_threads());
    check_range(0, 100000, 1, 2);
    check_range(5, 1005, 10, 2);
    check_range(0, 10, 10, 1);  // a single grain: no thread woken
    // A parallel loop inside another runs inline (the pool is busy, and locked, running the outer one).
    std::atomic<int64_t> inner_total{0};
    k::parallel_range(0, 4, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        CHECK(k::parallel_threads() == 1, "%lld threads inside a parallel loop", (long long)k::parallel_threads());
        k::parallel_range(0, 1000, 1, [&](int64_t ib, int64_t ie) { inner_total += ie - ib; });
      }
    });
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
  }
  std::printf("%d checks, %d failed\n", g_checks, g_failed);
  return g_failed == 0 ? 0 : 1;
}
