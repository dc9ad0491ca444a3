// ExecuTorch's platform layer (PAL) for etsb binaries on bare-metal Arm
// under semihosting, over the weak fallbacks of ExecuTorch's
// runtime/platform/default/minimal.cpp: log lines go to the host's stderr,
// abort ends the run with status 134 (abort() too), time comes from the
// host's clock.
// (ExecuTorch's posix.cpp compiles with newlib, but prints its log prefix
// with %zu, which Debian's newlib does not format.)

#include <executorch/runtime/platform/platform.h>

#include <unistd.h>

#include <cstddef>


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

// Written with write(2), a line at a time: neither printf (whose formatting
// code, several KB of newlib's, nothing else on a board needs) nor stdio's
// FILE machinery (the deploy runner writes its output the same way).
void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level, const char* filename, const char*,
                             size_t line, const char* message, size_t length) {
  char text[256];
  size_t used = 0;
  auto put = [&](char c) {
    if (used == sizeof(text)) {
      (void)write(2, text, used);
      used = 0;
    }
    text[used++] = c;
  };
  auto put_text = [&](const char* s) {
    while (s != nullptr && *s != '\0') put(*s++);
  };
  put(static_cast<char>(level));
  put_text(" executorch:");
  put_text(filename);
  put(':');
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + line % 10);
    line /= 10;
  } while (line > 0);
  while (count > 0) put(digits[--count]);
  put_text("] ");
  for (size_t i = 0; i < length && message[i] != '\0'; ++i) put(message[i]);
  put('\n');
  (void)write(2, text, used);
}

// Ends the run at once: what a program left in stdio's buffers is not written
// (the deploy runner's output is not there; flushing would link stdio into
// every binary).
void et_pal_abort(void) {
  _exit(kAbortStatus);
  __builtin_unreachable();
}

// abort() (the runtime's and the runner's) ends the run as et_pal_abort does,
// over newlib's, which raises SIGABRT through a signal table and handlers a
// board has no use for.
extern "C" void abort(void) {
  et_pal_abort();
}

// QEMU models no cycle counter: the host's clock, in centiseconds.
et_timestamp_t et_pal_current_ticks(void) {
  return static_cast<et_timestamp_t>(semihost(kSysClock));
}

et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return {10000000, 1};
}
