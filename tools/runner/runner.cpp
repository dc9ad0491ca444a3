// The main of every etsb model binary: load a .pte with ExecuTorch's runtime,
// feed .npy inputs, run a method, write its outputs as .npy.
//
//   BIN --model M.pte [--method forward] --inputs a.npy,b.npy --output-dir D [--iterations N] [--log]
//
// The runtime's log is kept, not printed: --log prints it after a run, and a
// failure prints its errors (a missing kernel is named with its key).
//
// Kernels reach the runtime one of three ways, chosen when the binary is built:
// static initialisers in the registration source (the default), an explicit
// call (-DETSB_REGISTER_LIB=<lib>, or -DETSB_MODEL_ENTRY to call the
// etsb::register_model_kernels() that `gen-bindings --model-entry` defines:
// the runner library of model binaries, compiled once), or a per-method kernel
// table passed to Program::load_method (-DETSB_KERNEL_TABLE_LIB=<lib>).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Span;

#define ETSB_CAT2(a, b) a##b
#define ETSB_CAT(a, b) ETSB_CAT2(a, b)
#if defined(ETSB_REGISTER_LIB)
namespace etsb {
Error ETSB_CAT(ETSB_CAT(register_, ETSB_REGISTER_LIB), _kernels)();
}
#endif
#if defined(ETSB_MODEL_ENTRY)
namespace etsb {
Error register_model_kernels();
}
#endif
#if defined(ETSB_KERNEL_TABLE_LIB)
namespace etsb {
Span<const executorch::ET_RUNTIME_NAMESPACE::Kernel> ETSB_CAT(ETSB_KERNEL_TABLE_LIB, _kernels)();
}
#endif

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return 1;
}

// fail() for the steps of main that answer whether they succeeded.
bool refuse(const std::string& message) {
  fail(message);
  return false;
}

std::string error_name(Error error) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "error 0x%x", static_cast<unsigned>(error));
  return buffer;
}

struct DtypeInfo {
  ScalarType type;
  const char* descr;  // numpy's, little-endian
  size_t size;
  const char* name;
};

const DtypeInfo kDtypes[] = {
    {ScalarType::Byte, "|u1", 1, "Byte"},    {ScalarType::Char, "|i1", 1, "Char"},
    {ScalarType::Short, "<i2", 2, "Short"},  {ScalarType::Int, "<i4", 4, "Int"},
    {ScalarType::Long, "<i8", 8, "Long"},    {ScalarType::Half, "<f2", 2, "Half"},
    {ScalarType::Float, "<f4", 4, "Float"},  {ScalarType::Double, "<f8", 8, "Double"},
    {ScalarType::Bool, "|b1", 1, "Bool"},    {ScalarType::UInt16, "<u2", 2, "UInt16"},
};

const DtypeInfo* by_type(ScalarType type) {
  for (const auto& info : kDtypes) {
    if (info.type == type) return &info;
  }
  return nullptr;
}

const DtypeInfo* by_descr(const std::string& descr) {
  for (const auto& info : kDtypes) {
    if (descr == info.descr || (descr.size() == 3 && info.descr[0] == '|' && descr.substr(1) == info.descr + 1))
      return &info;
  }
  return nullptr;
}

// A tensor input read from .npy, with storage that outlives the method.
struct Array {
  const DtypeInfo* dtype = nullptr;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<uint8_t> data;
  std::unique_ptr<TensorImpl> impl;
};

std::string header_value(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return "";
  at = header.find(':', at);
  size_t start = header.find_first_not_of(" ", at + 1);
  if (start == std::string::npos) return "";
  if (header[start] == '(') return header.substr(start, header.find(')', start) - start + 1);
  if (header[start] == '\'') return header.substr(start + 1, header.find('\'', start + 1) - start - 1);
  return header.substr(start, header.find_first_of(",}", start) - start);
}

bool read_npy(const std::string& path, Array& array, std::string& why) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return why = "cannot open it", false;
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return why = "not a .npy file (bad magic)", false;
  int major = static_cast<unsigned char>(bytes[6]);
  size_t header_length, offset;
  if (major == 1) {
    header_length = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return why = "truncated header", false;
    header_length = 0;
    for (int i = 0; i < 4; ++i) header_length |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    offset = 12;
  } else {
    return why = "unsupported .npy version " + std::to_string(major), false;
  }
  if (offset + header_length > bytes.size()) return why = "truncated header", false;
  std::string header = bytes.substr(offset, header_length);
  std::string descr = header_value(header, "descr");
  array.dtype = by_descr(descr);
  if (array.dtype == nullptr) return why = "unsupported dtype '" + descr + "'", false;
  if (header_value(header, "fortran_order") != "False") return why = "Fortran-order arrays are not supported", false;
  std::string shape = header_value(header, "shape");
  if (shape.empty()) return why = "no shape in the header", false;
  size_t count = 1;
  std::stringstream dims(shape.substr(1, shape.size() - 2));
  std::string item;
  while (std::getline(dims, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    long long dim = std::stoll(item);
    if (dim < 0) return why = "negative dimension", false;
    array.sizes.push_back(static_cast<int32_t>(dim));
    count *= static_cast<size_t>(dim);
  }
  size_t nbytes = count * array.dtype->size;
  if (bytes.size() - offset - header_length != nbytes)
    return why = "holds " + std::to_string(bytes.size() - offset - header_length) + " data bytes, its shape needs " +
                 std::to_string(nbytes), false;
  array.data.assign(bytes.begin() + offset + header_length, bytes.end());
  for (size_t i = 0; i < array.sizes.size(); ++i) array.dim_order.push_back(static_cast<uint8_t>(i));
  return true;
}

std::string shape_text(const std::vector<int32_t>& sizes) {
  std::string text = "(";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + (sizes.size() == 1 ? ",)" : ")");
}

bool write_npy(const std::string& path, const DtypeInfo& dtype, const std::vector<int32_t>& sizes,
               const void* data, size_t nbytes) {
  std::string header = std::string("{'descr': '") + dtype.descr + "', 'fortran_order': False, 'shape': " +
                       shape_text(sizes) + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  char length[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(length, 2);
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(nbytes));
  out.close();
  return out && std::rename(tmp.c_str(), path.c_str()) == 0;
}

// The runtime's log, kept instead of printed: a run that works stays quiet, and
// a failure is explained in our own words (the runtime's lines follow on error).
struct LogLine {
  et_pal_log_level_t level;
  std::string text;
};
std::vector<LogLine> g_log;

void keep_log_message(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
                      const char* message, size_t length) {
  std::string text(message, length);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  g_log.push_back({level, text});
}

void print_logged_errors() {
  for (const auto& line : g_log) {
    if (line.level == kError || line.level == kFatal) std::fprintf(stderr, "  runtime: %s\n", line.text.c_str());
  }
}

// "Float 4-D contiguous" for dtype 6 and dim order 0,1,2,3 (as etsb's build-time messages say it).
std::string describe_tensor(int dtype, const std::vector<int>& order) {
  const DtypeInfo* info = by_type(static_cast<ScalarType>(dtype));
  std::string text = info ? info->name : "dtype " + std::to_string(dtype);
  text += " " + std::to_string(order.size()) + "-D";
  bool contiguous = true;
  for (size_t i = 0; i < order.size(); ++i) contiguous = contiguous && order[i] == static_cast<int>(i);
  if (order.size() > 1 && contiguous) text += " contiguous";
  if (!contiguous) {
    text += " dim order (";
    for (size_t i = 0; i < order.size(); ++i) text += (i ? "," : "") + std::to_string(order[i]);
    text += ")";
  }
  return text;
}

// The operators and kernel keys the runtime looked up and did not find, read
// back from its log ("kernel 'X' not found." then one "dtype: N | dim order: ["
// line per tensor, its dims, and "]").
std::vector<std::string> missing_kernels() {
  std::vector<std::string> found;
  std::string op, key, readable;
  std::vector<int> order;
  int dtype = -1;
  auto finish = [&]() {
    if (op.empty()) return;
    std::string entry = op + "  key v1/" + key + "  (" + readable + ")";
    if (std::find(found.begin(), found.end(), entry) == found.end()) found.push_back(entry);
    op.clear();
  };
  for (const auto& line : g_log) {
    const std::string& text = line.text;
    size_t start = text.find("kernel '");
    size_t end = text.find("' not found");
    if (start != std::string::npos && end != std::string::npos) {
      finish();
      op = text.substr(start + 8, end - start - 8);
      key.clear(), readable.clear();
    } else if (!op.empty() && text.rfind("dtype: ", 0) == 0) {
      dtype = std::atoi(text.c_str() + 7);
      order.clear();
    } else if (!op.empty() && dtype >= 0 && !text.empty() && text[0] >= '0' && text[0] <= '9') {
      order.push_back(std::atoi(text.c_str()));
    } else if (!op.empty() && dtype >= 0 && text == "]") {
      std::string dims;
      for (size_t i = 0; i < order.size(); ++i) dims += (i ? "," : "") + std::to_string(order[i]);
      key += (key.empty() ? "" : "|") + std::to_string(dtype) + ";" + dims;
      readable += (readable.empty() ? "" : ", ") + describe_tensor(dtype, order);
      dtype = -1;
    } else if (!op.empty()) {
      finish();
    }
  }
  finish();
  return found;
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator)) {
    if (!item.empty()) parts.push_back(item);
  }
  return parts;
}

// The command line.
struct Options {
  std::string model, method_name = "forward", inputs_text, output_dir;
  long iterations = 0;
  bool has_inputs = false, print_log = false;
};

// Reads argv into `options`; returns false (after saying why) on a bad command line.
bool parse_options(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--log") {
      options.print_log = true;
      continue;
    }
    if (i + 1 >= argc) return refuse("missing value after " + flag);
    std::string value = argv[++i];
    if (flag == "--model") options.model = value;
    else if (flag == "--method") options.method_name = value;
    else if (flag == "--inputs") options.inputs_text = value, options.has_inputs = true;
    else if (flag == "--output-dir") options.output_dir = value;
    else if (flag == "--iterations") options.iterations = std::strtol(value.c_str(), nullptr, 10);
    else return refuse("unknown flag " + flag + " (usage: --model M.pte [--method NAME] --inputs a.npy,... "
                     "--output-dir DIR [--iterations N] [--log])");
  }
  if (options.model.empty() || options.output_dir.empty()) return refuse("--model and --output-dir are required");
  return true;
}

// Registers the binary's kernels, the way it was built to (static
// initialisers need nothing here); returns false after saying why it failed.
bool register_kernels() {
#if defined(ETSB_REGISTER_LIB)
  Error registered = etsb::ETSB_CAT(ETSB_CAT(register_, ETSB_REGISTER_LIB), _kernels)();
  if (registered != Error::Ok) return refuse("kernel registration failed: " + error_name(registered));
#elif defined(ETSB_MODEL_ENTRY)
  Error registered = etsb::register_model_kernels();
  if (registered != Error::Ok) return refuse("kernel registration failed: " + error_name(registered));
#endif
  return true;
}

// The planned memory of a method: one buffer per planned arena, and the
// allocators the method loads with. It must outlive the method.
struct MethodMemory {
  std::vector<std::vector<uint8_t>> planned;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  executorch::extension::MallocMemoryAllocator method_allocator, temp_allocator;
  std::unique_ptr<MemoryManager> manager;

  explicit MethodMemory(const MethodMeta& meta) : planned(meta.num_memory_planned_buffers()) {
    for (size_t i = 0; i < planned.size(); ++i) {
      planned[i].resize(static_cast<size_t>(meta.memory_planned_buffer_size(i).get()));
      spans.emplace_back(planned[i].data(), planned[i].size());
    }
    planned_memory.reset(new HierarchicalAllocator({spans.data(), spans.size()}));
    manager.reset(new MemoryManager(&method_allocator, planned_memory.get(), &temp_allocator));
  }
};

// Says why a method did not load: the kernels it lacks, or the runtime's errors.
int explain_load_failure(const Options& options, Error error) {
  if (error == Error::OperatorMissing) {
    std::string message = "method '" + options.method_name + "' of " + options.model + " needs kernels this binary lacks:";
    for (const auto& missing : missing_kernels()) message += "\n  " + missing;
    return fail(message);
  }
  print_logged_errors();
  return fail("cannot load method '" + options.method_name + "': " + error_name(error));
}

// Reads the .npy inputs, checks them against the method and sets them;
// returns false after saying what is wrong.
bool set_inputs(const Options& options, const MethodMeta& meta, Method& method, std::vector<Array>& arrays) {
  std::vector<std::string> input_paths = split(options.inputs_text, ',');
  if (!options.has_inputs && meta.num_inputs() > 0) return refuse("--inputs is required");
  if (input_paths.size() != meta.num_inputs())
    return refuse("method '" + options.method_name + "' takes " + std::to_string(meta.num_inputs()) + " inputs, got " +
                std::to_string(input_paths.size()));
  arrays.resize(input_paths.size());
  for (size_t i = 0; i < input_paths.size(); ++i) {
    std::string why;
    std::string which = "input " + std::to_string(i) + " (" + input_paths[i] + "): ";
    if (!read_npy(input_paths[i], arrays[i], why)) return refuse(which + why);
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) return refuse("input " + std::to_string(i) + " is not a tensor input");
    std::vector<int32_t> expected(info->sizes().begin(), info->sizes().end());
    if (info->scalar_type() != arrays[i].dtype->type) {
      const DtypeInfo* want = by_type(info->scalar_type());
      return refuse(which + "dtype " + arrays[i].dtype->name + ", the method expects " +
                  (want ? want->name : "another dtype"));
    }
    if (expected != arrays[i].sizes)
      return refuse(which + "shape " + shape_text(arrays[i].sizes) + ", the method expects " + shape_text(expected));
    arrays[i].impl.reset(new TensorImpl(arrays[i].dtype->type, static_cast<ssize_t>(arrays[i].sizes.size()),
                                        arrays[i].sizes.data(), arrays[i].data.data(), arrays[i].dim_order.data()));
    Error set = method.set_input(EValue(Tensor(arrays[i].impl.get())), i);
    if (set != Error::Ok) return refuse("input " + std::to_string(i) + ": rejected (" + error_name(set) + ")");
  }
  return true;
}

// Runs the method `runs` times, each with its inputs set again (planned memory
// may reuse an input's buffer); the time of each run in `times`.
bool execute(Method& method, std::vector<Array>& arrays, long runs, std::vector<double>& times) {
  for (long run = 0; run < runs; ++run) {
    for (size_t i = 0; run > 0 && i < arrays.size(); ++i) {
      Error set = method.set_input(EValue(Tensor(arrays[i].impl.get())), i);
      if (set != Error::Ok) return refuse("input " + std::to_string(i) + ": rejected (" + error_name(set) + ")");
    }
    auto start = std::chrono::steady_clock::now();
    Error executed = method.execute();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    if (executed != Error::Ok) {
      print_logged_errors();
      return refuse("execution failed: " + error_name(executed));
    }
  }
  return true;
}

// Writes one output as .npy: a tensor, or an int, double or bool as a 0-D array.
bool write_output(const EValue& output, const std::string& path, size_t index) {
  if (output.isTensor()) {
    const Tensor& tensor = output.toTensor();
    const DtypeInfo* dtype = by_type(tensor.scalar_type());
    if (dtype == nullptr) return refuse("output " + std::to_string(index) + " has an unsupported dtype");
    std::vector<int32_t> sizes(tensor.sizes().begin(), tensor.sizes().end());
    return write_npy(path, *dtype, sizes, tensor.const_data_ptr(), tensor.nbytes()) || refuse("cannot write " + path);
  }
  bool ok;
  if (output.isInt()) {
    int64_t value = output.toInt();
    ok = write_npy(path, *by_type(ScalarType::Long), {}, &value, sizeof(value));
  } else if (output.isDouble()) {
    double value = output.toDouble();
    ok = write_npy(path, *by_type(ScalarType::Double), {}, &value, sizeof(value));
  } else if (output.isBool()) {
    bool value = output.toBool();
    ok = write_npy(path, *by_type(ScalarType::Bool), {}, &value, sizeof(value));
  } else {
    return refuse("output " + std::to_string(index) + " is neither a tensor nor a scalar");
  }
  return ok || refuse("cannot write " + path);
}

// Writes every output of the method into the output directory (created).
bool write_outputs(Method& method, const std::string& output_dir) {
  std::vector<EValue> outputs(method.outputs_size());
  if (method.get_outputs(outputs.data(), outputs.size()) != Error::Ok) return refuse("cannot read the outputs");
  std::error_code created;
  std::filesystem::create_directories(output_dir, created);
  if (created) return refuse("cannot create the output directory " + output_dir + ": " + created.message());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!write_output(outputs[i], output_dir + "/output_" + std::to_string(i) + ".npy", i)) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 1;
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(keep_log_message, __FILE__));
  executorch::runtime::runtime_init();
  if (!register_kernels()) return 1;
  auto loader = executorch::extension::MmapDataLoader::from(
      options.model.c_str(), executorch::extension::MmapDataLoader::MlockConfig::NoMlock);
  if (!loader.ok()) return fail(options.model + ": cannot open (" + error_name(loader.error()) + ")");
  auto program = Program::load(&loader.get());
  if (!program.ok()) return fail(options.model + ": not a valid program (" + error_name(program.error()) + ")");
  auto meta = program->method_meta(options.method_name.c_str());
  if (!meta.ok()) return fail(options.model + ": no method '" + options.method_name + "'");
  MethodMemory memory(meta.get());
#if defined(ETSB_KERNEL_TABLE_LIB)
  auto method = program->load_method(options.method_name.c_str(), memory.manager.get(), nullptr, nullptr, nullptr,
                                     etsb::ETSB_CAT(ETSB_KERNEL_TABLE_LIB, _kernels)());
#else
  auto method = program->load_method(options.method_name.c_str(), memory.manager.get());
#endif
  if (!method.ok()) return explain_load_failure(options, method.error());
  std::vector<Array> arrays;
  if (!set_inputs(options, meta.get(), method.get(), arrays)) return 1;
  std::vector<double> times;
  long runs = options.iterations > 0 ? options.iterations : 1;
  if (!execute(method.get(), arrays, runs, times) || !write_outputs(method.get(), options.output_dir)) return 1;
  if (options.iterations > 0) {
    std::sort(times.begin(), times.end());
    std::printf("median latency: %.6f ms over %ld runs\n", times[times.size() / 2], runs);
  }
  if (options.print_log) {
    for (const auto& line : g_log) std::fprintf(stderr, "runtime: %s\n", line.text.c_str());
  }
  return 0;
}
