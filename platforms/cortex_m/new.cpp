// operator new on every board of platforms/cortex_m: the C library's heap
// (syscalls.cpp's _sbrk, up to the stack's reserve), and running out of it
// said, never an abort with no word. The toolchain's libstdc++ reports a
// failed allocation by throwing std::bad_alloc, which these binaries (built
// without exceptions) cannot catch: its forms that must return null on
// failure (ExecuTorch's file data loader asks for the program's bytes with
// `new (std::nothrow)`) ended the run with status 134 and no message instead.
// In an archive of its own, linked only into binaries that allocate.

#include <malloc.h>
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace {

constexpr int kOutOfMemoryStatus = 134;  // what a shell reports for SIGABRT, as a fault

void* allocate(std::size_t size, std::size_t alignment) {
  if (size == 0) size = 1;
  return alignment > alignof(std::max_align_t) ? memalign(alignment, size) : std::malloc(size);
}

// The forms that may not return null: out of memory ends the run, saying so.
void* allocate_or_end(std::size_t size, std::size_t alignment) {
  void* memory = allocate(size, alignment);
  if (memory == nullptr) {
    // The board's system calls (syscalls.cpp): the console and the run's end, without stdio.
    static const char kMessage[] = "etsb: out of memory: the heap (SRAM between the program's data and the "
                                   "stack's reserve) cannot hold an allocation, run ended\n";
    (void)write(2, kMessage, sizeof(kMessage) - 1);
    _exit(kOutOfMemoryStatus);
  }
  return memory;
}

}  // namespace

void* operator new(std::size_t size) {
  return allocate_or_end(size, alignof(std::max_align_t));
}

void* operator new[](std::size_t size) {
  return allocate_or_end(size, alignof(std::max_align_t));
}

void* operator new(std::size_t size, std::align_val_t alignment) {
  return allocate_or_end(size, static_cast<std::size_t>(alignment));
}

void* operator new[](std::size_t size, std::align_val_t alignment) {
  return allocate_or_end(size, static_cast<std::size_t>(alignment));
}

void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, alignof(std::max_align_t));
}

void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return allocate(size, alignof(std::max_align_t));
}

void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}

void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return allocate(size, static_cast<std::size_t>(alignment));
}

// Every form of operator delete, freeing: in place of delete.cpp's weak ones,
// which free nothing (a binary without operator new has nothing to free).
void operator delete(void* memory) noexcept {
  std::free(memory);
}

void operator delete[](void* memory) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::size_t) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, std::size_t) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::align_val_t) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, std::align_val_t) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::size_t, std::align_val_t) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, std::size_t, std::align_val_t) noexcept {
  std::free(memory);
}

void operator delete(void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, const std::nothrow_t&) noexcept {
  std::free(memory);
}

void operator delete(void* memory, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(memory);
}

void operator delete[](void* memory, std::align_val_t, const std::nothrow_t&) noexcept {
  std::free(memory);
}
