// operator delete for binaries that never allocate with operator new: weak,
// and doing nothing. A class with a virtual destructor (ExecuTorch's data
// loaders, memory allocators) carries a deleting destructor that calls
// operator delete, linked whether or not an object of it is ever on the heap;
// the toolchain's delete brings free, and free the C library's whole
// allocator (about 450 bytes of flash). Without operator new nothing was
// allocated by it, so there is nothing to free. A binary that allocates links
// new.cpp (operator new, in an archive of its own), whose strong operator
// delete frees and takes the place of these.

#include <cstddef>
#include <new>

__attribute__((weak)) void operator delete(void*) noexcept {}
__attribute__((weak)) void operator delete[](void*) noexcept {}
__attribute__((weak)) void operator delete(void*, std::size_t) noexcept {}
__attribute__((weak)) void operator delete[](void*, std::size_t) noexcept {}
__attribute__((weak)) void operator delete(void*, std::align_val_t) noexcept {}
__attribute__((weak)) void operator delete[](void*, std::align_val_t) noexcept {}
__attribute__((weak)) void operator delete(void*, std::size_t, std::align_val_t) noexcept {}
__attribute__((weak)) void operator delete[](void*, std::size_t, std::align_val_t) noexcept {}
__attribute__((weak)) void operator delete(void*, const std::nothrow_t&) noexcept {}
__attribute__((weak)) void operator delete[](void*, const std::nothrow_t&) noexcept {}
__attribute__((weak)) void operator delete(void*, std::align_val_t, const std::nothrow_t&) noexcept {}
__attribute__((weak)) void operator delete[](void*, std::align_val_t, const std::nothrow_t&) noexcept {}
