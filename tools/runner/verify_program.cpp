// The build-time check of a program to embed in a deploy binary (etsb
// deploy-source --embed runs it on the host, whatever the target): every check
// the file-reading deploy runner (deploy.cpp) makes at run time, made here on
// the same bytes, with ExecuTorch's runtime. An embedded program skips them at
// run time (its runner loads it with Verification::Minimal and no checks of
// its own, to stay small), so a program that would fail one of them must not
// be embedded: without them, a corrupt program can crash the binary.
//
//   verify_program MODEL.pte [INPUT_BYTES ...]
//
// INPUT_BYTES: the size of each input to be embedded beside the program, in
// order (the method must take exactly these). On success it prints, for the
// first method (the one the runner runs), `planned: S ...`, the sizes of its
// planned buffers as the runtime reads them, and exits 0. Otherwise it prints
// `error: WHAT` on stdout and exits 1 (2 for misuse). The runtime's own log
// goes to stderr.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>

#include <executorch/extension/data_loader/buffer_data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include "program_check.h"

using executorch::runtime::Error;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Result;
using executorch::runtime::Tag;

namespace {

// The deploy runner's limits (deploy.cpp): a method beyond them is refused there.
constexpr size_t kMaxPlannedBuffers = 16;
constexpr size_t kMaxInputs = 64;
constexpr size_t kMaxDims = 16;
// Program files larger than this are not read (no board or address space embeds one).
constexpr off_t kMaxProgramBytes = off_t{1} << 31;

int refuse(const char* what, Error error = Error::Ok) {
  if (error == Error::Ok) {
    std::printf("error: %s\n", what);
  } else {
    std::printf("error: %s (ExecuTorch error %u)\n", what, static_cast<unsigned>(error));
  }
  return 1;
}

// The file's bytes in `*data` (16-byte aligned, as the runtime reads tables in place), or a refusal.
int read_program(const char* path, uint8_t** data, size_t* size) {
  struct stat info;
  if (::stat(path, &info) != 0) return std::printf("error: cannot open the program file: %s\n", std::strerror(errno)), 1;
  if (!S_ISREG(info.st_mode)) return refuse("cannot read the program file: not a regular file");
  if (info.st_size == 0) return refuse("the program file is empty");
  if (info.st_size > kMaxProgramBytes) return refuse("the program file is larger than 2 GiB");
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return std::printf("error: cannot open the program file: %s\n", std::strerror(errno)), 1;
  *size = static_cast<size_t>(info.st_size);
  *data = static_cast<uint8_t*>(std::aligned_alloc(16, (*size + 15) / 16 * 16));
  bool read = *data != nullptr && std::fread(*data, 1, *size, file) == *size;
  std::fclose(file);
  return read ? 0 : refuse("cannot read the program file");
}

// What the deploy runner checks of a method read from a file before loading it.
int check_method(const Program& program, size_t index, bool first, int input_count, char** input_bytes) {
  Result<const char*> name = program.get_method_name(index);
  if (!name.ok()) return refuse("a method has no name", name.error());
  Result<MethodMeta> meta = program.method_meta(name.get());
  if (!meta.ok()) return refuse("cannot read a method's description", meta.error());
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    Result<Tag> tag = meta->input_tag(i);
    if (!tag.ok()) return refuse("a method names an input it does not have", tag.error());
  }
  for (size_t i = 0; i < meta->num_outputs(); ++i) {
    Result<Tag> tag = meta->output_tag(i);
    if (!tag.ok()) return refuse("a method names an output it does not have", tag.error());
  }
  const size_t buffers = meta->num_memory_planned_buffers();
  if (buffers > kMaxPlannedBuffers) return refuse("a method has more planned buffers than the deploy runner handles");
  for (size_t i = 0; i < buffers; ++i) {
    Result<int64_t> size = meta->memory_planned_buffer_size(i);
    if (!size.ok() || size.get() < 0) return refuse("a method's planned buffers are invalid");
  }
  if (!first) return 0;
  // The first method is the one the runner runs, on the inputs embedded beside it.
  const size_t inputs = meta->num_inputs();
  if (inputs > kMaxInputs) return refuse("the method takes more inputs than the deploy runner handles");
  if (static_cast<size_t>(input_count) != inputs) {
    return std::printf("error: the method takes %zu inputs; %d are embedded\n", inputs, input_count), 1;
  }
  for (size_t i = 0; i < inputs; ++i) {
    auto info = meta->input_tensor_meta(i);
    if (!info.ok()) return refuse("an input is not a tensor", info.error());
    if (info->sizes().size() > kMaxDims) return refuse("an input has too many dimensions");
    char* end = nullptr;
    unsigned long long given = std::strtoull(input_bytes[i], &end, 10);
    if (end == input_bytes[i] || *end != '\0') return std::printf("error: not a byte count: '%s'\n", input_bytes[i]), 2;
    if (given != info->nbytes()) {
      return std::printf("error: input %zu of the method takes %zu bytes; the embedded one holds %llu\n", i,
                         info->nbytes(), given), 1;
    }
  }
  std::printf("planned:");
  for (size_t i = 0; i < buffers; ++i) std::printf(" %" PRId64, meta->memory_planned_buffer_size(i).get());
  std::printf("\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return std::fputs("usage: verify_program MODEL.pte [INPUT_BYTES ...]\n", stderr), 2;
  executorch::runtime::runtime_init();
  uint8_t* data = nullptr;
  size_t size = 0;
  if (int status = read_program(argv[1], &data, &size)) return status;
  executorch::extension::BufferDataLoader loader(data, size);
  // As the file-reading deploy runner loads it: the whole flatbuffer verified.
  Result<Program> program = Program::load(&loader, Program::Verification::InternalConsistency);
  if (!program.ok()) return refuse("not a program this runtime can load", program.error());
  if (!etsb_program_check::kernel_calls_name_known_operators(data)) {
    return refuse("not a program this runtime can load: an operator without a name, or a kernel call naming one "
                  "the program does not have");
  }
  if (program->num_methods() == 0) return refuse("the program has no method");
  for (size_t i = 0; i < program->num_methods(); ++i) {
    if (int status = check_method(program.get(), i, i == 0, argc - 2, argv + 2)) return status;
  }
  std::free(data);
  return 0;
}
