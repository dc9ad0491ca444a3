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

/// The threads a parallel loop may use now: the pool's size when the binary
/// links ExecuTorch's thread pool (1 inside a piece of another loop), else 1.
inline int64_t parallel_threads() {
#if defined(ETSB_KERNELS_THREADPOOL)
  if (pool::get_thread_count != nullptr && pool::parallel_for != nullptr && !inside_parallel_range()) {
    const int64_t threads = pool::get_thread_count();
    return threads > 1 ? threads : 1;
  }
#endif
  return 1;
}

/// Calls f(b, e) on disjoint ranges covering [begin, end), each at least
/// `grain` long (but the last), on ExecuTorch's thread pool when the binary
/// links one with more than one thread and the range holds more than one
/// grain; otherwise f(begin, end) once, on the calling thread. f must give
/// the same results however the range is cut (each index writes its own
/// outputs), so that results do not depend on the number of threads.
template <typename F>
inline void parallel_range(int64_t begin, int64_t end, int64_t grain, const F& f) {
  if (end <= begin) return;
#if defined(ETSB_KERNELS_THREADPOOL)
  if (grain < 1) grain = 1;
  if (end - begin > grain && parallel_threads() > 1) {
    // false only for a bad range or grain, which the checks above rule out
    (void)pool::parallel_for(begin, end, grain, [&f](int64_t b, int64_t e) {
      bool& inside = inside_parallel_range();
      const bool outer = inside;  // the calling thread runs pieces too
      inside = true;
      f(b, e);
      inside = outer;
    });
    return;
  }
#else
  (void)grain;
#endif
  f(begin, end);
}

}  // namespace kernels
}  // namespace etsb
