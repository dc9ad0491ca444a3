// libFuzzer target: the runner's .npy header reader (npy.h) on any bytes.
//
// Beyond not crashing (AddressSanitizer and UndefinedBehaviorSanitizer watch
// every access and every integer), what it accepts must hold together: at most
// kMaxDims dimensions, the data starting inside the bytes read, and the data's
// size the product of the shape and the dtype's width, without overflow.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "../npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  etsb_npy::Header header;
  std::string why;
  if (!etsb_npy::parse_header(data, size, header, why)) {
    if (why.empty()) std::abort();  // every refusal says why
    return 0;
  }
  if (header.dtype == nullptr || header.dims > etsb_npy::kMaxDims || header.data_offset > size) std::abort();
  size_t bytes = header.dtype->size;
  for (size_t i = 0; i < header.dims; ++i) {
    if (header.sizes[i] < 0 || __builtin_mul_overflow(bytes, static_cast<size_t>(header.sizes[i]), &bytes)) std::abort();
  }
  if (bytes != header.data_bytes) std::abort();
  // The shape prints as numpy prints it, and reads back the same.
  std::string shape = etsb_npy::shape_text(header.sizes, header.dims);
  std::string text = std::string("{'descr': '") + header.dtype->descr + "', 'fortran_order': False, 'shape': " + shape + "}";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(text.size() & 0xff) +
                     static_cast<char>(text.size() >> 8) + text;
  etsb_npy::Header again;
  if (!etsb_npy::parse_header(reinterpret_cast<const uint8_t*>(file.data()), file.size(), again, why)) std::abort();
  if (again.dims != header.dims || again.data_bytes != header.data_bytes || again.dtype != header.dtype) std::abort();
  return 0;
}
