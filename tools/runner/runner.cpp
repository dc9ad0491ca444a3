// The main of every etsb model binary: load a .pte with ExecuTorch's runtime,
// feed .npy inputs, run a method, write its outputs as .npy.
//
//   BIN --model M.pte [--method forward] --inputs a.npy,b.npy --output-dir D [--iterations N] [--profile F]
//       [--threads N] [--log]
//
// The runtime's log is kept, not printed: --log prints it after a run, and a
// failure prints its errors (a missing kernel is named with its key).
//
// This file is the run's flow and main; its parts are headers beside it:
// options.h (the command line), memory_budget.h (the memory a method may
// take), log_capture.h (the runtime's log, kept), files.h (the program and
// the .npy inputs read, the outputs written), npy.h (the .npy format) and
// profile.h (--profile: the time of each instruction, through the runtime's
// event tracer hooks).
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

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include "files.h"
#include "log_capture.h"
#include "memory_budget.h"
#include "npy.h"
#include "options.h"
#include "profile.h"

using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
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

// The runner's parts, one concern to a header (see the top of this file).
using namespace etsb_runner;

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

// Gives each tensor output the program planned no memory for (its caller is
// to provide it) a buffer; false after saying why it could not.
bool bind_unplanned_outputs(const MethodMeta& meta, Method& method, MethodMemory& memory) {
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto tag = meta.output_tag(i);
    if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) continue;
    auto info = meta.output_tensor_meta(i);
    if (!info.ok()) return refuse("output " + std::to_string(i) + " is invalid (" + error_name(info.error()) + ")");
    if (info->is_memory_planned()) continue;
    std::string why;
    uint8_t* data = memory.buffer(info->nbytes(), "output " + std::to_string(i), why);
    if (data == nullptr) return refuse(why);
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

// Runs the method's runs `first` to `end` - 1, each after the first with its
// inputs set again (planned memory may reuse an input's buffer); the time of
// each run in `times`.
bool execute(Method& method, std::vector<Array>& arrays, long long first, long long end, std::vector<double>& times) {
  for (long long run = first; run < end; ++run) {
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

// Loads one method of the program, runs it and writes its outputs; 0, or 1
// after saying what went wrong.
int run_method(Program& program, const Options& options) {
  auto meta = program.method_meta(options.method_name.c_str());
  if (!meta.ok()) return fail(options.model + ": no method '" + options.method_name + "'");
  if (!check_interface(meta.get())) return 1;
  MethodMemory memory(static_cast<size_t>(options.max_memory_mb) << 20,
                      "--max-memory-mb " + std::to_string(options.max_memory_mb));
  size_t errors_before_load = g_logged_errors;
  std::string why;
  if (!memory.plan(meta.get(), why)) return fail(why);
  bool profiling = !options.profile.empty();
  ProfileFile profile_file;
  if (profiling && !profile_file.open(options.profile, why)) return fail(why);
  // Sized before the method loads: the tracer allocates nothing while it runs.
  Profile profile(profiling ? meta->num_instructions() : 0);
  executorch::runtime::EventTracer* tracer = profiling ? &profile : nullptr;
#if defined(ETSB_KERNEL_TABLE_LIB)
  auto method = program.load_method(options.method_name.c_str(), memory.manager.get(), tracer, nullptr, nullptr,
                                     etsb::ETSB_CAT(ETSB_KERNEL_TABLE_LIB, _kernels)());
#else
  auto method = program.load_method(options.method_name.c_str(), memory.manager.get(), tracer);
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
  // With --profile, the first of several runs (caches and pages warming up)
  // is left out of the profile; the median latency counts every run.
  long long warm_up = profiling && runs > 1 ? 1 : 0;
  if (!execute(method.get(), arrays, 0, warm_up, times)) return 1;
  profile.clear();
  if (!execute(method.get(), arrays, warm_up, runs, times)) return 1;
  if (!write_outputs(method.get(), options.output_dir, why)) return fail(why);
  if (profiling && !profile_file.write(profile, options.method_name, {times.begin() + warm_up, times.end()}, why))
    return fail(why);
  // A runtime built without its event tracer hooks calls no tracer.
  if (profiling && !profile.traced())
    std::printf("profile: the runtime called no event tracer; %s times the whole method only\n",
                options.profile.c_str());
  if (options.iterations > 0) {
    std::sort(times.begin(), times.end());
    std::printf("median latency: %.6f ms over %lld runs\n", times[times.size() / 2], runs);
  }
  if (options.print_log) print_log();
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
  std::string why;
  if (!parse_options(argc, argv, options, why)) {
    fail(why);
    return 2;
  }
  if (options.help) return std::printf(kUsage, argv[0], argv[0]) < 0;
  if (options.list_kernels) return list_kernels();
  if (options.list_backends) return list_backends();
  // The last guard: the runner allocates only what it has checked, but the
  // C++ library reports a failed allocation by throwing (built without
  // exceptions, as in etsb's size configuration, it aborts instead).
#if defined(__cpp_exceptions)
  try {
    return run(options);
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  }
#else
  return run(options);
#endif
}
#endif
