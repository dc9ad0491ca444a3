// --threads: the size of ExecuTorch's thread pool, when the process has one.
// The pool lives in the wheel's libexecutorch_threadpool.so, whose header the
// wheel does not ship: its functions are named by their (Itanium ABI) symbol
// names. The development runner against the wheel's runtime links it
// (ETSB_RUNNER_THREADPOOL, tools/runner/BUILD): a reference by name, which
// also keeps the library on the link under --as-needed. Other runners look
// the pool up at run time (a backend such as XNNPACK may bring it), and run
// on the calling thread without one.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>

#if defined(ETSB_RUNNER_THREADPOOL)
// executorch::extension::threadpool::get_threadpool() and
// ThreadPool::_unsafe_reset_threadpool(uint32_t), a member function called
// with its object as the first argument (the Itanium C++ ABI).
extern void* etsb_runner_get_threadpool() __asm__("_ZN10executorch9extension10threadpool14get_threadpoolEv");
extern bool etsb_runner_reset_threadpool(void* pool, uint32_t threads) __asm__(
    "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj");
#endif

namespace etsb_runner {

// Resizes the thread pool to `threads`; false, and `why`, when there is no
// pool and more than one thread is asked for, or the pool refuses.
inline bool set_threads(long long threads, std::string& why) {
#if defined(ETSB_RUNNER_THREADPOOL)
  void* get_pool = reinterpret_cast<void*>(&etsb_runner_get_threadpool);
  void* reset = reinterpret_cast<void*>(&etsb_runner_reset_threadpool);
#else
  void* get_pool = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool14get_threadpoolEv");
  void* reset = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj");
#endif
  if (get_pool == nullptr || reset == nullptr) {
    if (threads == 1) return true;
    return why = "--threads " + std::to_string(threads) + ": this binary links no thread pool (no backend or kernel "
                 "library that uses one): its kernels run on the calling thread", false;
  }
  void* pool = reinterpret_cast<void* (*)()>(get_pool)();
  if (pool == nullptr || !reinterpret_cast<bool (*)(void*, uint32_t)>(reset)(pool, static_cast<uint32_t>(threads)))
    return why = "--threads " + std::to_string(threads) + ": the thread pool could not be resized", false;
  return true;
}

}  // namespace etsb_runner
