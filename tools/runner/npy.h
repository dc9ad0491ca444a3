// NumPy .npy arrays for the runner: a strict reader of the header numpy
// writes, and a writer.
//
// The reader is fed files from anywhere, so it is written for hostile bytes:
// no exceptions, no recursion, every length, count and product checked before
// it is used. It accepts what numpy.save writes (format versions 1 to 3, a
// little-endian or byte-order-free dtype the runner knows, C order, at most
// kMaxDims dimensions) and refuses the rest, saying why.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <executorch/runtime/core/exec_aten/exec_aten.h>

namespace etsb_npy {

using executorch::aten::ScalarType;

// The dims a tensor may have (ExecuTorch's kTensorDimensionLimit).
constexpr size_t kMaxDims = 16;
// The longest header read: a header numpy writes is well under 1 KB.
constexpr size_t kMaxHeaderBytes = 64 * 1024;
// The bytes before the header: magic, version, header length.
constexpr size_t kMaxPreambleBytes = 12;

struct DtypeInfo {
  ScalarType type;
  const char* descr;  // numpy's, little-endian
  size_t size;
  const char* name;
};

// The dtypes the runner reads and writes: the one table of them. numpy has no
// bfloat16: BFloat16 tensors travel as their raw 16-bit patterns in "<u2"
// files (by_descr finds UInt16 for "<u2"; as_expected reads such a file as
// BFloat16 where the method expects that).
inline const DtypeInfo kDtypes[] = {
    {ScalarType::Byte, "|u1", 1, "Byte"},    {ScalarType::Char, "|i1", 1, "Char"},
    {ScalarType::Short, "<i2", 2, "Short"},  {ScalarType::Int, "<i4", 4, "Int"},
    {ScalarType::Long, "<i8", 8, "Long"},    {ScalarType::Half, "<f2", 2, "Half"},
    {ScalarType::Float, "<f4", 4, "Float"},  {ScalarType::Double, "<f8", 8, "Double"},
    {ScalarType::Bool, "|b1", 1, "Bool"},    {ScalarType::UInt16, "<u2", 2, "UInt16"},
    {ScalarType::BFloat16, "<u2", 2, "BFloat16"}, {ScalarType::ComplexFloat, "<c8", 8, "ComplexFloat"},
    {ScalarType::ComplexDouble, "<c16", 16, "ComplexDouble"},
};

inline const DtypeInfo* by_type(ScalarType type) {
  for (const auto& info : kDtypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

// The dtype of a file read for a tensor of `expected` type: the file's own,
// except that "<u2" data is BFloat16 bits where the method expects BFloat16.
inline const DtypeInfo* as_expected(const DtypeInfo* file, ScalarType expected) {
  if (file->type == ScalarType::UInt16 && expected == ScalarType::BFloat16) return by_type(expected);
  return file;
}

// numpy spells one-byte dtypes with '|', but also reads '<' and '=' for them.
inline const DtypeInfo* by_descr(const std::string& descr) {
  for (const auto& info : kDtypes) {
    if (descr == info.descr) return &info;
    bool one_byte = info.descr[0] == '|' && descr.size() == 3 && (descr[0] == '<' || descr[0] == '=');
    if (one_byte && descr.compare(1, 2, info.descr + 1) == 0) return &info;
  }
  return nullptr;
}

// What a header says: the dtype, the shape, and where the data is.
struct Header {
  const DtypeInfo* dtype = nullptr;
  int32_t sizes[kMaxDims] = {};
  size_t dims = 0;
  size_t data_offset = 0;  // the data's first byte, from the start of the file
  size_t data_bytes = 0;   // the bytes the shape and dtype need
};

// A cursor over the header's text, the Python dict literal numpy writes:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderText {
 public:
  HeaderText(const char* text, size_t size) : text_(text), size_(size) {}

  void skip_spaces() {
    while (at_ < size_ && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
  }
  bool take(char c) {
    skip_spaces();
    if (at_ >= size_ || text_[at_] != c) return false;
    ++at_;
    return true;
  }
  bool peek(char c) {
    skip_spaces();
    return at_ < size_ && text_[at_] == c;
  }
  // A quoted string without escapes, as numpy writes keys and dtypes.
  bool string(std::string& out) {
    skip_spaces();
    if (at_ >= size_ || (text_[at_] != '\'' && text_[at_] != '"')) return false;
    char quote = text_[at_++];
    size_t start = at_;
    while (at_ < size_ && text_[at_] != quote && text_[at_] != '\\' && at_ - start <= 64) ++at_;
    if (at_ >= size_ || text_[at_] != quote) return false;
    out.assign(text_ + start, at_ - start);
    ++at_;
    return true;
  }
  bool word(const char* expected) {
    skip_spaces();
    size_t length = std::char_traits<char>::length(expected);
    if (size_ - at_ < length || std::char_traits<char>::compare(text_ + at_, expected, length) != 0) return false;
    at_ += length;
    return true;
  }
  // A decimal integer no greater than `limit`.
  bool integer(uint64_t limit, uint64_t& out) {
    skip_spaces();
    size_t start = at_;
    out = 0;
    while (at_ < size_ && text_[at_] >= '0' && text_[at_] <= '9') {
      out = out * 10 + static_cast<uint64_t>(text_[at_++] - '0');
      if (out > limit) return false;
    }
    return at_ > start;
  }
  // Only the padding numpy adds (spaces, then a newline) may follow the dict.
  bool only_padding_left() {
    while (at_ < size_ && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
    return at_ == size_;
  }

 private:
  const char* text_;
  size_t size_;
  size_t at_ = 0;
};

// Reads the shape tuple, "(2, 3)", "(4,)" or "()", into `header`.
inline bool parse_shape(HeaderText& text, Header& header, std::string& why) {
  if (!text.take('(')) return why = "the shape is not a tuple", false;
  header.dims = 0;
  while (!text.take(')')) {
    if (header.dims == kMaxDims) return why = "more than " + std::to_string(kMaxDims) + " dimensions", false;
    uint64_t dim;
    if (!text.integer(INT32_MAX, dim)) return why = "a dimension is not an integer from 0 to 2147483647", false;
    header.sizes[header.dims++] = static_cast<int32_t>(dim);
    if (!text.take(',') && !text.peek(')')) return why = "the shape is not a tuple of integers", false;
  }
  return true;
}

// Reads one "'key': value" entry of the header dict into `header`;
// `seen` collects the keys read so far (one bit each).
inline bool parse_entry(HeaderText& text, Header& header, unsigned& seen, std::string& why) {
  std::string key, value;
  if (!text.string(key) || !text.take(':')) return why = "the header is not a dict of quoted keys", false;
  unsigned bit = key == "descr" ? 1u : key == "fortran_order" ? 2u : key == "shape" ? 4u : 0u;
  if (bit == 0) return why = "unknown header key '" + key + "'", false;
  if (seen & bit) return why = "header key '" + key + "' given twice", false;
  seen |= bit;
  if (bit == 1) {
    if (!text.string(value)) return why = "the dtype is not a quoted string", false;
    header.dtype = by_descr(value);
    if (header.dtype == nullptr) return why = "unsupported dtype '" + value + "'", false;
    return true;
  }
  if (bit == 2) {
    if (text.word("True")) return why = "Fortran-order arrays are not supported", false;
    if (!text.word("False")) return why = "fortran_order is neither True nor False", false;
    return true;
  }
  return parse_shape(text, header, why);
}

// The header's length field: 2 bytes in version 1, 4 in versions 2 and 3.
inline bool parse_preamble(const uint8_t* bytes, size_t size, size_t& header_start, size_t& header_length,
                           std::string& why) {
  static const uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::char_traits<char>::compare(reinterpret_cast<const char*>(bytes),
                                                   reinterpret_cast<const char*>(kMagic), 6) != 0)
    return why = "not a .npy file (bad magic)", false;
  uint8_t major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    return why = "unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor), false;
  if (major == 1) {
    header_start = 10;
    header_length = bytes[8] | (static_cast<size_t>(bytes[9]) << 8);
  } else {
    if (size < 12) return why = "truncated header", false;
    header_start = 12;
    header_length = 0;
    for (int i = 0; i < 4; ++i) header_length |= static_cast<size_t>(bytes[8 + i]) << (8 * i);
  }
  if (header_length > kMaxHeaderBytes)
    return why = "a header of " + std::to_string(header_length) + " bytes, more than the " +
                 std::to_string(kMaxHeaderBytes) + " read", false;
  return true;
}

// Parses the header at the start of `bytes` (`size` of them: the header need
// not be followed by the data). Returns false, with `why`, for anything numpy
// would not have written or the runner cannot read.
inline bool parse_header(const uint8_t* bytes, size_t size, Header& header, std::string& why) {
  size_t start, length;
  if (!parse_preamble(bytes, size, start, length, why)) return false;
  if (size - start < length) return why = "truncated header", false;
  HeaderText text(reinterpret_cast<const char*>(bytes) + start, length);
  unsigned seen = 0;
  if (!text.take('{')) return why = "the header is not a dict", false;
  while (!text.take('}')) {
    if (!parse_entry(text, header, seen, why)) return false;
    if (!text.take(',') && !text.peek('}')) return why = "the header is not a dict", false;
  }
  if (!text.only_padding_left()) return why = "text after the header's dict", false;
  if (seen != 7) return why = "the header lacks one of 'descr', 'fortran_order' and 'shape'", false;
  size_t count = header.dtype->size;
  for (size_t i = 0; i < header.dims; ++i) {
    if (__builtin_mul_overflow(count, static_cast<size_t>(header.sizes[i]), &count))
      return why = "the shape's size overflows", false;
  }
  header.data_offset = start + length;
  header.data_bytes = count;
  return true;
}

// "(2, 3)", "(4,)" or "()", as numpy prints a shape.
inline std::string shape_text(const int32_t* sizes, size_t dims) {
  std::string text = "(";
  for (size_t i = 0; i < dims; ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + (dims == 1 ? ",)" : ")");
}

// Writes an array to `path` through a temporary file renamed into place, so a
// failed write leaves nothing behind; returns false if it could not.
inline bool write(const std::string& path, const DtypeInfo& dtype, const int32_t* sizes, size_t dims,
                  const void* data, size_t nbytes) {
  std::string header = std::string("{'descr': '") + dtype.descr + "', 'fortran_order': False, 'shape': " +
                       shape_text(sizes, dims) + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string tmp = path + ".tmp";
  FILE* out = std::fopen(tmp.c_str(), "wb");
  if (out == nullptr) return false;
  const char preamble[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(header.size() & 0xff),
                             static_cast<char>(header.size() >> 8)};
  bool written = std::fwrite(preamble, 1, sizeof(preamble), out) == sizeof(preamble) &&
                 std::fwrite(header.data(), 1, header.size(), out) == header.size() &&
                 (nbytes == 0 || std::fwrite(data, 1, nbytes, out) == nbytes);
  written = std::fclose(out) == 0 && written;
  if (written && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  std::remove(tmp.c_str());
  return false;
}

}  // namespace etsb_npy
