// The main of every etsb model binary: load a .pte with ExecuTorch's runtime,
// feed .npy inputs, run a method, write its outputs as .npy.
//
//   BIN --model M.pte [--method forward] --inputs a.npy,b.npy --output-dir D [--iterations N] [--threads N] [--log]
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
//
// The fuzz target of model loading (tools/runner/fuzz) compiles this file with
// -DETSB_RUNNER_NO_MAIN and calls run() on each input.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include "npy.h"

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

// "InvalidProgram (0x23)": the runtime's name for an error, and its code.
std::string error_name(Error error) {
  const char* name = executorch::runtime::to_string(error);
  if (std::strncmp(name, "Error::", 7) == 0) name += 7;
  char code[16];
  std::snprintf(code, sizeof(code), " (0x%x)", static_cast<unsigned>(error));
  return name + std::string(code);
}

using etsb_npy::by_type;
using etsb_npy::DtypeInfo;

// A tensor input read from .npy, with storage that outlives the method.
struct Array {
  etsb_npy::Header header;
  uint8_t dim_order[etsb_npy::kMaxDims] = {};
  std::vector<uint8_t> data;
  std::unique_ptr<TensorImpl> impl;
};

std::string shape_text(Span<const int32_t> sizes) { return etsb_npy::shape_text(sizes.data(), sizes.size()); }

// A file descriptor closed when it goes out of scope.
struct File {
  int fd = -1;
  ~File() {
    if (fd >= 0) ::close(fd);
  }
};

// Opens `path` for reading if it is a regular file (a FIFO is not waited on).
bool open_regular(const std::string& path, File& file, size_t& size, std::string& why) {
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
bool read_at(int fd, uint8_t* into, size_t size, size_t offset) {
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
bool read_input(const std::string& path, const executorch::runtime::TensorInfo& expected, Array& array,
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
    const DtypeInfo* want = by_type(expected.scalar_type());
    return why = std::string("dtype ") + header.dtype->name + ", the method expects " +
                 (want ? want->name : "another dtype"), false;
  }
  Span<const int32_t> sizes(header.sizes, header.dims);
  if (!std::equal(sizes.begin(), sizes.end(), expected.sizes().begin(), expected.sizes().end()))
    return why = "shape " + shape_text(sizes) + ", the method expects " + shape_text(expected.sizes()), false;
  size_t data_bytes = file_size - std::min(file_size, header.data_offset);
  if (data_bytes != header.data_bytes)
    return why = "holds " + std::to_string(data_bytes) + " data bytes, its shape needs " +
                 std::to_string(header.data_bytes), false;
  array.data.resize(header.data_bytes);
  if (!read_at(file.fd, array.data.data(), header.data_bytes, header.data_offset))
    return why = "cannot read its data", false;
  for (size_t i = 0; i < header.dims; ++i) array.dim_order[i] = static_cast<uint8_t>(i);
  return true;
}

// The runtime's log, kept instead of printed: a run that works stays quiet, and
// a failure is explained in our own words (the runtime's lines follow on error).
struct LogLine {
  et_pal_log_level_t level;
  std::string text;
};
std::vector<LogLine> g_log;
// Lines kept at most: a hostile program cannot make the log grow without bound.
constexpr size_t kMaxLogLines = 10000;
// Errors the runtime logged, kept or not.
size_t g_logged_errors = 0;

void keep_log_message(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
                      const char* message, size_t length) {
  if (level == kError || level == kFatal) ++g_logged_errors;
  if (g_log.size() >= kMaxLogLines) return;
  std::string text(message, std::min<size_t>(length, 1000));
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

// The items of a comma-separated list; false if one is empty ("a.npy,,b.npy").
bool split_list(const std::string& text, std::vector<std::string>& items) {
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = std::min(text.find(',', start), text.size());
    if (end == start) return false;
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return true;
}

const char kUsage[] =
    "usage: %s --model M.pte [--method NAME] --inputs a.npy,... --output-dir DIR\n"
    "          [--iterations N] [--threads N] [--max-memory-mb N] [--log]\n"
    "       %s --model M.pte --all-methods --inputs-dir IN --output-dir DIR [--max-memory-mb N] [--log]\n"
    "\n"
    "Runs a method of an ExecuTorch program with this binary's kernels and writes\n"
    "its outputs as DIR/output_<i>.npy.\n"
    "\n"
    "  --model M.pte       the program\n"
    "  --method NAME       the method to run (default: forward)\n"
    "  --inputs LIST       the method's inputs, one .npy per input, comma-separated\n"
    "  --output-dir DIR    where the outputs go (created)\n"
    "  --iterations N      run N times (1 to 1000000000) and print the median latency\n"
    "  --all-methods       run every method of the program in turn, method M reading\n"
    "                      IN/M.input_<i>.npy and writing DIR/M/output_<i>.npy; a failed\n"
    "                      method is reported and the others still run\n"
    "  --inputs-dir IN     where --all-methods finds the inputs\n"
    "  --threads N         the size of ExecuTorch's thread pool (1 to 1024), used by\n"
    "                      backends such as XNNPACK and by threaded kernels; refused\n"
    "                      above 1 when the binary links no thread pool (its kernels\n"
    "                      run on the calling thread)\n"
    "  --max-memory-mb N   refuse a method whose planned memory exceeds N MB (default 4096)\n"
    "  --log               print the runtime's log after the run\n"
    "  --list-kernels      print the name of every registered kernel, one a line, and exit\n"
    "  --list-backends     print the id of every registered backend, one a line, and exit\n"
    "  --help              print this and exit\n"
    "\n"
    "Exit status: 0 on success, 1 if the run failed, 2 for a bad command line.\n";

// The command line.
struct Options {
  std::string model, method_name = "forward", inputs_text, output_dir, inputs_dir;
  long long iterations = 0;
  long long max_memory_mb = 4096;
  long long threads = 0;  // 0: the thread pool's own default
  bool has_inputs = false, print_log = false, help = false, list_kernels = false, list_backends = false,
       all_methods = false;
};

// A whole decimal number from `low` to `high`, or false.
bool parse_count(const std::string& text, long long low, long long high, long long& value) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::strtoll(text.c_str(), nullptr, 10);
  return value >= low && value <= high;
}

// Stores the value of `flag`; false (after saying why) if the flag is unknown
// or its value is not what it takes.
bool set_option(const std::string& flag, const std::string& value, Options& options) {
  std::string* text = flag == "--model" ? &options.model : flag == "--method" ? &options.method_name
                    : flag == "--inputs" ? &options.inputs_text : flag == "--output-dir" ? &options.output_dir
                    : flag == "--inputs-dir" ? &options.inputs_dir : nullptr;
  if (text != nullptr) {
    if (value.empty()) return refuse(flag + " needs a non-empty value");
    *text = value;
    options.has_inputs = options.has_inputs || flag == "--inputs";
    return true;
  }
  if (flag == "--iterations" && !parse_count(value, 1, 1000000000, options.iterations))
    return refuse("--iterations takes a whole number from 1 to 1000000000, not '" + value + "'");
  if (flag == "--max-memory-mb" && !parse_count(value, 1, 1 << 30, options.max_memory_mb))
    return refuse("--max-memory-mb takes a whole number of megabytes from 1 to 1073741824, not '" + value + "'");
  if (flag == "--threads" && !parse_count(value, 1, 1024, options.threads))
    return refuse("--threads takes a whole number from 1 to 1024, not '" + value + "'");
  if (flag != "--iterations" && flag != "--max-memory-mb" && flag != "--threads")
    return refuse("unknown flag " + flag + " (see --help)");
  return true;
}

// Reads argv into `options`; returns false (after saying why) on a bad command line.
bool parse_options(int argc, char** argv, Options& options) {
  std::vector<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return options.help = true;
    if (flag == "--list-kernels") return options.list_kernels = true;
    if (flag == "--list-backends") return options.list_backends = true;
    if (std::find(seen.begin(), seen.end(), flag) != seen.end()) return refuse(flag + " given twice");
    seen.push_back(flag);
    if (flag == "--log" || flag == "--all-methods") {
      (flag == "--log" ? options.print_log : options.all_methods) = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return refuse("unexpected argument '" + flag + "' (see --help)");
    if (i + 1 >= argc) return refuse("missing value after " + flag);
    if (!set_option(flag, argv[++i], options)) return false;
  }
  if (options.model.empty() || options.output_dir.empty()) return refuse("--model and --output-dir are required");
  bool one_method = std::find(seen.begin(), seen.end(), "--method") != seen.end() || options.has_inputs ||
                    options.iterations > 0;
  if (options.all_methods && one_method)
    return refuse("--all-methods runs every method on its own inputs: drop --method, --inputs and --iterations");
  if (options.all_methods != !options.inputs_dir.empty())
    return refuse(options.all_methods ? "--all-methods needs --inputs-dir" : "--inputs-dir goes with --all-methods");
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

// Memory the method may take, planned arenas and the runtime's own
// allocations together, so a program's claims cannot exhaust the machine.
struct MemoryBudget {
  size_t left;
  // Takes `size` bytes from the budget; false if they are not there.
  bool take(size_t size) {
    if (size > left) return false;
    left -= size;
    return true;
  }
};

// malloc within a budget: the runtime's allocations for a method (its values,
// kernel arguments and scratch) fail cleanly once the budget is spent.
class BudgetedAllocator : public executorch::extension::MallocMemoryAllocator {
 public:
  explicit BudgetedAllocator(MemoryBudget& budget) : budget_(budget) {}
  void* allocate(size_t size, size_t alignment = kDefaultAlignment) override {
    if (!budget_.take(size + alignment)) {
      ET_LOG(Error, "the method needs more memory than --max-memory-mb allows (asked for %zu bytes)", size);
      return nullptr;
    }
    return MallocMemoryAllocator::allocate(size, alignment);
  }

 private:
  MemoryBudget& budget_;
};

// The memory of a method: one buffer per planned arena and per output the
// program leaves to its caller, and the allocators the method loads with,
// all within one budget. It must outlive the method.
struct MethodMemory {
  MemoryBudget budget;
  std::string limit_flag;
  std::vector<std::unique_ptr<uint8_t, decltype(&std::free)>> buffers;
  std::vector<Span<uint8_t>> spans;
  std::unique_ptr<HierarchicalAllocator> planned_memory;
  BudgetedAllocator method_allocator{budget}, temp_allocator{budget};
  std::unique_ptr<MemoryManager> manager;

  MethodMemory(size_t limit, std::string flag) : budget{limit}, limit_flag(std::move(flag)) {}

  // A zeroed buffer of `bytes` for `what`, checked against the budget first;
  // null after saying why there is none.
  uint8_t* buffer(size_t bytes, const std::string& what) {
    if (!budget.take(bytes))
      return refuse(what + " needs " + std::to_string(bytes) + " bytes, more than " + limit_flag + " allows"), nullptr;
    buffers.emplace_back(static_cast<uint8_t*>(std::calloc(std::max<size_t>(bytes, 1), 1)), &std::free);
    if (!buffers.back()) return refuse("cannot allocate " + std::to_string(bytes) + " bytes for " + what), nullptr;
    return buffers.back().get();
  }

  // Allocates the planned arenas `meta` declares; false after saying why.
  bool plan(const MethodMeta& meta) {
    for (size_t i = 0; i < meta.num_memory_planned_buffers(); ++i) {
      auto size = meta.memory_planned_buffer_size(i);
      if (!size.ok() || size.get() < 0) return refuse("the method's planned buffer " + std::to_string(i) + " is invalid");
      size_t bytes = static_cast<size_t>(size.get());
      uint8_t* arena = buffer(bytes, "the method's planned buffer " + std::to_string(i));
      if (arena == nullptr) return false;
      spans.emplace_back(arena, bytes);
    }
    planned_memory.reset(new HierarchicalAllocator({spans.data(), spans.size()}));
    manager.reset(new MemoryManager(&method_allocator, planned_memory.get(), &temp_allocator));
    return true;
  }
};

// Gives each tensor output the program planned no memory for (its caller is
// to provide it) a buffer; false after saying why it could not.
bool bind_unplanned_outputs(const MethodMeta& meta, Method& method, MethodMemory& memory) {
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto tag = meta.output_tag(i);
    if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) continue;
    auto info = meta.output_tensor_meta(i);
    if (!info.ok()) return refuse("output " + std::to_string(i) + " is invalid (" + error_name(info.error()) + ")");
    if (info->is_memory_planned()) continue;
    uint8_t* data = memory.buffer(info->nbytes(), "output " + std::to_string(i));
    if (data == nullptr) return false;
    Error set = method.set_output_data_ptr(data, info->nbytes(), i);
    if (set != Error::Ok) return refuse("output " + std::to_string(i) + ": cannot set its buffer (" + error_name(set) + ")");
  }
  return true;
}

// Checks that the method's inputs and outputs name values it has: the
// runtime checks them only when asked through MethodMeta, and aborts when the
// method reads an output that is not there.
bool check_interface(const MethodMeta& meta) {
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    auto tag = meta.input_tag(i);
    if (!tag.ok()) return refuse("the method's input " + std::to_string(i) + " is invalid (" + error_name(tag.error()) + ")");
  }
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto tag = meta.output_tag(i);
    if (!tag.ok()) return refuse("the method's output " + std::to_string(i) + " is invalid (" + error_name(tag.error()) + ")");
  }
  return true;
}

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
  std::vector<std::string> input_paths;
  if (!split_list(options.inputs_text, input_paths)) return refuse("--inputs has an empty entry: " + options.inputs_text);
  if (!options.has_inputs && meta.num_inputs() > 0) return refuse("--inputs is required");
  if (input_paths.size() != meta.num_inputs())
    return refuse("method '" + options.method_name + "' takes " + std::to_string(meta.num_inputs()) + " inputs, got " +
                  std::to_string(input_paths.size()));
  arrays.resize(input_paths.size());
  for (size_t i = 0; i < input_paths.size(); ++i) {
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) return refuse("input " + std::to_string(i) + " is not a tensor input");
    std::string why;
    if (!read_input(input_paths[i], info.get(), arrays[i], why))
      return refuse("input " + std::to_string(i) + " (" + input_paths[i] + "): " + why);
    etsb_npy::Header& header = arrays[i].header;
    arrays[i].impl.reset(new TensorImpl(header.dtype->type, static_cast<ssize_t>(header.dims), header.sizes,
                                        arrays[i].data.data(), arrays[i].dim_order));
    Error set = method.set_input(EValue(Tensor(arrays[i].impl.get())), i);
    if (set != Error::Ok) return refuse("input " + std::to_string(i) + ": rejected (" + error_name(set) + ")");
  }
  return true;
}

// Runs the method `runs` times, each with its inputs set again (planned memory
// may reuse an input's buffer); the time of each run in `times`.
bool execute(Method& method, std::vector<Array>& arrays, long long runs, std::vector<double>& times) {
  for (long long run = 0; run < runs; ++run) {
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
  bool ok;
  if (output.isTensor()) {
    const Tensor& tensor = output.toTensor();
    const DtypeInfo* dtype = by_type(tensor.scalar_type());
    if (dtype == nullptr) return refuse("output " + std::to_string(index) + " has an unsupported dtype");
    if (tensor.dim() > static_cast<ssize_t>(etsb_npy::kMaxDims))
      return refuse("output " + std::to_string(index) + " has more than " + std::to_string(etsb_npy::kMaxDims) + " dims");
    int32_t sizes[etsb_npy::kMaxDims];
    std::copy(tensor.sizes().begin(), tensor.sizes().end(), sizes);
    ok = etsb_npy::write(path, *dtype, sizes, tensor.dim(), tensor.const_data_ptr(), tensor.nbytes());
  } else if (output.isInt()) {
    int64_t value = output.toInt();
    ok = etsb_npy::write(path, *by_type(ScalarType::Long), nullptr, 0, &value, sizeof(value));
  } else if (output.isDouble()) {
    double value = output.toDouble();
    ok = etsb_npy::write(path, *by_type(ScalarType::Double), nullptr, 0, &value, sizeof(value));
  } else if (output.isBool()) {
    bool value = output.toBool();
    ok = etsb_npy::write(path, *by_type(ScalarType::Bool), nullptr, 0, &value, sizeof(value));
  } else {
    return refuse("output " + std::to_string(index) + " is neither a tensor nor a scalar");
  }
  return ok || refuse("cannot write " + path + ": " + std::strerror(errno));
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

// Loads one method of the program, runs it and writes its outputs; 0, or 1
// after saying what went wrong.
int run_method(Program& program, const Options& options) {
  auto meta = program.method_meta(options.method_name.c_str());
  if (!meta.ok()) return fail(options.model + ": no method '" + options.method_name + "'");
  if (!check_interface(meta.get())) return 1;
  MethodMemory memory(static_cast<size_t>(options.max_memory_mb) << 20,
                      "--max-memory-mb " + std::to_string(options.max_memory_mb));
  size_t errors_before_load = g_logged_errors;
  if (!memory.plan(meta.get())) return 1;
#if defined(ETSB_KERNEL_TABLE_LIB)
  auto method = program.load_method(options.method_name.c_str(), memory.manager.get(), nullptr, nullptr, nullptr,
                                     etsb::ETSB_CAT(ETSB_KERNEL_TABLE_LIB, _kernels)());
#else
  auto method = program.load_method(options.method_name.c_str(), memory.manager.get());
#endif
  if (!method.ok()) return explain_load_failure(options, method.error());
  // ExecuTorch 1.5 lets a method whose operator it could not resolve (an
  // index out of range, a missing name) load when a later operator resolves,
  // leaving a null kernel to call: its logged error is what tells.
  if (g_logged_errors > errors_before_load) {
    print_logged_errors();
    return fail("cannot load method '" + options.method_name + "': the runtime reported errors while loading it");
  }
  std::vector<Array> arrays;
  if (!bind_unplanned_outputs(meta.get(), method.get(), memory)) return 1;
  if (!set_inputs(options, meta.get(), method.get(), arrays)) return 1;
  std::vector<double> times;
  long long runs = options.iterations > 0 ? options.iterations : 1;
  if (!execute(method.get(), arrays, runs, times) || !write_outputs(method.get(), options.output_dir)) return 1;
  if (options.iterations > 0) {
    std::sort(times.begin(), times.end());
    std::printf("median latency: %.6f ms over %lld runs\n", times[times.size() / 2], runs);
  }
  if (options.print_log) {
    for (const auto& line : g_log) std::fprintf(stderr, "runtime: %s\n", line.text.c_str());
  }
  return 0;
}

// Whether a method name is safe as a directory name (a corrupt program can
// name a method "../x"): letters, digits and underscores.
bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// --all-methods: each method of the program run on IN/<method>.input_<i>.npy
// into DIR/<method>/; the exit status is 1 if any failed.
int run_all_methods(Program& program, const Options& options) {
  int status = 0;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    auto name = program.get_method_name(i);
    if (!name.ok()) return fail(options.model + ": cannot read the name of method " + std::to_string(i));
    Options one = options;
    one.method_name = name.get();
    if (!plain_name(one.method_name)) {
      status = fail(options.model + ": method " + std::to_string(i) + " has a name unfit for a directory");
      continue;
    }
    auto meta = program.method_meta(name.get());
    if (!meta.ok()) return fail(options.model + ": no method '" + one.method_name + "'");
    one.output_dir = options.output_dir + "/" + one.method_name;
    one.inputs_text.clear();
    for (size_t k = 0; k < meta->num_inputs(); ++k) {
      one.inputs_text += (k ? "," : "") + options.inputs_dir + "/" + one.method_name + ".input_" + std::to_string(k) +
                         ".npy";
    }
    one.has_inputs = true;
    if (run_method(program, one) != 0) status = fail("method '" + one.method_name + "' failed");
  }
  return status;
}

// --threads: resizes ExecuTorch's thread pool when the process has one. It
// lives in libexecutorch_threadpool.so, which only backends and threaded
// kernels bring in, and whose header the runtime wheel does not ship: so it is
// looked up by its (Itanium ABI) symbol names rather than linked. False, after
// saying why, when there is no pool and more than one thread is asked for.
bool set_threads(long long threads) {
  void* get_pool = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool14get_threadpoolEv");
  void* reset = dlsym(RTLD_DEFAULT, "_ZN10executorch9extension10threadpool10ThreadPool24_unsafe_reset_threadpoolEj");
  if (get_pool == nullptr || reset == nullptr) {
    if (threads == 1) return true;
    return refuse("--threads " + std::to_string(threads) + ": this binary links no thread pool (no backend or kernel "
                  "library that uses one): its kernels run on the calling thread");
  }
  void* pool = reinterpret_cast<void* (*)()>(get_pool)();
  // A member function called with its object as the first argument (the Itanium C++ ABI).
  if (pool == nullptr || !reinterpret_cast<bool (*)(void*, uint32_t)>(reset)(pool, static_cast<uint32_t>(threads)))
    return refuse("--threads " + std::to_string(threads) + ": the thread pool could not be resized");
  return true;
}

// Loads the program, runs the method (or every method) and writes the
// outputs; the process's exit status.
int run(const Options& options) {
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(keep_log_message, __FILE__));
  executorch::runtime::runtime_init();
  if (options.threads > 0 && !set_threads(options.threads)) return 2;
  if (!register_kernels()) return 1;
  File model;
  size_t model_size;
  std::string why;
  if (!open_regular(options.model, model, model_size, why)) return fail(options.model + ": " + why);
  // The program is read into memory of its own, not mapped read-only: a
  // corrupt program can place an input or an output in its constant data,
  // which the method then writes.
  auto loader = executorch::extension::FileDataLoader::from(options.model.c_str());
  if (!loader.ok()) return fail(options.model + ": cannot open (" + error_name(loader.error()) + ")");
  // Full verification: every offset and size in the file is checked before it is followed.
  auto program = Program::load(&loader.get(), Program::Verification::InternalConsistency);
  if (!program.ok()) return fail(options.model + ": not a valid program (" + error_name(program.error()) + ")");
  return options.all_methods ? run_all_methods(program.get(), options) : run_method(program.get(), options);
}

}  // namespace

#if !defined(ETSB_RUNNER_NO_MAIN)  // the fuzz targets call run() themselves
// --list-kernels: the registered kernels' operator names, one a line (an
// operator with several kernel keys appears once per key), after registering
// them the way the binary was built to.
int list_kernels() {
  executorch::runtime::runtime_init();
  if (!register_kernels()) return 1;
  for (const auto& kernel : executorch::ET_RUNTIME_NAMESPACE::get_registered_kernels()) {
    if (std::printf("%s\n", kernel.name_) < 0) return 1;
  }
  return 0;
}

// --list-backends: the ids of the backends registered in this process (by the
// backend libraries the binary links), one a line.
int list_backends() {
  executorch::runtime::runtime_init();
  size_t count = executorch::ET_RUNTIME_NAMESPACE::get_num_registered_backends();
  for (size_t i = 0; i < count; ++i) {
    auto name = executorch::ET_RUNTIME_NAMESPACE::get_backend_name(i);
    if (name.ok() && std::printf("%s\n", name.get()) < 0) return 1;
  }
  return 0;
}

int main(int argc, char** argv) {
  Options options;
  if (!parse_options(argc, argv, options)) return 2;
  if (options.help) return std::printf(kUsage, argv[0], argv[0]) < 0;
  if (options.list_kernels) return list_kernels();
  if (options.list_backends) return list_backends();
  // The last guard: the runner allocates only what it has checked, but the
  // C++ library reports a failed allocation by throwing.
  try {
    return run(options);
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  }
}
#endif
