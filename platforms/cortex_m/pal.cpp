// ExecuTorch's platform layer (PAL) for etsb binaries on bare-metal Arm
// under semihosting, over the weak fallbacks of ExecuTorch's
// runtime/platform/default/minimal.cpp: log lines go to the host's stderr,
// abort ends the run with status 134, time comes from the host's clock.
// (ExecuTorch's posix.cpp compiles with newlib, but prints its log prefix
// with %zu, which Debian's newlib does not format.)

#include <executorch/runtime/platform/platform.h>

#include <cstdio>

extern "C" void _exit(int status);

namespace {

constexpr int kSysClock = 0x10;  // semihosting: centiseconds since the run began
constexpr int kAbortStatus = 134;

int semihost(int operation) {
  register int r0 __asm("r0") = operation;
  register int r1 __asm("r1") = 0;
  __asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level, const char* filename, const char*,
                             size_t line, const char* message, size_t length) {
  std::fprintf(stderr, "%c executorch:%s:%lu] %.*s\n", static_cast<char>(level), filename,
               static_cast<unsigned long>(line), static_cast<int>(length), message);
}

void et_pal_abort(void) {
  std::fflush(stdout);
  _exit(kAbortStatus);
  __builtin_unreachable();
}

// QEMU models no cycle counter: the host's clock, in centiseconds.
et_timestamp_t et_pal_current_ticks(void) {
  return static_cast<et_timestamp_t>(semihost(kSysClock));
}

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return {10000000, 1};
}
