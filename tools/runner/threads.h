// --threads: the size of ExecuTorch's thread pool, when the process has one.
// The pool lives in libexecutorch_threadpool.so, which only backends and
// threaded kernels bring in, and whose header the runtime wheel does not
// ship: so it is looked up by its (Itanium ABI) symbol names rather than
// linked.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <string>

namespace etsb_runner {

// Resizes the thread pool to `threads`; false, and `why`, when there is no
// pool and more than one thread is asked for, or the pool refuses.
inline bool set_threads(long long threads, std::string& why) {
  void* get_pool = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool14get_threadpoolEv");
  void* reset = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj");
  if (get_pool == nullptr || reset == nullptr) {
    if (threads == 1) return true;
    return why = "--threads " + std::to_string(threads) + ": this binary links no thread pool (no backend or kernel "
                 "library that uses one): its kernels run on the calling thread", false;
  }
  void* pool = reinterpret_cast<void* (*)()>(get_pool)();
  // A member function called with its object as the first argument (the Itanium C++ ABI).
  if (pool == nullptr || !reinterpret_cast<bool (*)(void*, uint32_t)>(reset)(pool, static_cast<uint32_t>(threads)))
    return why = "--threads " + std::to_string(threads) + ": the thread pool could not be resized", false;
  return true;
}

}  // namespace etsb_runner
