// The main of every etsb model binary: load a .pte with ExecuTorch's runtime,
// feed .npy inputs, run a method, write its outputs as .npy.
//
//   BIN --model M.pte [--method forward] --inputs a.npy,b.npy --output-dir D [--iterations N] [--profile F]
//       [--threads N] [--log]
//   BIN --model M.pte [--method forward] --steps IN --output-dir D   (one process, state kept across steps)
//   BIN --model M.pte --prompt 5,17,3 --generate N                  (greedy decoding, prints the tokens)
//
// The runtime's log is kept, not printed: --log prints it after a run, and a
// failure prints its errors (a missing kernel is named with its key).
//
// This file is the run's flow and main; its parts are headers beside it:
// options.h (the command line), memory_budget.h (the memory a method may
// take), method_checks.h (what the runtime checks only when asked),
// log_capture.h (the runtime's log, kept), files.h (the program and
// the .npy inputs read, the outputs written), program_loader.h and
// huge_pages.h (the program's segments and the planned arenas, on huge pages
// where the system has them), npy.h (the .npy format) and
// steps.h (the step directories of --steps), generate.h (--prompt and
// --generate: greedy generation with an LLM decoder), threads.h (--threads)
// and profile.h (--profile: the time of each instruction, through the
// runtime's event tracer hooks).
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
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <executorch/runtime/backend/interface.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/platform/runtime.h>

#include "files.h"
#include "generate.h"
#include "log_capture.h"
#include "memory_budget.h"
#include "method_checks.h"
#include "npy.h"
#include "options.h"
#include "profile.h"
#include "program_loader.h"
#include "steps.h"
#include "threads.h"

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

// The --inputs list, read and checked against the method (files.h).
bool read_listed_inputs(const Options& options, const MethodMeta& meta, std::vector<Array>& arrays) {
  std::vector<std::string> input_paths;
  if (!split_list(options.inputs_text, input_paths)) return refuse("--inputs has an empty entry: " + options.inputs_text);
  if (!options.has_inputs && meta.num_inputs() > 0) return refuse("--inputs is required");
  std::string why;
  return read_inputs(input_paths, meta, arrays, why) || refuse(why);
}

// Runs the method `runs` times, each with its inputs set again (planned memory
// may reuse an input's buffer); the time of each run in `times`.
bool execute(Method& method, std::vector<Array>& arrays, long long runs, std::vector<double>& times) {
  for (long long run = 0; run < runs; ++run) {
    for (size_t i = 0; i < arrays.size(); ++i) {
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

// Runs a loaded method on the --inputs (--iterations times) and writes its
// outputs and, with --profile, the time of each instruction that `profile`
// (the tracer the method was loaded with) took, to `profile_file`; 0, or 1
// after saying what went wrong.
int run_once(Method& method, const MethodMeta& meta, const Options& options, Profile& profile,
             ProfileFile& profile_file) {
  std::vector<Array> arrays;
  if (!read_listed_inputs(options, meta, arrays)) return 1;
  std::vector<double> times;
  const bool profiling = !options.profile.empty();
  long long runs = options.iterations > 0 ? options.iterations : 1;
  // With --profile, the first of several runs (caches and pages warming up)
  // is left out of the profile; the median latency counts every run.
  long long warm_up = profiling && runs > 1 ? 1 : 0;
  if (!execute(method, arrays, warm_up, times)) return 1;
  profile.clear();
  if (!execute(method, arrays, runs - warm_up, times)) return 1;
  std::string why;
  if (!write_outputs(method, options.output_dir, why)) return fail(why);
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

// --steps: runs a loaded method once per step directory, in order, its
// mutable buffers kept between steps, writing DIR/step_<k>/output_<i>.npy.
// Every step's inputs are read and checked before the first runs, so a bad
// input writes nothing.
int run_steps(Method& method, const MethodMeta& meta, const Options& options) {
  std::vector<std::string> steps;
  std::string why;
  if (!step_directories(options.steps_dir, steps, why)) return fail(why);
  std::vector<std::vector<Array>> inputs(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    std::vector<std::string> paths;
    for (size_t i = 0; i < meta.num_inputs(); ++i) paths.push_back(steps[k] + "/input_" + std::to_string(i) + ".npy");
    if (!read_inputs(paths, meta, inputs[k], why)) return fail(why);  // the message names the step's file
  }
  for (size_t k = 0; k < steps.size(); ++k) {
    std::vector<double> times;
    if (!execute(method, inputs[k], 1, times)) return fail("step " + std::to_string(k) + " failed");
    if (!write_outputs(method, options.output_dir + "/step_" + std::to_string(k), why)) return fail(why);
  }
  std::printf("steps: %zu\n", steps.size());
  if (options.print_log) print_log();
  return 0;
}

// --prompt and --generate: the prompt stepped through a loaded decoder, then
// greedy tokens (generate.h); prints "tokens: " and every id.
int run_generation(Method& method, const MethodMeta& meta, const Options& options) {
  std::vector<int64_t> tokens;
  std::string why;
  if (!check_decoder(meta, why)) return fail(why);
  if (!generate(method, options.prompt, options.generate, tokens, why)) {
    print_logged_errors();
    return fail(why);
  }
  std::string line = "tokens:";
  for (int64_t id : tokens) line += " " + std::to_string(id);
  std::printf("%s\n", line.c_str());
  if (options.print_log) print_log();
  return 0;
}

// Says on stderr how many of the kernels' scratch requests the budget
// refused: a kernel without scratch takes a slower path (or fails), which
// the outputs alone do not show.
void warn_of_refused_scratch(const MethodMemory& memory) {
  const size_t refused = memory.temp_allocator.refused();
  if (refused == 0) return;
  std::fprintf(stderr,
               "warning: %s refused %zu of the kernels' scratch requests (the largest %zu bytes): those kernels "
               "ran without scratch, on a slower path; allow the method more memory\n",
               memory.limit_flag.c_str(), refused, memory.temp_allocator.largest_refused());
}

// Loads one method of the program, runs it and writes its outputs; 0, or 1
// after saying what went wrong.
int run_method(Program& program, const Options& options) {
  auto meta = program.method_meta(options.method_name.c_str());
  if (!meta.ok()) return fail(options.model + ": no method '" + options.method_name + "'");
  std::string why;
  if (!check_interface(meta.get(), why)) return fail(why);
  MethodMemory memory(static_cast<size_t>(options.max_memory_mb) << 20,
                      "--max-memory-mb " + std::to_string(options.max_memory_mb));
  size_t errors_before_load = g_logged_errors;
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
  if (!bind_unplanned_outputs(meta.get(), method.get(), memory, why)) return fail(why);
  const int status = !options.steps_dir.empty()     ? run_steps(method.get(), meta.get(), options)
                     : !options.prompt_text.empty() ? run_generation(method.get(), meta.get(), options)
                                                    : run_once(method.get(), meta.get(), options, profile, profile_file);
  warn_of_refused_scratch(memory);
  return status;
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

// Loads one program, runs the method (or every method) and writes the
// outputs; 0, or 1 after saying what went wrong.
int run_program(const Options& options) {
  std::string why;
  File model;
  size_t model_size;
  if (!open_regular(options.model, model, model_size, why)) return fail(options.model + ": " + why);
  // The program's segments are read into memory of its own (program_loader.h), on huge pages where there are some.
  ProgramLoader loader(model.fd, model_size);
  // Full verification: every offset and size in the file is checked before it is followed.
  auto program = Program::load(&loader, Program::Verification::InternalConsistency);
  if (!program.ok()) return fail(options.model + ": not a valid program (" + error_name(program.error()) + ")");
  return options.all_methods ? run_all_methods(program.get(), options) : run_method(program.get(), options);
}

// Runs the program (or each of --all-methods's programs, in turn: one that
// fails does not stop the others, and `options` names the last one after);
// the process's exit status.
int run(Options& options) {
  executorch::runtime::register_pal(executorch::runtime::PalImpl::create(keep_log_message, __FILE__));
  executorch::runtime::runtime_init();
  std::string why;
  if (!set_threads(options.threads, why)) {
    fail(why);
    return 2;
  }
  if (!register_kernels()) return 1;
  if (!options.all_methods) return run_program(options);
  int status = 0;
  for (size_t k = 0; k < options.models.size(); ++k) {
    options.model = options.models[k], options.inputs_dir = options.inputs_dirs[k];
    options.output_dir = options.output_dirs[k];
    status = run_program(options) != 0 ? 1 : status;
  }
  return status;
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
  if (options.help) return std::printf(kUsage, argv[0], argv[0], argv[0], argv[0]) < 0;
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
