// The runner's large buffers (the program's segments, the method's planned
// arenas) on huge pages where the system has them: a model at 224 px streams
// megabytes of weights and activations through every run, and on 4 KB pages
// each megabyte is 256 TLB entries. On Linux a buffer of 2 MB or more is an
// anonymous mapping the kernel is asked to back with transparent huge pages
// (madvise MADV_HUGEPAGE, which the "madvise" mode, Debian's default, honours;
// "never" leaves 4 KB pages, and nothing else changes). Measured one thread,
// etsb's kernels at 224 px, with every allocation of the process on huge
// pages: MobileNet-v2 -3.6%, EfficientNet-B0 -5.6%, MobileNet-v3 -2.3%,
// ResNet-18 -0.6%. Smaller buffers, and other systems: calloc.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace etsb_runner {

/// The size from which a buffer is mapped on its own and offered huge pages.
constexpr size_t kHugePageBytes = size_t{2} << 20;

/// `bytes` of zeroed memory (at least one byte), aligned to 16 bytes or more;
/// null when there is none. Release it with release_large(data, bytes).
inline void* allocate_large(size_t bytes) {
#if defined(__linux__)
  if (bytes >= kHugePageBytes) {
    void* data = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data == MAP_FAILED) return nullptr;
#if defined(MADV_HUGEPAGE)
    (void)::madvise(data, bytes, MADV_HUGEPAGE);  // advice only: refused, the pages stay small
#endif
    return data;
  }
#endif
  return std::calloc(bytes > 0 ? bytes : 1, 1);
}

/// Releases memory from allocate_large(bytes).
inline void release_large(void* data, size_t bytes) {
  if (data == nullptr) return;
#if defined(__linux__)
  if (bytes >= kHugePageBytes) {
    ::munmap(data, bytes);
    return;
  }
#endif
  std::free(data);
}

/// A zeroed buffer from allocate_large, released when it goes out of scope.
class LargeBuffer {
 public:
  LargeBuffer() = default;
  explicit LargeBuffer(size_t bytes) : data_(allocate_large(bytes)), bytes_(bytes) {}
  LargeBuffer(LargeBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  LargeBuffer& operator=(LargeBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  LargeBuffer(const LargeBuffer&) = delete;
  LargeBuffer& operator=(const LargeBuffer&) = delete;
  ~LargeBuffer() { release_large(data_, bytes_); }

  /// The memory, or null when it could not be had.
  unsigned char* data() const { return static_cast<unsigned char*>(data_); }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

}  // namespace etsb_runner
