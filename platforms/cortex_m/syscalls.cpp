// newlib's system calls for the boards of platforms/cortex_m, over Arm
// semihosting: files, stdin, stdout and stderr are the host's (QEMU's
// `-semihosting-config enable=on`), exit ends QEMU with the status, and the
// heap grows from the end of .bss towards the stack. In place of newlib's
// librdimon, whose one object brings every call (rename, system, times...)
// into each binary: only those a program calls are linked here (the rest are
// libnosys's stubs, which fail with ENOSYS).

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#undef errno
extern "C" int errno;

namespace {

// Semihosting operations (Arm's "Semihosting for AArch32 and AArch64").
constexpr int kSysOpen = 0x01;
constexpr int kSysClose = 0x02;
constexpr int kSysWrite = 0x05;
constexpr int kSysRead = 0x06;
constexpr int kSysIsTty = 0x09;
constexpr int kSysSeek = 0x0A;
constexpr int kSysFileLength = 0x0C;
constexpr int kSysExitExtended = 0x20;
constexpr uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit

// SYS_OPEN's modes, as fopen's: "r", "w", "a" (+1: binary, +2: update).
constexpr int kModeRead = 0;
constexpr int kModeWrite = 4;
constexpr int kModeAppend = 8;
constexpr int kModeBinary = 1;
constexpr int kModeUpdate = 2;

int semihost(int operation, const void* argument) {
  register int r0 __asm("r0") = operation;
  register const void* r1 __asm("r1") = argument;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

// The open files: each descriptor's host handle and position (SYS_SEEK takes
// absolute positions only). 0, 1 and 2 are the host's console (":tt").
constexpr int kMaxFiles = 16;
struct File {
  int handle;
  long position;
  bool open;
};
File files[kMaxFiles];

int fail(int error) {
  errno = error;
  return -1;
}

File* file_of(int fd) {
  return fd >= 0 && fd < kMaxFiles && files[fd].open ? &files[fd] : nullptr;
}

int open_on_host(const char* path, int mode) {
  const struct {
    const char* path;
    int mode;
    int length;
  } block = {path, mode, static_cast<int>(std::strlen(path))};
  return semihost(kSysOpen, &block);
}

}  // namespace

extern "C" {

// startup.cpp calls this before the C library's first use: the console as
// descriptors 0, 1 and 2.
void etsb_open_console(void) {
  const int modes[3] = {kModeRead, kModeWrite, kModeAppend};
  for (int fd = 0; fd < 3; ++fd) {
    files[fd] = {open_on_host(":tt", modes[fd]), 0, true};
  }
}

int _open(const char* path, int flags, ...) {
  int fd = 3;
  while (fd < kMaxFiles && files[fd].open) {
    ++fd;
  }
  if (fd == kMaxFiles) {
    return fail(EMFILE);
  }
  int mode = kModeRead;
  if (flags & O_APPEND) {
    mode = kModeAppend;
  } else if ((flags & O_TRUNC) || (flags & O_ACCMODE) == O_WRONLY) {
    mode = kModeWrite;
  }
  if ((flags & O_ACCMODE) == O_RDWR) {
    mode += kModeUpdate;
  }
  const int handle = open_on_host(path, mode + kModeBinary);
  if (handle < 0) {
    return fail(ENOENT);
  }
  files[fd] = {handle, 0, true};
  return fd;
}

int _close(int fd) {
  File* file = file_of(fd);
  if (file == nullptr) {
    return fail(EBADF);
  }
  file->open = false;
  return fd < 3 || semihost(kSysClose, &file->handle) == 0 ? 0 : fail(EIO);
}

// SYS_READ and SYS_WRITE answer with the bytes they did not transfer.
int _read(int fd, char* buffer, int length) {
  File* file = file_of(fd);
  if (file == nullptr) {
    return fail(EBADF);
  }
  const struct {
    int handle;
    char* buffer;
    int length;
  } block = {file->handle, buffer, length};
  const int left = semihost(kSysRead, &block);
  if (left < 0 || left > length) {
    return fail(EIO);
  }
  file->position += length - left;
  return length - left;
}

int _write(int fd, const char* buffer, int length) {
  File* file = file_of(fd);
  if (file == nullptr) {
    return fail(EBADF);
  }
  const struct {
    int handle;
    const char* buffer;
    int length;
  } block = {file->handle, buffer, length};
  const int left = semihost(kSysWrite, &block);
  if (left < 0 || left > length) {
    return fail(EIO);
  }
  file->position += length - left;
  return length - left;
}

int _lseek(int fd, int offset, int whence) {
  File* file = file_of(fd);
  if (file == nullptr) {
    return fail(EBADF);
  }
  long target = offset;
  if (whence == SEEK_CUR) {
    target += file->position;
  } else if (whence == SEEK_END) {
    const long length = semihost(kSysFileLength, &file->handle);
    if (length < 0) {
      return fail(EIO);
    }
    target += length;
  } else if (whence != SEEK_SET) {
    return fail(EINVAL);
  }
  if (target < 0) {
    return fail(EINVAL);
  }
  const struct {
    int handle;
    long position;
  } block = {file->handle, target};
  if (semihost(kSysSeek, &block) != 0) {
    return fail(EIO);
  }
  file->position = target;
  return static_cast<int>(target);
}

int _isatty(int fd) {
  File* file = file_of(fd);
  if (file == nullptr) {
    fail(EBADF);
    return 0;
  }
  return semihost(kSysIsTty, &file->handle) == 1 ? 1 : 0;
}

// A terminal is a character device (newlib then buffers it by line); a file
// is regular, with its length.
int _fstat(int fd, struct stat* status) {
  File* file = file_of(fd);
  if (file == nullptr) {
    return fail(EBADF);
  }
  std::memset(status, 0, sizeof(*status));
  if (_isatty(fd)) {
    status->st_mode = S_IFCHR;
    return 0;
  }
  const long length = semihost(kSysFileLength, &file->handle);
  if (length < 0) {
    return fail(EIO);
  }
  status->st_mode = S_IFREG;
  status->st_size = length;
  status->st_blksize = 1024;
  return 0;
}

// The heap: from the end of .bss (the linker script's `end`) up to the
// stack's reserve (its `__StackLimit`), which it never enters: running out
// is ENOMEM, which malloc returns as a null pointer.
void* _sbrk(ptrdiff_t increment) {
  extern char end, __StackLimit;
  static char* top = &end;
  if (increment > &__StackLimit - top) {
    errno = ENOMEM;
    return reinterpret_cast<void*>(-1);
  }
  char* previous = top;
  top += increment;
  return previous;
}

[[noreturn]] void _exit(int status) {
  const uint32_t block[2] = {kApplicationExit, static_cast<uint32_t>(status)};
  semihost(kSysExitExtended, block);
  for (;;) {
  }
}

int _kill(int, int) {
  return fail(EINVAL);
}

int _getpid(void) {
  return 1;
}

}  // extern "C"
