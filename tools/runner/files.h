// The runner's files: the program and the .npy inputs, read for hostile bytes,
// and the outputs, written as .npy. A file is opened only if it is a regular
// file (a FIFO is not waited on) and read exactly; a .npy input is checked
// against the tensor the method expects before its data is read, so that a
// file's claims cannot make the runner allocate more than the method's own
// input needs. Each refusal says why.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>

#include "layout.h"
#include "npy.h"

namespace etsb_runner {

// A tensor input read from .npy, with storage that outlives the method.
struct Array {
  etsb_npy::Header header;
  uint8_t dim_order[etsb_npy::kMaxDims] = {};
  std::vector<uint8_t> data;
  std::unique_ptr<executorch::aten::TensorImpl> impl;
};

// "(2, 3)" for a tensor's sizes, as numpy prints a shape.
inline std::string shape_text(executorch::runtime::Span<const int32_t> sizes) {
  return etsb_npy::shape_text(sizes.data(), sizes.size());
}

// A file descriptor closed when it goes out of scope.
struct File {
  int fd = -1;
  ~File() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading if it is a regular file (a FIFO is not waited on).
inline bool open_regular(const std::string& path, File& file, size_t& size, std::string& why) {
  file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (file.fd < 0) return why = std::string("cannot open it: ") + std::strerror(errno), false;
  struct stat info;
  if (::fstat(file.fd, &info) != 0) return why = std::string("cannot read it: ") + std::strerror(errno), false;
  if (S_ISDIR(info.st_mode)) return why = "is a directory", false;
  if (!S_ISREG(info.st_mode)) return why = "not a regular file", false;
  size = static_cast<size_t>(info.st_size);
  return true;
}

// Reads exactly `size` bytes at `offset`.
inline bool read_at(int fd, uint8_t* into, size_t size, size_t offset) {
  while (size > 0) {
    ssize_t got = ::pread(fd, into, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    into += got, size -= static_cast<size_t>(got), offset += static_cast<size_t>(got);
  }
  return true;
}

// Reads input from the .npy at `path`, checked against the tensor the method
// expects before its data is read: a file's claims cannot make the runner
// allocate more than the method's own input needs.
inline bool read_input(const std::string& path, const executorch::runtime::TensorInfo& expected, Array& array,
                       std::string& why) {
  File file;
  size_t file_size = 0;
  if (!open_regular(path, file, file_size, why)) return false;
  static uint8_t head[etsb_npy::kMaxPreambleBytes + etsb_npy::kMaxHeaderBytes];
  size_t head_size = std::min(sizeof(head), file_size);
  if (!read_at(file.fd, head, head_size, 0)) return why = "cannot read it", false;
  etsb_npy::Header& header = array.header;
  if (!etsb_npy::parse_header(head, head_size, header, why)) return false;
  header.dtype = etsb_npy::as_expected(header.dtype, expected.scalar_type());
  if (expected.scalar_type() != header.dtype->type) {
    const etsb_npy::DtypeInfo* want = etsb_npy::by_type(expected.scalar_type());
    return why = std::string("dtype ") + header.dtype->name + ", the method expects " +
                 (want ? want->name : "another dtype"), false;
  }
  executorch::runtime::Span<const int32_t> sizes(header.sizes, header.dims);
  if (!std::equal(sizes.begin(), sizes.end(), expected.sizes().begin(), expected.sizes().end()))
    return why = "shape " + shape_text(sizes) + ", the method expects " + shape_text(expected.sizes()), false;
  size_t data_bytes = file_size - std::min(file_size, header.data_offset);
  if (data_bytes != header.data_bytes)
    return why = "holds " + std::to_string(data_bytes) + " data bytes, its shape needs " +
                 std::to_string(header.data_bytes), false;
  array.data.resize(header.data_bytes);
  if (!read_at(file.fd, array.data.data(), header.data_bytes, header.data_offset))
    return why = "cannot read its data", false;
  // The tensor takes the method's dim order: a channels-last input gets its
  // row-major .npy bytes rearranged so (set_input copies bytes as they are).
  auto order = expected.dim_order();
  if (order.size() != header.dims || !etsb_layout::is_permutation(order.data(), order.size()))
    return why = "the method's dim order for it is not a permutation of its dimensions", false;
  for (size_t i = 0; i < header.dims; ++i) array.dim_order[i] = order[i];
  if (etsb_layout::is_channels_last(order.data(), order.size())) {
    std::vector<uint8_t> row_major(std::move(array.data));
    array.data.assign(row_major.size(), 0);
    etsb_layout::copy_between(header.sizes, array.dim_order, header.dims, header.dtype->size, row_major.data(),
                              array.data.data(), true);
  }
  return true;
}

// Reads the .npy inputs at `paths`, one per input of the method, each checked
// against the tensor it expects (read_input), into `arrays` with a tensor over
// each; false, and `why`, naming the input and its file, if one is wrong.
inline bool read_inputs(const std::vector<std::string>& paths, const executorch::runtime::MethodMeta& meta,
                        std::vector<Array>& arrays, std::string& why) {
  if (paths.size() != meta.num_inputs())
    return why = "method '" + std::string(meta.name()) + "' takes " + std::to_string(meta.num_inputs()) +
                 " inputs, got " + std::to_string(paths.size()),
           false;
  arrays.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) return why = "input " + std::to_string(i) + " is not a tensor input", false;
    if (!read_input(paths[i], info.get(), arrays[i], why))
      return why = "input " + std::to_string(i) + " (" + paths[i] + "): " + why, false;
    etsb_npy::Header& header = arrays[i].header;
    arrays[i].impl.reset(new executorch::aten::TensorImpl(header.dtype->type, static_cast<ssize_t>(header.dims),
                                                          header.sizes, arrays[i].data.data(),
                                                          arrays[i].dim_order));
  }
  return true;
}

// Writes one output as .npy: a tensor, or an int, double or bool as a 0-D array.
inline bool write_output(const executorch::runtime::EValue& output, const std::string& path, size_t index,
                         std::string& why) {
  bool ok;
  if (output.isTensor()) {
    const executorch::aten::Tensor& tensor = output.toTensor();
    const etsb_npy::DtypeInfo* dtype = etsb_npy::by_type(tensor.scalar_type());
    if (dtype == nullptr) return why = "output " + std::to_string(index) + " has an unsupported dtype", false;
    if (tensor.dim() > static_cast<ssize_t>(etsb_npy::kMaxDims))
      return why = "output " + std::to_string(index) + " has more than " + std::to_string(etsb_npy::kMaxDims) + " dims",
             false;
    int32_t sizes[etsb_npy::kMaxDims];
    std::copy(tensor.sizes().begin(), tensor.sizes().end(), sizes);
    auto order = tensor.dim_order();
    if (order.size() == static_cast<size_t>(tensor.dim()) && etsb_layout::is_channels_last(order.data(), order.size())) {
      // A channels-last output is written row-major, as .npy keeps arrays.
      std::vector<uint8_t> row_major(tensor.nbytes());
      etsb_layout::copy_between(sizes, order.data(), order.size(), dtype->size, row_major.data(),
                                static_cast<uint8_t*>(const_cast<void*>(tensor.const_data_ptr())), false);
      ok = etsb_npy::write(path, *dtype, sizes, tensor.dim(), row_major.data(), row_major.size());
    } else {
      ok = etsb_npy::write(path, *dtype, sizes, tensor.dim(), tensor.const_data_ptr(), tensor.nbytes());
    }
  } else if (output.isInt()) {
    int64_t value = output.toInt();
    ok = etsb_npy::write(path, *etsb_npy::by_type(executorch::aten::ScalarType::Long), nullptr, 0, &value, sizeof(value));
  } else if (output.isDouble()) {
    double value = output.toDouble();
    ok = etsb_npy::write(path, *etsb_npy::by_type(executorch::aten::ScalarType::Double), nullptr, 0, &value, sizeof(value));
  } else if (output.isBool()) {
    bool value = output.toBool();
    ok = etsb_npy::write(path, *etsb_npy::by_type(executorch::aten::ScalarType::Bool), nullptr, 0, &value, sizeof(value));
  } else {
    return why = "output " + std::to_string(index) + " is neither a tensor nor a scalar", false;
  }
  if (!ok) why = "cannot write " + path + ": " + std::strerror(errno);
  return ok;
}

// Writes every output of the method into the output directory (created) as
// output_<i>.npy; false, and `why`, if it cannot.
inline bool write_outputs(executorch::runtime::Method& method, const std::string& output_dir, std::string& why) {
  std::vector<executorch::runtime::EValue> outputs(method.outputs_size());
  if (method.get_outputs(outputs.data(), outputs.size()) != executorch::runtime::Error::Ok)
    return why = "cannot read the outputs", false;
  std::error_code created;
  std::filesystem::create_directories(output_dir, created);
  if (created) return why = "cannot create the output directory " + output_dir + ": " + created.message(), false;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!write_output(outputs[i], output_dir + "/output_" + std::to_string(i) + ".npy", i, why)) return false;
  }
  return true;
}

// Whether a method name is safe as a directory name (a corrupt program can
// name a method "../x"): letters, digits and underscores.
inline bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

}  // namespace etsb_runner
