// The runner calls etsb::register_model_kernels() before it loads the program
// (it is compiled with -DETSB_MODEL_ENTRY). The kernels come from ExecuTorch's
// optimized library, which registers them itself when it is loaded; here the
// threadpool its kernels parallelise on is set to ETSB_BENCH_ET_THREADS threads
// (unset: 1; 0: the library's default size, the performance cores).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <executorch/runtime/core/error.h>

// libexecutorch_threadpool.so exports these; the wheel ships no threadpool.h.
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t new_thread_count);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace etsb {
executorch::runtime::Error register_model_kernels() {
  const char* text = std::getenv("ETSB_BENCH_ET_THREADS");
  long threads = text && *text ? std::strtol(text, nullptr, 10) : 1;
  if (threads <= 0) return executorch::runtime::Error::Ok;
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr || !pool->_unsafe_reset_threadpool(static_cast<uint32_t>(threads)) ||
      pool->get_thread_count() != static_cast<size_t>(threads)) {
    std::fprintf(stderr, "cannot set ExecuTorch's threadpool to %ld threads\n", threads);
    return executorch::runtime::Error::Internal;
  }
  return executorch::runtime::Error::Ok;
}
}  // namespace etsb
