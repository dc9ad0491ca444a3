// The runner's large memory (tools/runner/huge_pages.h) and its program
// loader (tools/runner/program_loader.h), checked from C++: a buffer of 2 MB
// or more is a zeroed mapping advised for huge pages (its VmFlags in
// /proc/self/smaps carry "hg" whatever the system's THP mode), a smaller one
// zeroed memory of the heap; the loader reads a file's ranges exactly and
// refuses ranges past its end, a file shorter than it was said to be, and a
// null destination. Prints "N checks, M failed" (tests/test_runner_memory.py).
#include <fcntl.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include <executorch/runtime/platform/runtime.h>

#include "tools/runner/huge_pages.h"
#include "tools/runner/program_loader.h"

namespace {

int checks = 0, failed = 0;

void check(bool ok, const char* what) {
  ++checks;
  if (!ok) ++failed, std::printf("FAILED %s\n", what);
}

/// The VmFlags of the mapping of /proc/self/smaps that holds `address`.
std::string vm_flags(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (smaps == nullptr) return "";
  char line[512];
  bool inside = false;
  std::string flags;
  while (std::fgets(line, sizeof line, smaps) != nullptr) {
    uintptr_t lo = 0, hi = 0;
    if (std::sscanf(line, "%" SCNxPTR "-%" SCNxPTR " ", &lo, &hi) == 2) {  // a mapping's first line: its range
      inside = lo <= at && at < hi;
    } else if (inside && std::strncmp(line, "VmFlags:", 8) == 0) {
      flags = line + 8;
      break;
    }
  }
  std::fclose(smaps);
  return flags;
}

bool all_zero(const unsigned char* data, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (data[i] != 0) return false;
  }
  return true;
}

void check_buffers() {
  constexpr size_t kLarge = 8u << 20, kSmall = 4096;
  {
    etsb_runner::LargeBuffer large(kLarge);
    check(large.data() != nullptr && all_zero(large.data(), kLarge), "a large buffer is zeroed");
    std::memset(large.data(), 0x5a, kLarge);  // every page writable
    check(vm_flags(large.data()).find(" hg") != std::string::npos, "a large buffer is advised for huge pages");
    etsb_runner::LargeBuffer moved(std::move(large));
    check(large.data() == nullptr && moved.data() != nullptr && moved.data()[kLarge - 1] == 0x5a,
          "a moved buffer keeps its memory");
  }
  etsb_runner::LargeBuffer small(kSmall);
  check(small.data() != nullptr && all_zero(small.data(), kSmall), "a small buffer is zeroed");
  check(vm_flags(small.data()).find(" hg") == std::string::npos, "a small buffer is not advised for huge pages");
  etsb_runner::LargeBuffer empty(0);
  check(empty.data() != nullptr, "an empty buffer is still memory");
}

void check_loader(const char* path) {
  using executorch::runtime::DataLoader;
  using executorch::runtime::Error;
  const DataLoader::SegmentInfo info(DataLoader::SegmentInfo::Type::Constant);
  constexpr size_t kBytes = (3u << 20) + 123;  // a large segment and a small one
  std::string bytes(kBytes, '\0');
  for (size_t i = 0; i < kBytes; ++i) bytes[i] = static_cast<char>(i * 131 + 7);
  FILE* file = std::fopen(path, "wb");
  check(file != nullptr && std::fwrite(bytes.data(), 1, kBytes, file) == kBytes && std::fclose(file) == 0,
        "the test file is written");
  const int fd = ::open(path, O_RDONLY);
  etsb_runner::ProgramLoader loader(fd, kBytes);
  check(loader.size().ok() && loader.size().get() == kBytes, "size() is the file's");
  auto whole = loader.load(0, kBytes, info);
  check(whole.ok() && whole->size() == kBytes && std::memcmp(whole->data(), bytes.data(), kBytes) == 0,
        "a whole file of 3 MB is read exactly");
  check(whole.ok() && vm_flags(whole->data()).find(" hg") != std::string::npos,
        "a large segment is advised for huge pages");
  auto piece = loader.load(1000, 77, info);
  check(piece.ok() && piece->size() == 77 && std::memcmp(piece->data(), bytes.data() + 1000, 77) == 0,
        "a range is read exactly");
  auto none = loader.load(kBytes, 0, info);
  check(none.ok() && none->size() == 0, "an empty range at the end is empty");
  check(loader.load(kBytes - 10, 11, info).error() == Error::InvalidArgument, "a range past the end is refused");
  check(loader.load(SIZE_MAX - 5, 10, info).error() == Error::InvalidArgument, "an overflowing range is refused");
  char into[50];
  check(loader.load_into(2000, sizeof into, info, into) == Error::Ok &&
            std::memcmp(into, bytes.data() + 2000, sizeof into) == 0,
        "load_into reads a range exactly");
  check(loader.load_into(0, 10, info, nullptr) == Error::InvalidArgument, "load_into refuses a null buffer");
  etsb_runner::ProgramLoader longer(fd, kBytes + 100);  // a file shorter than it was said to be
  check(longer.load(kBytes - 50, 100, info).error() == Error::AccessFailed, "a read past the file's end fails");
  ::close(fd);
  etsb_runner::ProgramLoader closed(fd, kBytes);
  check(closed.load(0, 10, info).error() == Error::AccessFailed, "a read error fails");
}

}  // namespace

int main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  if (argc != 2) return std::fprintf(stderr, "usage: %s SCRATCH_FILE\n", argv[0]), 2;
  check_buffers();
  check_loader(argv[1]);
  std::printf("%d checks, %d failed\n", checks, failed);
  return failed == 0 ? 0 : 1;
}
