// The deploy runner: the `main` of a model binary built to ship (`--config
// size`, or `embed_model = True`). It runs the program's first method once and
// prints its outputs; nothing more, so that it costs a few hundred bytes.
//
//   BIN MODEL.pte [INPUT.bin ...]     the program from a file (hosted platforms)
//   BIN                               the program (and inputs) embedded in BIN
//
// An input file holds the tensor's bytes as they lie in memory (little-endian,
// contiguous: numpy's `array.tofile(path)`), exactly as many as the method's
// input takes. Without input files the embedded inputs are used; a method that
// takes inputs and has none embedded is an error.
//
// Each output is printed as a line `output I: dtype D, sizes [S, ...], N bytes`
// followed by its bytes in hexadecimal, 32 to a line: exact, and printed
// without a float formatter (which would cost more than the runner itself).
//
// On a board (an M-profile core: platforms/cortex_m) built to count them
// (`--define etsb_count_instructions=yes`: a measurement, about 200 bytes of
// flash), the instructions the
// method's execution took are printed on stderr as `instructions: N`: the
// board's clock cycles in nanoseconds, which QEMU's `-icount shift=0` (the
// boards' emulator command) makes one per instruction (startup.cpp).
//
// Memory is static: the method's allocator, its planned buffers and kernels'
// scratch each come from an array of the generated deploy source
// (`etsb deploy-source`), sized from the program when the binary was built.
// No heap is used but what the file data loader and the C library take.
//
// Kernels are registered through etsb::register_model_kernels(), which the
// binary's generated registration library defines.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#if !ETSB_DEPLOY_EMBEDDED
#include <executorch/extension/data_loader/file_data_loader.h>
#if defined(__linux__)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "program_check.h"
#endif
#include "console.h"
#include "layout.h"
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "deploy.h"

using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::DataLoader;
using executorch::runtime::Error;
using executorch::runtime::FreeableBuffer;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Span;

namespace etsb {
Error register_model_kernels();
}

// Asked for with ETSB_COUNT_INSTRUCTIONS=1 (`--define etsb_count_instructions=yes`), on a board only.
#if defined(ETSB_COUNT_INSTRUCTIONS) && ETSB_COUNT_INSTRUCTIONS && defined(__ARM_ARCH_PROFILE) && \
    __ARM_ARCH_PROFILE == 'M'
#define ETSB_BOARD_COUNTS_INSTRUCTIONS 1
// platforms/cortex_m/startup.cpp: the instructions executed since reset, under QEMU's -icount shift=0.
extern "C" uint64_t etsb_board_instructions(void);
#else
#define ETSB_BOARD_COUNTS_INSTRUCTIONS 0
#endif

namespace {

// The most planned buffers and inputs a method may have here: far beyond real programs.
constexpr size_t kMaxPlannedBuffers = 16;
constexpr size_t kMaxInputs = 64;
constexpr size_t kMaxDims = 16;

using etsb_console::kErr;
using etsb_console::kOut;
using etsb_console::say;
using etsb_console::say_number;

// Prints `what` and the runtime's error code to stderr; the exit status.
int fail(const char* what, Error error = Error::Ok) {
  say(kErr, "error: ");
  say(kErr, what);
  if (error != Error::Ok) {
    say(kErr, " (ExecuTorch error ");
    say_number(kErr, static_cast<unsigned>(error));
    say(kErr, ")");
  }
  say(kErr, "\n");
  return 1;
}

// Hands out consecutive, aligned pieces of one static array.
struct Carver {
  uint8_t* next;
  uint8_t* end;
  uint8_t* take(size_t size) {
    uintptr_t at = (reinterpret_cast<uintptr_t>(next) + 15) & ~static_cast<uintptr_t>(15);
    uint8_t* piece = reinterpret_cast<uint8_t*>(at);
    if (piece > end || size > static_cast<size_t>(end - piece)) return nullptr;
    next = piece + size;
    return piece;
  }
};

void print_output(size_t index, const EValue& value) {
  say(kOut, "output ");
  say_number(kOut, index);
  if (!value.isTensor()) {
    say(kOut, ": not a tensor (tag ");
    say_number(kOut, static_cast<unsigned>(value.tag));
    say(kOut, ")\n");
    return;
  }
  const Tensor& tensor = value.toTensor();
  say(kOut, ": dtype ");
  say_number(kOut, static_cast<unsigned>(tensor.scalar_type()));
  say(kOut, ", sizes [");
  for (ssize_t d = 0; d < tensor.dim(); ++d) {
    if (d > 0) say(kOut, ", ");
    say_number(kOut, static_cast<unsigned long long>(tensor.size(d)));
  }
  say(kOut, "], ");
  // A channels-last dim order is said: the bytes follow it (layout.h: any other
  // dim order's data is row-major, as ExecuTorch's kernels write it).
  auto order = tensor.dim_order();
  if (etsb_layout::is_channels_last(order.data(), order.size())) {
    say(kOut, "dim order [");
    for (size_t d = 0; d < order.size(); ++d) {
      if (d > 0) say(kOut, ", ");
      say_number(kOut, static_cast<unsigned>(order[d]));
    }
    say(kOut, "], ");
  }
  say_number(kOut, tensor.nbytes());
  say(kOut, " bytes\n");
  static const char kHex[] = "0123456789abcdef";
  const uint8_t* bytes = static_cast<const uint8_t*>(tensor.const_data_ptr());
  char line[65];
  size_t used = 0;
  for (size_t i = 0; i < tensor.nbytes(); ++i) {
    line[used++] = kHex[bytes[i] >> 4];
    line[used++] = kHex[bytes[i] & 15];
    if (used == 64 || i + 1 == tensor.nbytes()) {
      line[used] = '\0';
      say(kOut, line);
      say(kOut, "\n");
      used = 0;
    }
  }
}

#if !ETSB_DEPLOY_EMBEDDED
// Whether `path` may be opened and read without waiting on a writer: a regular
// file, or one that does not open (the open that follows says so). A FIFO or a
// device is refused, naming `what`, for opening one would block until someone
// writes to it. (On Linux; a board's files are its semihosting host's.)
bool not_waited_on(const char* path, const char* what) {
#if defined(__linux__)
  int fd = ::open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return true;
  struct stat info;
  bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  ::close(fd);
  if (!regular) fail(what), say(kErr, path), say(kErr, ": not a regular file\n");
  return regular;
#else
  (void)path, (void)what;
  return true;
#endif
}

// Reads the input file `path` into `buffer`: exactly `size` bytes, or false after saying why.
bool read_input(const char* path, uint8_t* buffer, size_t size) {
  if (!not_waited_on(path, "cannot read an input file")) return false;
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return fail("cannot open an input file"), say(kErr, path), say(kErr, "\n"), false;
  size_t got = std::fread(buffer, 1, size, file);
  bool exact = got == size && std::fgetc(file) == EOF;
  std::fclose(file);
  if (!exact) {
    fail("an input file does not hold exactly the input's bytes"), say(kErr, path), say(kErr, ": the input takes ");
    say_number(kErr, size), say(kErr, " bytes\n");
  }
  return exact;
}
#endif

// Sets the method's inputs from the files in `paths` (or the embedded ones).
bool set_inputs(Method& method, const MethodMeta& meta, int count, char** paths, Carver& scratch) {
  size_t inputs = meta.num_inputs();
  if (inputs > kMaxInputs) return fail("the method takes more inputs than the deploy runner handles"), false;
  bool from_files = count > 0;
  if (from_files ? static_cast<size_t>(count) != inputs : inputs > 0 && etsb_deploy::kInputCount != inputs) {
    fail(from_files || etsb_deploy::kInputCount > 0 ? "the number of inputs is not the method's"
                                                    : "the method takes inputs: give one file for each (or embed them)");
    say(kErr, "the method takes ");
    say_number(kErr, inputs);
    say(kErr, "\n");
    return false;
  }
  for (size_t i = 0; i < inputs; ++i) {
    auto info = meta.input_tensor_meta(i);
    if (!info.ok()) return fail("an input is not a tensor", info.error()), false;
    size_t size = info->nbytes();
    void* data = nullptr;
#if !ETSB_DEPLOY_EMBEDDED
    if (from_files) {
      uint8_t* buffer = scratch.take(size);
      if (buffer == nullptr) {
        return fail("the planned pool has no room for the inputs: this binary was built for a smaller program"), false;
      }
      if (!read_input(paths[i], buffer, size)) return false;
      data = buffer;
    }
#else
    (void)paths;
    (void)scratch;
#endif
    if (!from_files) {
      if (etsb_deploy::kInputSizes[i] != size) return fail("an embedded input's size is not the method's"), false;
      data = const_cast<uint8_t*>(etsb_deploy::kInputs[i]);
    }
    // The tensor borrows the method's sizes and dim order; set_input copies the
    // data into planned memory (or points the input at it).
    if (info->sizes().size() > kMaxDims) return fail("an input has too many dimensions"), false;
    TensorImpl impl(info->scalar_type(), static_cast<ssize_t>(info->sizes().size()),
                    const_cast<TensorImpl::SizesType*>(info->sizes().data()), data,
                    const_cast<TensorImpl::DimOrderType*>(info->dim_order().data()));
    Error set = method.set_input(EValue(Tensor(&impl)), i);
    if (set != Error::Ok) return fail("an input was rejected", set), false;
  }
  return true;
}

#if !ETSB_DEPLOY_EMBEDDED
// The runtime checks the values a method names as its inputs and outputs only
// when asked here, and aborts when it later reads one that is not there.
bool inputs_and_outputs_exist(const MethodMeta& meta) {
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    Result<executorch::runtime::Tag> tag = meta.input_tag(i);
    if (!tag.ok()) return fail("the method names an input it does not have", tag.error()), false;
  }
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    Result<executorch::runtime::Tag> tag = meta.output_tag(i);
    if (!tag.ok()) return fail("the method names an output it does not have", tag.error()), false;
  }
  return true;
}
#endif

// Executes the method; on a board counting them, then prints the instructions it took on stderr.
Error execute(Method& method) {
#if ETSB_BOARD_COUNTS_INSTRUCTIONS
  const uint64_t before = etsb_board_instructions();
  Error executed = method.execute();
  const uint64_t instructions = etsb_board_instructions() - before;
  if (executed == Error::Ok) {
    say(kErr, "instructions: ");
    say_number(kErr, instructions);
    say(kErr, "\n");
  }
  return executed;
#else
  return method.execute();
#endif
}

// Runs the program `loader` reads; `whole`, when the program was read at run
// time, is all of its bytes, checked here once ExecuTorch's verifier accepts them.
int run(DataLoader& loader, const uint8_t* whole, int count, char** paths) {
  // A program read at run time is checked whole (ExecuTorch's flatbuffer
  // verifier): a corrupt file is refused, never a crash. One compiled into the
  // binary was read at build time, and skips it (and its code, in the size configuration).
  Result<Program> program =
      Program::load(&loader, ETSB_DEPLOY_EMBEDDED ? Program::Verification::Minimal
                                                  : Program::Verification::InternalConsistency);
  if (!program.ok()) return fail("not a program this runtime can load", program.error());
#if !ETSB_DEPLOY_EMBEDDED
  if (!etsb_program_check::kernel_calls_name_known_operators(whole))
    return fail("not a program this runtime can load: an operator without a name, or a kernel call naming one "
                "the program does not have");
#else
  (void)whole;
#endif
  Result<const char*> name = program->get_method_name(0);
  if (!name.ok()) return fail("the program has no method", name.error());
  Result<MethodMeta> meta = program->method_meta(name.get());
  if (!meta.ok()) return fail("cannot read the method's description", meta.error());
#if !ETSB_DEPLOY_EMBEDDED
  if (!inputs_and_outputs_exist(meta.get())) return 1;
#endif

  Carver planned_pool{etsb_deploy::planned_pool, etsb_deploy::planned_pool + etsb_deploy::kPlannedPoolSize};
  size_t buffers = meta->num_memory_planned_buffers();
  if (buffers > kMaxPlannedBuffers) return fail("the method has more planned buffers than the deploy runner handles");
  Span<uint8_t> spans[kMaxPlannedBuffers];
  for (size_t i = 0; i < buffers; ++i) {
    Result<int64_t> planned_size = meta->memory_planned_buffer_size(i);
    // (A program compiled in was read at build time: only one read at run time needs the check.)
    if (!ETSB_DEPLOY_EMBEDDED && (!planned_size.ok() || planned_size.get() < 0))
      return fail("the method's planned buffers are invalid");
    size_t size = static_cast<size_t>(planned_size.get());
    uint8_t* buffer = planned_pool.take(size);
    if (buffer == nullptr) {
      return fail("the planned memory pool is too small: this binary was built for a smaller program");
    }
    spans[i] = Span<uint8_t>(buffer, size);
  }
  HierarchicalAllocator planned({spans, buffers});
  MemoryAllocator method_allocator(etsb_deploy::kMethodPoolSize, etsb_deploy::method_pool);
  MemoryAllocator temp_allocator(etsb_deploy::kTempPoolSize, etsb_deploy::temp_pool);
  MemoryManager memory(&method_allocator, &planned, etsb_deploy::kTempPoolSize > 0 ? &temp_allocator : nullptr);
  Result<Method> method = program->load_method(name.get(), &memory);
  if (method.error() == Error::MemoryAllocationFailed)
    return fail("the method pool is too small for this program (method_pool_bytes)", method.error());
  // Only OperatorMissing means a kernel is missing; any other error is the program's, by its number.
  // (An embedded program's kernels were proven at build time: no text for it there.)
#if !ETSB_DEPLOY_EMBEDDED
  if (method.error() == Error::OperatorMissing)
    return fail("cannot load the method: it calls an operator this binary has no kernel for (OperatorMissing)",
                method.error());
#endif
  if (!method.ok()) return fail("cannot load the method", method.error());
  if (!set_inputs(method.get(), meta.get(), count, paths, planned_pool)) return 1;
  Error executed = execute(method.get());
  if (executed != Error::Ok) return fail("the method failed", executed);
  for (size_t i = 0; i < method->outputs_size(); ++i) print_output(i, method->get_output(i));
  return etsb_console::flush_output() ? 0 : fail("cannot write the outputs");
}

// The runner's work; main() then writes what standard output still holds.
int deploy_main(int argc, char** argv) {
  executorch::runtime::runtime_init();
  Error registered = etsb::register_model_kernels();
  if (registered != Error::Ok) return fail("cannot register the kernels", registered);
#if ETSB_DEPLOY_EMBEDDED
  if (argc > 1) {
    if (std::strcmp(argv[1], "--help") != 0) return fail("the program and its inputs are embedded: give no arguments"), 2;
    say(kOut, "usage: BIN   (runs the embedded program on its embedded inputs; prints the outputs)\n");
    return 0;
  }
  executorch::extension::BufferDataLoader loader(etsb_deploy::kProgram, etsb_deploy::kProgramSize);
  return run(loader, nullptr, 0, nullptr);
#else
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
    say(argc < 2 ? kErr : kOut, "usage: BIN MODEL.pte [INPUT.bin ...]   (prints the first method's outputs)\n");
    return argc < 2 ? 2 : 0;
  }
  if (!not_waited_on(argv[1], "cannot read the program file")) return 1;
  // The whole file at once: the program is read from these bytes, and checked in them.
  Result<executorch::extension::FileDataLoader> file = executorch::extension::FileDataLoader::from(argv[1]);
  Result<size_t> size = file.ok() ? file->size() : Result<size_t>(file.error());
  Result<FreeableBuffer> bytes = size.ok() ? file->load(0, size.get(), DataLoader::SegmentInfo(
                                                                           DataLoader::SegmentInfo::Type::Program))
                                           : Result<FreeableBuffer>(size.error());
  if (!bytes.ok()) {
    fail(bytes.error() == Error::MemoryAllocationFailed ? "the program file is larger than the heap can hold"
                                                        : "cannot read the program file",
         bytes.error());
    say(kErr, argv[1]);
    if (size.ok()) say(kErr, ": "), say_number(kErr, size.get()), say(kErr, " bytes");
    say(kErr, "\n");
    return 1;
  }
  executorch::extension::BufferDataLoader loader(bytes->data(), bytes->size());
  return run(loader, static_cast<const uint8_t*>(bytes->data()), argc - 2, argv + 2);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  int status = deploy_main(argc, argv);
  if (!etsb_console::flush_output() && status == 0) status = fail("cannot write the outputs");
  return status;
}
