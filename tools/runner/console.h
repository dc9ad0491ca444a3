// The deploy runner's standard output and error, written with write(2)
// through a small static buffer each, not the C library's stdio: on a board,
// stdio's FILE machinery (its buffers taken from the heap, its locking and
// flushing at exit) costs about 3 KB of flash that printing a few lines does
// not need. Standard output is flushed when its buffer fills and by
// `flush_output()` before the runner returns; standard error at each line's end.
#ifndef ETSB_RUNNER_CONSOLE_H_
#define ETSB_RUNNER_CONSOLE_H_

#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace etsb_console {

enum Stream { kOut = 1, kErr = 2 };  // their file descriptors

struct Buffer {
  char bytes[256];
  size_t used;
  bool failed;  // a write failed: what follows is dropped, and flush_output() says so
};

inline Buffer& buffer_of(Stream stream) {
  static Buffer out, err;
  return stream == kOut ? out : err;
}

// Writes the stream's buffered bytes; false if they could not all be written.
inline bool drain(Stream stream) {
  Buffer& buffer = buffer_of(stream);
  size_t done = 0;
  while (done < buffer.used && !buffer.failed) {
    ssize_t wrote = ::write(stream, buffer.bytes + done, buffer.used - done);
    if (wrote > 0) {
      done += static_cast<size_t>(wrote);
    } else if (wrote < 0 && errno == EINTR) {
      continue;
    } else {
      buffer.failed = true;
    }
  }
  buffer.used = 0;
  return !buffer.failed;
}

inline void say_char(Stream stream, char c) {
  Buffer& buffer = buffer_of(stream);
  if (buffer.used == sizeof(buffer.bytes)) drain(stream);
  buffer.bytes[buffer.used++] = c;
  if (c == '\n' && stream == kErr) drain(stream);
}

inline void say(Stream stream, const char* text) {
  while (*text != '\0') say_char(stream, *text++);
}

// Writes `value` in decimal.
inline void say_number(Stream stream, unsigned long long value) {
  char digits[24];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (n > 0) say_char(stream, digits[--n]);
}

// Writes what standard output holds; false if any of its output was lost.
inline bool flush_output() { return drain(kOut); }

}  // namespace etsb_console

#endif  // ETSB_RUNNER_CONSOLE_H_
