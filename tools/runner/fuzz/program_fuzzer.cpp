// libFuzzer target: the runner's model loading and running, on any bytes as
// a .pte program, with every etsb portable kernel registered.
//
// Each input goes through the runner's own run(): the file written, loaded
// with full verification, its method's memory planned within a budget, its
// kernels resolved, inputs of zeros (shaped as the method says) set, the
// method run and its outputs written. The runner may refuse the program, and
// usually does; it must never crash, leak or overflow doing so.
#define ETSB_RUNNER_NO_MAIN
#include "../runner.cpp"

#include <executorch/extension/data_loader/buffer_data_loader.h>

#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Inputs larger than this are not written: the method is skipped.
constexpr size_t kMaxInputBytes = 1 << 20;

// A private directory for the files of one input, removed at exit (never
// destroyed itself, so the exit handler can still name it).
const std::string& work_dir() {
  static const std::string* dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/etsb-fuzz-XXXXXX";
    if (::mkdtemp(&pattern[0]) == nullptr) std::abort();
    return new std::string(pattern);
  }();
  return *dir;
}

void remove_tree(const std::string& path) {
  if (DIR* dir = ::opendir(path.c_str())) {
    while (dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name != "." && name != "..") remove_tree(path + "/" + name);
    }
    ::closedir(dir);
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

bool write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  bool written = size == 0 || std::fwrite(data, 1, size, file) == size;
  return std::fclose(file) == 0 && written;
}

// Writes a .npy of zeros for each input of the program's first method, as
// its metadata shapes them; the comma-separated paths, or false if an input
// is not a tensor of a dtype the runner reads, or is too large.
bool write_inputs(const uint8_t* data, size_t size, std::string& method_name, std::string& paths) {
  executorch::extension::BufferDataLoader loader(data, size);
  auto program = Program::load(&loader, Program::Verification::InternalConsistency);
  if (!program.ok() || program->num_methods() == 0) return false;
  auto name = program->get_method_name(0);
  if (!name.ok()) return false;
  method_name = name.get();
  auto meta = program->method_meta(name.get());
  if (!meta.ok()) return false;
  static uint8_t zeros[kMaxInputBytes];
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    auto info = meta->input_tensor_meta(i);
    if (!info.ok() || info->nbytes() > kMaxInputBytes || info->sizes().size() > etsb_npy::kMaxDims) return false;
    const etsb_npy::DtypeInfo* dtype = etsb_npy::by_type(info->scalar_type());
    if (dtype == nullptr) return false;
    std::string path = work_dir() + "/input_" + std::to_string(i) + ".npy";
    if (!etsb_npy::write(path, *dtype, info->sizes().data(), info->sizes().size(), zeros, info->nbytes())) return false;
    paths += (i ? "," : "") + path;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::atexit([] { remove_tree(work_dir()); });
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Options options;
  options.model = work_dir() + "/model.pte";
  options.output_dir = work_dir() + "/out";
  options.max_memory_mb = 256;
  options.has_inputs = true;
  if (!write_file(options.model, data, size)) std::abort();
  if (!write_inputs(data, size, options.method_name, options.inputs_text)) return 0;
  g_log.clear();
  run(options);
  return 0;
}
