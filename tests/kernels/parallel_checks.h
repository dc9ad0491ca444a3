// What the thread checks' translation units share (parallel_checks.cpp, its
// main and the gemm, convolution and max-pool checks;
// parallel_elementwise_checks.cpp, the elementwise, batch-norm, mean and
// transpose cuts):
// counters and CHECK, the pool's size, random floats and dense tensors over
// caller-owned memory.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>

// executorch::extension::threadpool::get_threadpool() and
// ThreadPool::_unsafe_reset_threadpool(uint32_t), as tools/runner/threads.h
// names them; weak, so that the program also links without the pool.
extern void* test_get_threadpool() __asm__("_ZN10executorch9extension10threadpool14get_threadpoolEv")
    __attribute__((weak));
extern bool test_reset_threadpool(void* pool, uint32_t threads) __asm__(
    "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj") __attribute__((weak));

inline int g_failed = 0;
inline int g_checks = 0;

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

/// Resizes the pool to `threads` (nothing without a pool: one thread whatever is asked).
inline void set_pool_threads(uint32_t threads) {
  if (test_get_threadpool == nullptr) return;
  void* pool = test_get_threadpool();
  CHECK(pool != nullptr && test_reset_threadpool(pool, threads), "resizing the pool to %u", threads);
}

/// The next of a linear congruential sequence of floats in [-0.5, 0.5), from `state`.
inline float next_random(uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
}

// A dense tensor of `sizes` over `data` (Float unless told).
struct Dense {
  ::executorch::aten::SizesType sizes[4];
  ::executorch::aten::DimOrderType order[4];
  ::executorch::aten::StridesType strides[4];
  ::executorch::aten::TensorImpl impl;
  Dense(std::initializer_list<int64_t> shape, void* data,
        ::executorch::aten::ScalarType dtype = ::executorch::aten::ScalarType::Float)
      : impl(dtype, static_cast<ssize_t>(shape.size()), fill(shape), data, order, strides) {}
  ::executorch::aten::SizesType* fill(std::initializer_list<int64_t> shape) {
    int i = 0;
    for (int64_t s : shape) sizes[i++] = static_cast<::executorch::aten::SizesType>(s);
    ::executorch::aten::StridesType running = 1;
    for (int d = i - 1; d >= 0; --d) {
      order[d] = static_cast<::executorch::aten::DimOrderType>(d);
      strides[d] = running;
      running *= sizes[d];
    }
    return sizes;
  }
  ::executorch::aten::Tensor t() { return ::executorch::aten::Tensor(&impl); }
};

/// parallel_elementwise_checks.cpp: relu, hardtanh, add, batch norm, mean and
/// permute_copy (Float) at one and two threads (every cut taken) against each
/// other and a plain loop.
void check_elementwise_cuts();
