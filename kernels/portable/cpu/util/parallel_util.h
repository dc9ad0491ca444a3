// Threads for etsb's kernels through ExecuTorch's own thread pool
// (extension/threadpool: parallel_for over pthreadpool), when the binary
// links it; the loop on the calling thread otherwise.
//
// Whether a binary has a pool is decided at its link, not when the kernels
// compile: the pool's two entry points are weak references (by their Itanium
// C++ names, as libexecutorch_threadpool.so exports them), which resolve to
// the library's functions when the binary links it and to null when it does
// not. So one build of a kernel library serves binaries with and without
// threads, and a binary that never asks for threads carries no pool.
// Only on LP64 Linux, where those names are the ones below (int64_t is
// long); ETSB_KERNELS_ONE_PATH (etsb's size configuration) and every other
// target run the loop inline, with no reference at all.
#pragma once

#include <cstdint>

#if defined(__linux__) && defined(__LP64__) && defined(__GNUC__) && !defined(ETSB_KERNELS_ONE_PATH)
#define ETSB_KERNELS_THREADPOOL 1
#include <executorch/runtime/core/function_ref.h>

#include <time.h>

namespace etsb {
namespace kernels {
namespace pool {
// executorch::extension::parallel_for and get_thread_count
// (runtime/kernel/thread_parallel_interface.h with ET_USE_THREADPOOL).
bool parallel_for(int64_t begin, int64_t end, int64_t grain,
                  executorch::runtime::FunctionRef<void(int64_t, int64_t)> f)
    __asm__("_ZN10executorch9extension12parallel_forElllNS_7runtime11FunctionRefIFvllEEE") __attribute__((weak));
int64_t get_thread_count() __asm__("_ZN10executorch9extension16get_thread_countEv") __attribute__((weak));
}  // namespace pool
}  // namespace kernels
}  // namespace etsb
#endif

namespace etsb {
namespace kernels {

#if defined(ETSB_KERNELS_THREADPOOL)
/// Whether this thread is running a piece of a parallel_range. ExecuTorch's
/// pool holds a lock while it runs (and while it reports its size), so a
/// parallel loop inside another runs inline instead of waiting on itself.
inline bool& inside_parallel_range() {
  static thread_local bool inside = false;
  return inside;
}
#endif

/// The rules that decide a cut (worth_the_pool, parallel_threads,
/// parallel_pieces) are out of line where the binary may use the pool: one
/// copy for all of a kernel's loops instead of their thread-local reads and
/// clock call at every cut (convolution's object: -0.8 KB); inline without
/// a pool, where they fold to 'run on the calling thread'.
#if defined(ETSB_KERNELS_THREADPOOL)
#define ETSB_POOL_RULE __attribute__((noinline))
#else
#define ETSB_POOL_RULE
#endif

/// How long ExecuTorch's pool (pthreadpool) keeps its workers spinning after
/// a loop, at the least (measured on a 2-vCPU KVM machine: ~10-15 us; then
/// they sleep, and waking one costs the caller ~28 us).
constexpr int64_t kWorkersSpinNs = 8000;
/// A loop of fewer minimum pieces than this (each ~1 us of work) runs on
/// the calling thread when the workers are asleep; a loop of more wakes
/// them: one that pays for the wake (~28 us) by itself, cut in two, and
/// leaves them spinning for the loops after it. At 224 px most convolutions
/// are hundreds of pieces: the first wakes the workers and the operators
/// after it, cut too, keep them busy. The bench's small models (0.05-0.35 ms)
/// have no loop of 64 pieces, so two threads run them as one does. At 8
/// their convolutions woke the workers, which fell asleep again between
/// operators: 7 (MobileNet-v2, 64 px) and 20 (ResNet) futex calls a run
/// under strace, against none now (test_threads.py); 0.86x and 1.04x of
/// their one-thread speed on two (bench_models_delegated.md at 72783d9).
/// An earlier round, with slower kernels, measured ResNet at 1.37x with 8
/// and 1.0x with 64; 16 and 32 were worst (0.65x).
constexpr int64_t kWakeWork = 64;

#if defined(ETSB_KERNELS_THREADPOOL)
/// The steady clock in nanoseconds.
inline int64_t steady_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/// When this thread's last loop on the pool ended (steady_ns; 0: never).
inline int64_t& last_parallel_end() {
  static thread_local int64_t end = 0;
  return end;
}

/// Tests set this to take every loop to the pool, whether its workers are
/// awake or not (so that a cut is exercised whatever the timing).
inline bool& assume_workers_awake() {
  static thread_local bool awake = false;
  return awake;
}
#endif

/// Whether a loop of `work` minimum pieces is worth the pool now: always
/// when the pool's workers are likely still spinning (a loop ended on it
/// less than kWorkersSpinNs ago), else only from kWakeWork pieces on.
ETSB_POOL_RULE inline bool worth_the_pool(int64_t work) {
#if defined(ETSB_KERNELS_THREADPOOL)
  // No clock read on a thread that never ran a loop on the pool (every loop of a one-thread run)
  return work >= kWakeWork || assume_workers_awake() ||
         (last_parallel_end() != 0 && steady_ns() - last_parallel_end() < kWorkersSpinNs);
#else
  (void)work;
  return false;
#endif
}

/// The threads a parallel loop may use now: the pool's size when the binary
/// links ExecuTorch's thread pool (1 inside a piece of another loop), else 1.
ETSB_POOL_RULE inline int64_t parallel_threads() {
#if defined(ETSB_KERNELS_THREADPOOL)
  if (pool::get_thread_count != nullptr && pool::parallel_for != nullptr && !inside_parallel_range()) {
    const int64_t threads = pool::get_thread_count();
    return threads > 1 ? threads : 1;
  }
#endif
  return 1;
}

/// f(b, e), out of line where a loop may run on the pool: one copy of a
/// piece's code for the places a loop runs it from (a pool thread, the
/// calling thread), so that threading a kernel does not multiply its code
/// (threaded max pooling measured 12 KB more with each call inlined).
template <typename F>
#if defined(ETSB_KERNELS_THREADPOOL)
__attribute__((noinline))
#else
inline
#endif
void run_piece(const F& f, int64_t b, int64_t e) {
  f(b, e);
}

#if defined(ETSB_KERNELS_THREADPOOL)
/// The grain parallel_range cuts a range of n with now (see there), 0 to
/// run it on the calling thread. Out of line: one copy of the rule for
/// every loop of a kernel.
ETSB_POOL_RULE inline int64_t range_grain(int64_t n, int64_t grain) {
  const int64_t g = grain > 1 ? grain : 1;
  return n >= 2 * g && worth_the_pool(n / g) ? g : 0;
}
#endif

#if defined(ETSB_KERNELS_THREADPOOL)
/// Whether the pool's workers are likely still spinning after this thread's
/// last loop on the pool (less than kWorkersSpinNs ago; always under
/// assume_workers_awake when there is a pool), outside a piece.
ETSB_POOL_RULE inline bool workers_spinning() {
  if (inside_parallel_range()) return false;
  if (assume_workers_awake()) return pool::parallel_for != nullptr;
  return last_parallel_end() != 0 && steady_ns() - last_parallel_end() < kWorkersSpinNs;
}

/// Runs `piece` on the pool: over [begin, end) cut by `grain`, or with
/// grain 0 whole, as the first of two pieces whose second is empty. A loop
/// not worth cutting still goes to the pool while its workers spin, so that
/// they see it and spin on: a chain of small operators run on the calling
/// thread let them fall asleep (ExecuTorch's pool keeps them spinning
/// ~10-15 us), and the next loop worth cutting paid ~28 us to wake them
/// (MobileNet-v3-Large at 224 px on two threads, under strace: 50 waits a
/// run, 13 after; without it, one wake a run, at its first convolution;
/// 4% less time, ShuffleNet-v2 13%). Out of line: one copy for every loop.
ETSB_POOL_RULE inline void run_on_pool(executorch::runtime::FunctionRef<void(int64_t, int64_t)> piece, int64_t begin,
                                       int64_t end, int64_t grain) {
  // false only for a bad range or grain, which the callers rule out
  if (grain > 0) {
    (void)pool::parallel_for(begin, end, grain, piece);
  } else {
    (void)pool::parallel_for(0, 2, 1, [&piece, begin, end](int64_t b, int64_t) {
      if (b == 0) piece(begin, end);
    });
  }
  last_parallel_end() = steady_ns();
}
#endif

/// parallel_range without asking worth_the_pool (the caller did); a range
/// of one grain or less runs whole, on the pool while its workers spin
/// (run_on_pool), else on the calling thread.
template <typename F>
inline void parallel_range_now(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
#if defined(ETSB_KERNELS_THREADPOOL)
  if (grain < 1) grain = 1;
  const bool cut = end - begin > grain && parallel_threads() > 1;
  if (cut || workers_spinning()) {
    return run_on_pool(
        [&f](int64_t b, int64_t e) {
          bool& inside = inside_parallel_range();
          const bool outer = inside;  // the calling thread runs pieces too
          inside = true;
          run_piece(f, b, e);
          inside = outer;
        },
        begin, end, cut ? grain : 0);
  }
#else
  (void)grain;
#endif
  run_piece(f, begin, end);
}

/// Calls f(b, e) on disjoint ranges covering [begin, end), each at least
/// `grain` long (but the last), on ExecuTorch's thread pool when the binary
/// links one with more than one thread, the range holds two grains or more
/// and the loop is worth the pool (worth_the_pool, a grain counting as a
/// minimum piece: a handoff to a spinning worker measured ~0.6 us, so less
/// than two is no gain); otherwise f(begin, end) once: on the pool while
/// its workers spin (run_on_pool), else on the calling thread.
/// f must give the same results however the range is cut (each index
/// writes its own outputs), so that results do not depend on the number of
/// threads.
template <typename F>
inline void parallel_range(int64_t begin, int64_t end, int64_t grain, const F& f) {
#if defined(ETSB_KERNELS_THREADPOOL)
  const int64_t g = range_grain(end - begin, grain);
  return parallel_range_now(begin, end, g > 0 ? g : end - begin, f);  // whole when not cut
#else
  (void)grain;
  if (end > begin) run_piece(f, begin, end);
#endif
}

/// The pieces to cut a loop of `work` (in any unit) into: as many as the
/// threads parallel_threads() gives, but each at least `min_work` (~1 us of
/// work) and at most `units` (the indivisible parts the loop has), and 1
/// when the loop is not worth the pool now (worth_the_pool); 1 runs it on
/// the calling thread.
ETSB_POOL_RULE inline int64_t parallel_pieces(int64_t work, int64_t min_work, int64_t units) {
  const int64_t most = min_work > 0 ? work / min_work : work;
  int64_t pieces = most < units ? most : units;
  if (pieces < 2 || !worth_the_pool(most)) return 1;  // decided before asking the pool its size (a lock each time)
  const int64_t threads = parallel_threads();
  return threads < pieces ? threads : pieces;
}

/// Elements of a flat loop's block (a 64-byte cache line of floats): a cut
/// of parallel_flat falls between blocks, so that no two threads write one line.
constexpr int64_t kFlatBlock = 16;

/// Elements of an elementwise loop below which a piece is not worth a
/// thread: ~1 us of a map of two tensors (add's ~0.25 ns per Float); a map
/// of one takes twice as many (relu's ~0.14 ns). A vectorised one (hardtanh's
/// clamp, ~0.03 ns) takes as many: its pieces are as short, but with the
/// workers kept spinning (run_on_pool) what decides is where the data is. A
/// piece reads what the operator before it wrote, which its own thread did
/// when the two are cut alike (halves of the elements, of the channels),
/// while a map not cut runs on the calling thread from the other core's
/// cache too: MobileNet-v3's hardswish maps of 47K floats, eight times
/// as many per piece, took ~1.7x their one-thread time on two.
constexpr int64_t kElementwiseTaskWork = 4096;

/// Calls f(b, e) on disjoint ranges covering [0, n), cut between blocks of
/// kFlatBlock elements into pieces of at least `min_piece` elements (each
/// counting as a minimum piece for the wake rule) when the loop is worth the
/// pool (parallel_range); f(0, n) once otherwise. For loops whose element i
/// depends on nothing but its inputs' element i (elementwise maps), whose
/// results are then the same however the range is cut.
template <typename F>
inline void parallel_flat(int64_t n, int64_t min_piece, const F& f) {
  const int64_t blocks = (n + kFlatBlock - 1) / kFlatBlock;
  parallel_range(0, blocks, (min_piece + kFlatBlock - 1) / kFlatBlock, [&f, n](int64_t b, int64_t e) {
    f(b * kFlatBlock, e * kFlatBlock < n ? e * kFlatBlock : n);
  });
}

/// Piece p of [0, n) cut into `pieces` nearly equal parts: [*lo, *hi),
/// empty when n has fewer parts than pieces.
inline void piece_bounds(int64_t n, int64_t pieces, int64_t p, int64_t* lo, int64_t* hi) {
  *lo = n * p / pieces;
  *hi = n * (p + 1) / pieces;
}

/// Calls f(p) for every piece p in [0, pieces), each on its own thread of
/// the pool when there is more than one piece (parallel_range), so that a
/// piece may use scratch memory of its own, found by p.
template <typename F>
inline void parallel_pieces_run(int64_t pieces, const F& f) {
  parallel_range_now(0, pieces, 1, [&f](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) f(p);
  });
}

}  // namespace kernels
}  // namespace etsb
