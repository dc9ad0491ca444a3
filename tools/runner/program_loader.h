// The program's bytes, read from its open file segment by segment, as
// ExecuTorch's FileDataLoader reads them, but into the runner's large buffers
// (huge_pages.h): a model's weights then sit on huge pages where the system
// has them. Each segment is memory of its own, writable and never a mapping
// of the file (a corrupt program may place an input or an output in its
// constant data, which the method then writes); out-of-range requests are
// refused as FileDataLoader refuses them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <executorch/runtime/core/data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/freeable_buffer.h>
#include <executorch/runtime/core/result.h>
#include <executorch/runtime/platform/log.h>

#include "files.h"
#include "huge_pages.h"

namespace etsb_runner {

/// A DataLoader over a regular file already open (`fd`, of `size` bytes),
/// which must stay open while the program is in use.
class ProgramLoader final : public executorch::runtime::DataLoader {
 public:
  ProgramLoader(int fd, size_t size) : fd_(fd), size_(size) {}

  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size, const SegmentInfo& segment_info) const override {
    (void)segment_info;
    if (!in_file(offset, size)) return executorch::runtime::Error::InvalidArgument;
    if (size == 0) return executorch::runtime::FreeableBuffer(nullptr, 0, nullptr);
    void* data = allocate_large(size);
    if (data == nullptr) {
      ET_LOG(Error, "no memory for %zu bytes of the program", size);
      return executorch::runtime::Error::MemoryAllocationFailed;
    }
    if (!read_logged(offset, size, data)) {
      release_large(data, size);
      return executorch::runtime::Error::AccessFailed;
    }
    return executorch::runtime::FreeableBuffer(data, size,
                                               [](void*, void* bytes, size_t n) { release_large(bytes, n); });
  }

  executorch::runtime::Error load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                       void* buffer) const override {
    (void)segment_info;
    if (!in_file(offset, size) || (buffer == nullptr && size > 0)) return executorch::runtime::Error::InvalidArgument;
    return read_logged(offset, size, buffer) ? executorch::runtime::Error::Ok
                                             : executorch::runtime::Error::AccessFailed;
  }

  executorch::runtime::Result<size_t> size() const override { return size_; }

 private:
  /// Whether [offset, offset + size) lies within the file (logged when not).
  bool in_file(size_t offset, size_t size) const {
    if (offset <= size_ && size <= size_ - offset) return true;
    ET_LOG(Error, "the program asks for %zu bytes at offset %zu of a file of %zu", size, offset, size_);
    return false;
  }

  /// files.h's read_at into `out`, logged when it fails (an error, or the file ended early).
  bool read_logged(size_t offset, size_t size, void* out) const {
    if (read_at(fd_, static_cast<uint8_t*>(out), size, offset)) return true;
    ET_LOG(Error, "cannot read %zu bytes of the program at offset %zu", size, offset);
    return false;
  }

  int fd_;
  size_t size_;
};

}  // namespace etsb_runner
