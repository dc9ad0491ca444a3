// platforms/cortex_m/format.cpp's snprintf held to glibc's: each case is
// formatted by both into buffers of several sizes (none, 1 byte, a few, room
// to spare), and the return values, the bytes written and the bytes past the
// buffer (which neither may touch) must be the same. Compiled on the host with
// format.cpp's functions renamed etsb_snprintf and etsb_vsnprintf; prints each
// difference and exits 1 if there is any. With -DETSB_FORMAT_EXPECTED_ONLY
// (format.cpp compiled with ExecuTorch's log off: floats print their own
// text), only the cases whose text is given are checked; with
// -DETSB_FORMAT_SINGLE (format.cpp compiled as for a single-precision FPU),
// the floats are checked against texts given here.

#include <cfloat>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

extern "C" int etsb_snprintf(char* buffer, size_t size, const char* format, ...);
extern "C" int etsb_vsnprintf(char* buffer, size_t size, const char* format, va_list arguments);

namespace {

int failures = 0;
int checked = 0;
constexpr size_t kSizes[] = {0, 1, 2, 5, 17, 400};
constexpr size_t kGuard = 8;

std::string shown(const char* bytes, size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 32 && c < 127) {
      text += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      text += hex;
    }
  }
  return text;
}

// `format` with `args` into a buffer of `size` (null when 0) by ours, into a
// copy guarded past its end: the return value and the buffer with its guard.
template <typename Format, typename... Args>
int run(Format format_with, size_t size, char* out, const char* format, Args... args) {
  std::memset(out, 0x5a, sizeof(char) * (400 + kGuard));
  return format_with(size == 0 ? nullptr : out, size, format, args...);
}

template <typename... Args>
void compare(int line, const char* format, Args... args) {
  for (size_t size : kSizes) {
    char ours[400 + kGuard];
    char theirs[400 + kGuard];
    const int ours_length = run(etsb_snprintf, size, ours, format, args...);
    const int theirs_length = run(std::snprintf, size, theirs, format, args...);
    ++checked;
    if (ours_length != theirs_length || std::memcmp(ours, theirs, size + kGuard) != 0) {
      ++failures;
      std::printf("line %d: \"%s\" into %zu bytes: etsb %d \"%s\", glibc %d \"%s\"\n", line, format, size,
                  ours_length, shown(ours, size + kGuard).c_str(), theirs_length,
                  shown(theirs, size + kGuard).c_str());
    }
  }
}

// Ours against a text given here (where glibc's differs by design, or is not the reference).
template <typename... Args>
void expect(int line, const char* expected, const char* format, Args... args) {
  const size_t length = std::strlen(expected);
  for (size_t size : kSizes) {
    char ours[400 + kGuard];
    const int ours_length = run(etsb_snprintf, size, ours, format, args...);
    char wanted[400 + kGuard];
    std::memset(wanted, 0x5a, sizeof(wanted));
    if (size != 0) {
      const size_t kept = length < size - 1 ? length : size - 1;
      std::memcpy(wanted, expected, kept);
      wanted[kept] = '\0';
    }
    ++checked;
    if (ours_length != static_cast<int>(length) || std::memcmp(ours, wanted, size + kGuard) != 0) {
      ++failures;
      std::printf("line %d: \"%s\" into %zu bytes: etsb %d \"%s\", expected %zu \"%s\"\n", line, format, size,
                  ours_length, shown(ours, size + kGuard).c_str(), length, expected);
    }
  }
}

// vsnprintf through a caller's va_list, which it must leave usable (the caller's to end).
int through_va_list(char* buffer, size_t size, const char* format, ...) {
  va_list arguments;
  va_start(arguments, format);
  const int length = etsb_vsnprintf(buffer, size, format, arguments);
  va_end(arguments);
  return length;
}

}  // namespace

#ifdef ETSB_FORMAT_EXPECTED_ONLY
#define COMPARE(...) (void)0
#else
#define COMPARE(...) compare(__LINE__, __VA_ARGS__)
#endif
#define EXPECT(...) expect(__LINE__, __VA_ARGS__)

int main() {
  // What ExecuTorch's runtime formats on a board: operator names, tags, shapes, its log's sizes.
  COMPARE("%s%s%s", "aten::addmm", ".", "out");
  COMPARE("%s%s%s", "aten::relu", "", "");
  COMPARE("%s", "Tensor");
  COMPARE("%d", 4);
  COMPARE("%" PRIu32 ", ", static_cast<uint32_t>(4096));
  COMPARE("Operator name %s%s%s with length %d truncated to %zu due to internal buffer limit.", "aten::x", ".",
          "out", 300, static_cast<size_t>(256));
  COMPARE("%s:%zu] %s", "method.cpp", static_cast<size_t>(42), "Missing operator");
  COMPARE("Expected %" PRId64 " but got %" PRId64, static_cast<int64_t>(INT64_MIN), static_cast<int64_t>(7));
  // Integers: every length modifier at its limits, cut to its width.
  COMPARE("%d %d %i", INT_MIN, INT_MAX, -1);
  COMPARE("%u %u", 0u, UINT_MAX);
  COMPARE("%ld %lu", LONG_MIN, ULONG_MAX);
  COMPARE("%lld %llu %lli", LLONG_MIN, ULLONG_MAX, -5LL);
  COMPARE("%hhd %hhu %hd %hu", 300, -1, 70000, -1);
  COMPARE("%zu %zd %zx", SIZE_MAX, static_cast<ptrdiff_t>(-3), static_cast<size_t>(0xabc));
  COMPARE("%jd %ju %td", INTMAX_MIN, UINTMAX_MAX, static_cast<ptrdiff_t>(-12));
  COMPARE("%x %X %#x %#X %#x", 0xdeadbeefu, 0xdeadbeefu, 255u, 255u, 0u);
  COMPARE("%o %#o %#o %#.3o", 8u, 8u, 0u, 8u);
  COMPARE("%llx %#llo", 0x0123456789abcdefULL, ULLONG_MAX);
  // Flags, width and precision.
  COMPARE("[%5d] [%-5d] [%05d] [%+d] [% d] [%+ d] [%-05d]", 42, 42, -42, 42, 42, 42, 42);
  COMPARE("[%.3d] [%.0d] [%5.0d] [%#.0o] [%08.3d] [%-8.3x]", 7, 0, 0, 0u, -7, 10u);
  COMPARE("[%*d] [%-*d] [%*d] [%.*d] [%.*d]", 8, 42, 8, 42, -6, 42, 3, 5, -1, 5);
  COMPARE("[%s] [%.3s] [%10s] [%-10s] [%.0s] [%*.*s]", "hello", "hello", "hi", "hi", "gone", 6, 2, "abc");
  COMPARE("[%c] [%5c] [%-3c] [%%] [%5%]", 'x', 'y', 'z');
  COMPARE("[%p]", reinterpret_cast<void*>(0x1234));
  COMPARE("%s", "a long text: 0123456789012345678901234567890123456789012345678901234567890123456789"
                "0123456789012345678901234567890123456789012345678901234567890123456789");
  COMPARE("");
  COMPARE("no conversion at all, and %% alone");
  // %n: the length so far, through a pointer of the modifier's width.
  {
    int ours_n = -1, theirs_n = -1;
    signed char ours_hh = -1, theirs_hh = -1;
    char buffer[64];
    etsb_snprintf(buffer, sizeof(buffer), "abc%n%s%hhn", &ours_n, "de", &ours_hh);
    std::snprintf(buffer, sizeof(buffer), "abc%n%s%hhn", &theirs_n, "de", &theirs_hh);
    ++checked;
    if (ours_n != theirs_n || ours_hh != theirs_hh) {
      ++failures;
      std::printf("%%n: etsb %d %d, glibc %d %d\n", ours_n, ours_hh, theirs_n, theirs_hh);
    }
  }
  // An unknown conversion prints its text; the arguments after it stay in step.
  EXPECT("[%y] 7", "[%y] %d", 7);
  EXPECT("50%", "50%");
  // Through a caller's va_list.
  {
    char buffer[8];
    const int length = through_va_list(buffer, sizeof(buffer), "%s-%d", "operator", 12);
    ++checked;
    if (length != 11 || std::strcmp(buffer, "operato") != 0) {
      ++failures;
      std::printf("vsnprintf: %d \"%s\", expected 11 \"operato\"\n", length, buffer);
    }
  }
#ifdef ETSB_FORMAT_EXPECTED_ONLY
  // ExecuTorch's log compiled out: a float conversion prints its own text, its argument consumed.
  EXPECT("p = %f, then 3", "p = %f, then %d", 0.25, 3);
  EXPECT("[%-8.3e] [%G] x", "[%-8.3e] [%G] %c", 1.5, 2.5, 'x');
#elif defined(ETSB_FORMAT_SINGLE)
  // A single-precision FPU's floats (format.cpp compiled with __ARM_FP=4, as for the Cortex-M4 and M33):
  // 7 significant digits, a double beyond float's range inf or 0.
  EXPECT("0.500000 -1.25 3.14159 1e-05 1.23457e+08 6.666667e-01", "%f %g %g %g %g %e", 0.5, -1.25, 3.14159265, 1e-5,
         123456789.0, 2.0 / 3);
  EXPECT("123456800.000000 inf -inf 0 nan", "%f %g %f %g %f", 123456789.0, 1e300, -1e300, 1e-300, NAN);
  EXPECT("[   -1.5] [2.50e+00  ]", "[%7.1f] [%-10.2e]", -1.5, 2.5);
#else
  // Floats, where glibc's correctly rounded digits are within ours (no value halfway between two).
  COMPARE("%f %f %f %f", 0.0, 0.5, -1.25, 3.14159265358979);
  COMPARE("%.2f %.0f %.1f %.3f %.10f", 3.14159, 2.7, 0.06, 1234.5678, 0.1);
  COMPARE("%f %.2f %.0f", 1e15, 0.004, 0.7);
  COMPARE("%e %E %.2e %.0e %e", 12345.678, 0.000123, -9.999, 7.7, 0.0);
  COMPARE("%e %e %e", 1e-300, 1e300, 5e-324);
  COMPARE("%g %g %g %g %g %g", 0.0, 100000.0, 1000000.0, 0.0001, 0.00001, 123456789.0);
  COMPARE("%G %g %.3g %.10g %#g %#.3g", 1e20, -2.5e-7, 3.14159, 0.1, 1.0, 2.0);
  COMPARE("[%10.3f] [%-10.1e] [%+g] [% f] [%010.2f] [%-+8.1f]", -1.5, 2.3125, 3.0, 4.0, -5.25, 6.0);
  COMPARE("%f %F %e %g %f", INFINITY, INFINITY, -INFINITY, NAN, -0.0);
  COMPARE("[%5f] [%-6F] [%06f]", NAN, -INFINITY, INFINITY);
  COMPARE("%Lf %Lg", 2.5L, 0.125L);
  COMPARE("%.3f then %d then %s", 0.1875, 42, "text");
  COMPARE("%f %.0f", 1e20, 1e22);
  COMPARE("%.20f", 0.5);
  // Beyond the FPU's digits the digits are 0 (15 significant with a double-precision FPU).
  EXPECT("0.12345678901234500000", "%.20f", 0.123456789012345);
  // %a as %e (not glibc's hexadecimal).
  EXPECT("1.500000e+00 1.5E+00", "%a %.1A", 1.5, 1.5);
  // Halfway values round up (glibc rounds the exact binary value to even).
  EXPECT("3 0.1", "%.0f %.1f", 2.5, 0.125);
#endif
  std::printf("%d cases checked, %d differ\n", checked, failures);
  return failures == 0 ? 0 : 1;
}
