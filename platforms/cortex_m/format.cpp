// snprintf and vsnprintf for the boards, in place of newlib-nano's. The
// runtime formats each operator's name with snprintf ("%s%s%s", as a method
// loads) and, where its log is on, each log line with vsnprintf; newlib's
// brings its printf core, its string-stream writer and realloc (2,560 bytes of
// flash on the Cortex-M55). This one writes into the caller's buffer, never
// past `size` bytes (NUL-terminated when `size` > 0), and returns the length
// the whole text has: C99's contract, by which the runtime detects truncation.
//
// Supported as C99 says: the flags - 0 + space #, a width and a precision
// (digits or *), the length modifiers hh h l ll j z t (L, q), the conversions
// d i u o x X c s p n % (%zu too, which Debian's newlib-nano does not
// format). An unknown conversion prints its own text ("%y"), as glibc does.
// Floats (e E f F g G; a A as e E) where ExecuTorch's log is on, whose
// kernels' messages print them: scaled by tens in the FPU's widest type and
// rounded (halfway up) to 15 significant digits with a double-precision FPU;
// on the Cortex-M4 and M33, whose FPU is single-precision, a double converted
// to float and 7 digits, the last within one or two (beyond float's range it
// prints inf or 0). With the log compiled out (the size
// configuration) nothing of ExecuTorch's formats a float, and a float
// conversion prints its own text, its argument consumed (newlib-nano, without
// _printf_float, prints nothing): about 1 KB of flash less.
//
// Linked whole with the board's start-up (platforms/cortex_m/BUILD), so that
// a reference to snprintf is resolved here before the C library is searched.
// No <cstdio>: tests/test_board_format.py compiles this file on the host with
// the two functions renamed, and holds it to glibc's text.

#include <cstdarg>
#include <cstddef>
#include <cstdint>

#if !defined(ET_LOG_ENABLED) || ET_LOG_ENABLED
#define ETSB_FORMAT_FLOATS 1
#else
#define ETSB_FORMAT_FLOATS 0
#endif

namespace {

enum Flag : unsigned { kLeft = 1, kZero = 2, kPlus = 4, kSpace = 8, kAlternate = 16, kUpper = 32 };

/// The text being formatted: bytes past the buffer's room are counted, not written.
struct Sink {
  char* buffer;
  size_t room;    // bytes that may be written, the terminating NUL excluded
  size_t length;  // the text's length so far, written or not

  void put(char c) {
    if (length < room) buffer[length] = c;
    ++length;
  }
  void repeat(char c, long count) {
    for (; count > 0; --count) put(c);
  }
};

/// One conversion's flags, width and precision (-1: none given).
struct Spec {
  unsigned flags;
  int width;
  int precision;
};

/// A field: spaces up to the width (right-justified), `prefix`, `zeros` zeros
/// (and up to the width when `zero_pads` and the 0 flag), then `length` bytes
/// that `body` puts, then spaces up to the width (left-justified).
template <typename Body>
void field(Sink& out, const Spec& spec, const char* prefix, long zeros, long length, bool zero_pads,
           const Body& body) {
  long prefix_length = 0;
  while (prefix[prefix_length] != '\0') ++prefix_length;
  long pad = spec.width - prefix_length - zeros - length;
  if (zero_pads && (spec.flags & (kZero | kLeft)) == kZero && pad > 0) {
    zeros += pad;
    pad = 0;
  }
  if (!(spec.flags & kLeft)) out.repeat(' ', pad);
  for (const char* p = prefix; *p != '\0'; ++p) out.put(*p);
  out.repeat('0', zeros);
  body();
  if (spec.flags & kLeft) out.repeat(' ', pad);
}

/// `count` bytes from `text` as a field.
void plain(Sink& out, const Spec& spec, const char* prefix, long zeros, const char* text, long count,
           bool zero_pads) {
  field(out, spec, prefix, zeros, count, zero_pads, [&] {
    for (long i = 0; i < count; ++i) out.put(text[i]);
  });
}

/// The sign a signed conversion prints ("" for none).
const char* sign(unsigned flags, bool negative) {
  return negative ? "-" : (flags & kPlus) ? "+" : (flags & kSpace) ? " " : "";
}

/// A width or precision: digits, or * for the next argument.
int number(const char*& format, va_list& arguments) {
  if (*format == '*') {
    ++format;
    return va_arg(arguments, int);
  }
  int value = 0;
  for (; *format >= '0' && *format <= '9'; ++format) {
    if (value < 100000000) value = value * 10 + (*format - '0');  // a silly width stays bounded
  }
  return value;
}

/// An integer conversion of `value` (two's complement when `is_signed`) in
/// `base`; `pointer`: %p's 0x before any value.
__attribute__((noinline)) void integer(Sink& out, const Spec& spec, uint64_t value, bool is_signed, unsigned base,
                                       bool pointer) {
  const bool negative = is_signed && static_cast<int64_t>(value) < 0;
  const char* prefix = is_signed ? sign(spec.flags, negative) : "";
  if (negative) value = 0 - value;
  char digits[24];  // 2^64 in octal: 22 digits
  char* first = digits + sizeof(digits);
  for (uint64_t rest = value; rest != 0; rest /= base) {
    const unsigned digit = static_cast<unsigned>(rest % base);
    *--first = static_cast<char>(digit < 10 ? '0' + digit : (spec.flags & kUpper ? 'A' : 'a') + digit - 10);
  }
  const long count = digits + sizeof(digits) - first;
  long zeros = spec.precision < 0 ? (count == 0) : spec.precision - count;  // %.0d of 0: no digit
  if (base == 16 && value != 0 && (spec.flags & kAlternate || pointer)) prefix = spec.flags & kUpper ? "0X" : "0x";
  if (base == 8 && spec.flags & kAlternate && zeros <= 0) zeros = 1;  // octal's #: a leading 0
  plain(out, spec, prefix, zeros > 0 ? zeros : 0, first, count, spec.precision < 0);
}

#if ETSB_FORMAT_FLOATS
#if defined(__ARM_FP) && !(__ARM_FP & 8)
using Real = float;  // a single-precision FPU: no double arithmetic in software
using Scaled = uint32_t;
constexpr int kMaxDigits = 7;
#else
using Real = double;
using Scaled = uint64_t;
constexpr int kMaxDigits = 15;
#endif

/// A finite non-negative value's decimal digits, rounded: at most kMaxDigits
/// are the value's, later ones read as 0.
struct Decimal {
  char digits[kMaxDigits];
  int count = 0;     // digits held (0: the value rounded to 0)
  int exponent = 0;  // the power of ten of digits[0]

  char at(int index) const { return index >= 0 && index < count ? digits[index] : '0'; }
};

/// `mantissa` (in [1, 10), or 0) x 10^exponent rounded to `significant`
/// digits; for 0 or fewer, to one unit of the place after the last kept, or to 0.
Decimal round_to(Real mantissa, int exponent, int significant) {
  Decimal d;
  if (significant <= 0) {
    if (significant == 0 && mantissa >= 5) {
      d.digits[0] = '1';
      d.count = 1;
      d.exponent = exponent + 1;
    }
    return d;
  }
  const int kept = significant < kMaxDigits ? significant : kMaxDigits;
  Real scale = 1;
  Scaled limit = 1;
  for (int i = 1; i < kept; ++i) {
    scale *= 10;
    limit *= 10;
  }
  Scaled value = static_cast<Scaled>(mantissa * scale + Real(0.5));
  if (value >= limit * 10) {  // 9.99.. rounded up to 10.0..
    value /= 10;
    ++exponent;
  }
  for (int i = kept; i-- > 0; value /= 10) d.digits[i] = static_cast<char>('0' + value % 10);
  d.count = kept;
  d.exponent = exponent;
  return d;
}

constexpr int kNoPower = 1 << 30;

/// `d` with the digit of index `units` before the point and `precision`
/// after it (the point printed when `point`), then, unless `power` is
/// kNoPower, e and that power of ten: fixed and exponential notation.
void decimal(Sink& out, const Spec& spec, const char* prefix, const Decimal& d, int units, int precision, bool point,
             int power) {
  const int first = units < 0 ? units : 0;  // a fixed value below 1: the one 0 before the point
  const unsigned magnitude = static_cast<unsigned>(power < 0 ? -power : power);
  const int power_digits = power == kNoPower ? 0 : magnitude >= 100 ? 3 : 2;
  const long length = (units - first + 1) + point + precision + (power_digits ? 2 + power_digits : 0);
  field(out, spec, prefix, 0, length, true, [&] {
    for (int i = first; i <= units + precision; ++i) {
      out.put(d.at(i));
      if (i == units && point) out.put('.');
    }
    if (power_digits != 0) {
      out.put((spec.flags & kUpper) ? 'E' : 'e');
      out.put(power < 0 ? '-' : '+');
      for (unsigned place = power_digits == 3 ? 100 : 10; place != 0; place /= 10) {
        out.put(static_cast<char>('0' + magnitude / place % 10));
      }
    }
  });
}

/// A floating conversion (`conversion` e, f or g; the flags say upper case).
void real(Sink& out, const Spec& spec, double argument, char conversion) {
  Real value = static_cast<Real>(argument);
  const char* prefix = sign(spec.flags, __builtin_signbit(argument));
  const bool alternate = spec.flags & kAlternate;
  if (value < 0) value = -value;
  if (__builtin_isnan(value) || __builtin_isinf(value)) {
    const bool upper = spec.flags & kUpper;
    const char* word = __builtin_isnan(value) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    plain(out, spec, prefix, 0, word, 3, false);
    return;
  }
  int exponent = 0;
  if (value != 0) {
    for (; value >= 10; ++exponent) value /= 10;
    for (; value < 1; --exponent) value *= 10;
  }
  const int precision = spec.precision < 0 ? 6 : spec.precision;
  if (conversion == 'f') {
    const Decimal d = round_to(value, exponent, exponent + 1 + precision);
    decimal(out, spec, prefix, d, d.exponent, precision, precision > 0 || alternate, kNoPower);
    return;
  }
  if (conversion == 'e') {
    const Decimal d = round_to(value, exponent, precision + 1);
    decimal(out, spec, prefix, d, 0, precision, precision > 0 || alternate, d.count == 0 ? 0 : d.exponent);
    return;
  }
  // g: %e's form for powers below -4 or from the precision on, else %f's; no trailing zeros without #
  const int significant = precision == 0 ? 1 : precision;
  const Decimal d = round_to(value, exponent, significant);
  const bool use_power = d.exponent < -4 || d.exponent >= significant;
  const int units = use_power ? 0 : d.exponent;
  int shown = significant - 1 - units;
  while (!alternate && shown > 0 && d.at(units + shown) == '0') --shown;
  decimal(out, spec, prefix, d, units, shown, shown > 0 || alternate, use_power ? d.exponent : kNoPower);
}
#endif  // ETSB_FORMAT_FLOATS

}  // namespace

extern "C" int vsnprintf(char* buffer, size_t size, const char* format, va_list arguments_in) {
  va_list arguments;
  va_copy(arguments, arguments_in);
  Sink out{buffer, size == 0 ? 0 : size - 1, 0};
  while (*format != '\0') {
    if (*format != '%') {
      out.put(*format++);
      continue;
    }
    const char* start = format++;
    Spec spec{0, 0, -1};
    for (;; ++format) {
      static constexpr char kFlags[] = "-0+ #";  // in Flag's order
      int k = 0;
      while (kFlags[k] != '\0' && kFlags[k] != *format) ++k;
      if (kFlags[k] == '\0') break;
      spec.flags |= 1u << k;
    }
    spec.width = number(format, arguments);
    if (spec.width < 0) {  // a negative * width: left-justified
      spec.flags |= kLeft;
      spec.width = -spec.width;
    }
    if (*format == '.') {
      ++format;
      spec.precision = number(format, arguments);
      if (spec.precision < 0) spec.precision = -1;  // a negative * precision: none
    }
    // The length modifier, as the bytes of the integer argument it names.
    unsigned bytes = sizeof(int);
    bool long_double = false;
    for (;; ++format) {
      const char c = *format;
      if (c == 'h') bytes = bytes == 2 ? 1 : 2;
      else if (c == 'l') bytes = bytes == sizeof(long) && format[-1] == 'l' ? sizeof(long long) : sizeof(long);
      else if (c == 'j' || c == 'q' || c == 'L') bytes = sizeof(long long), long_double = c == 'L';
      else if (c == 'z' || c == 't') bytes = sizeof(size_t);
      else break;
    }
    const char conversion = *format;
    if (conversion != '\0') ++format;
    const char lower = static_cast<char>(conversion | 0x20);
    if (conversion != lower) spec.flags |= kUpper;
    if (conversion == 'd' || conversion == 'i' || conversion == 'u' || conversion == 'o' || lower == 'x' ||
        conversion == 'p') {
      // An integer as wide as the modifier says: narrower than 64 bits, read
      // as an int and cut to its width (32-bit shifts), sign-extended for d and i.
      const bool is_signed = conversion == 'd' || conversion == 'i';
      uint64_t value;
      if (conversion == 'p') {
        value = reinterpret_cast<uintptr_t>(va_arg(arguments, void*));
      } else if (bytes == 8) {
        value = va_arg(arguments, unsigned long long);
      } else {
        const unsigned unused_bits = 32 - 8 * bytes;
        const unsigned word = va_arg(arguments, unsigned) << unused_bits;
        value = is_signed ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(word) >> unused_bits))
                          : word >> unused_bits;
      }
      integer(out, spec, value, is_signed, conversion == 'o' ? 8 : lower == 'x' || conversion == 'p' ? 16 : 10,
              conversion == 'p');
    } else if (conversion == 'c' || conversion == 's') {
      char c = 0;
      const char* text = &c;
      long count = 1;
      if (conversion == 'c') {
        c = static_cast<char>(va_arg(arguments, int));
      } else {
        text = va_arg(arguments, const char*);
        if (text == nullptr) text = "(null)";
        for (count = 0; (spec.precision < 0 || count < spec.precision) && text[count] != '\0';) ++count;
      }
      plain(out, spec, "", 0, text, count, false);
    } else if (conversion == 'n') {  // the length so far, through a pointer as wide as the modifier says
      void* target = va_arg(arguments, void*);
      const uint64_t length = out.length;
      if (bytes == 1) *static_cast<uint8_t*>(target) = static_cast<uint8_t>(length);
      else if (bytes == 2) *static_cast<uint16_t*>(target) = static_cast<uint16_t>(length);
      else if (bytes == 4) *static_cast<uint32_t*>(target) = static_cast<uint32_t>(length);
      else *static_cast<uint64_t*>(target) = length;
    } else if (conversion == '%') {
      out.put('%');
    } else if (lower == 'e' || lower == 'f' || lower == 'g' || lower == 'a') {
      const double value = long_double ? static_cast<double>(va_arg(arguments, long double))
                                       : va_arg(arguments, double);
#if ETSB_FORMAT_FLOATS
      real(out, spec, value, lower == 'a' ? 'e' : lower);
#else
      (void)value;
      plain(out, Spec{0, 0, -1}, "", 0, start, format - start, false);
#endif
    } else {  // an unknown conversion (or the format's end): its text as written
      plain(out, Spec{0, 0, -1}, "", 0, start, format - start, false);
    }
  }
  va_end(arguments);
  if (size != 0) buffer[out.length < out.room ? out.length : out.room] = '\0';
  return static_cast<int>(out.length);
}

extern "C" int snprintf(char* buffer, size_t size, const char* format, ...) {
  va_list arguments;
  va_start(arguments, format);
  const int length = vsnprintf(buffer, size, format, arguments);
  va_end(arguments);
  return length;
}
