// The runner's command line: its flags (kUsage, printed by --help), the
// Options they set, and their parser, which checks each value and the flags'
// combinations and says what is wrong (runner.cpp prints it and exits with 2).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace etsb_runner {

// The items of a comma-separated list; false if one is empty ("a.npy,,b.npy").
inline bool split_list(const std::string& text, std::vector<std::string>& items) {
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    size_t end = std::min(text.find(',', start), text.size());
    if (end == start) return false;
    items.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return true;
}

// The most tokens a prompt or a generation may hold.
constexpr long long kMaxTokens = 1000000;

// The token ids of --prompt ("5,17,3": whole numbers from 0 to 2^31 - 1);
// false, and `why`, if one is not.
inline bool parse_prompt(const std::string& text, std::vector<int64_t>& ids, std::string& why) {
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, end - start);
    if (item.empty() || item.size() > 10 || item.find_first_not_of("0123456789") != std::string::npos ||
        std::strtoll(item.c_str(), nullptr, 10) > INT32_MAX)
      return why = "--prompt takes token ids from 0 to 2147483647, comma-separated, not '" + text + "'", false;
    ids.push_back(std::strtoll(item.c_str(), nullptr, 10));
    if (static_cast<long long>(ids.size()) > kMaxTokens) return why = "--prompt has too many tokens", false;
    start = end + 1;
  }
  return true;
}

// The text of --help (a printf format: the program name, four times).
inline const char kUsage[] =
    "usage: %s --model M.pte [--method NAME] --inputs a.npy,... --output-dir DIR\n"
    "          [--iterations N] [--profile FILE] [--threads N] [--max-memory-mb N] [--log]\n"
    "       %s --model M.pte,... --all-methods --inputs-dir IN,... --output-dir DIR,... [--max-memory-mb N] [--log]\n"
    "       %s --model M.pte [--method NAME] --steps IN --output-dir DIR [--threads N] [--max-memory-mb N] [--log]\n"
    "       %s --model M.pte [--method NAME] --prompt IDS --generate N [--threads N] [--max-memory-mb N] [--log]\n"
    "\n"
    "Runs a method of an ExecuTorch program with this binary's kernels and writes\n"
    "its outputs as DIR/output_<i>.npy.\n"
    "\n"
    "  --model M.pte       the program\n"
    "  --method NAME       the method to run (default: forward)\n"
    "  --inputs LIST       the method's inputs, one .npy per input, comma-separated\n"
    "  --output-dir DIR    where the outputs go (created)\n"
    "  --iterations N      run N times (1 to 1000000000) and print the median latency\n"
    "  --profile FILE      time each instruction of the method (kernel and delegate\n"
    "                      calls) over its runs, the first of several left out, and write\n"
    "                      FILE (JSON, tools/runner/profile.h)\n"
    "  --all-methods       run every method of the program in turn, method M reading\n"
    "                      IN/M.input_<i>.npy and writing DIR/M/output_<i>.npy; a failed\n"
    "                      method is reported and the others still run. --model, --inputs-dir\n"
    "                      and --output-dir may list several programs (comma-separated, as\n"
    "                      many of each), run one after the other in this process\n"
    "  --inputs-dir IN     where --all-methods finds the inputs\n"
    "  --steps IN          run the method once per step in one process, its state (mutable\n"
    "                      buffers: a decoder's KV cache) kept from step to step: step k\n"
    "                      reads IN/step_<k>/input_<i>.npy and writes DIR/step_<k>/output_<i>.npy\n"
    "                      (steps step_0 to step_<n-1>; every input is read before the first)\n"
    "  --prompt IDS        greedy generation with an LLM decoder, method(tokens [1, 1] int64,\n"
    "  --generate N        input_pos [1] int64) -> Float logits, in one process (its KV cache\n"
    "                      kept): the prompt's token ids (comma-separated) fed a token at a\n"
    "                      time, then N (0 to 1000000) tokens, each the previous step's most\n"
    "                      likely; prints 'tokens: ' and the prompt's and new ids\n"
    "  --threads N         the size of ExecuTorch's thread pool (1 to 1024; default 1),\n"
    "                      used by backends such as XNNPACK and by etsb's kernels (large\n"
    "                      matrix products and convolutions; outputs are the same\n"
    "                      whatever N); refused above 1 when the binary links no thread\n"
    "                      pool (its kernels run on the calling thread)\n"
    "  --max-memory-mb N   the memory a method may hold at once, in MB (default 4096): its\n"
    "                      planned memory, the runtime's allocations and the kernels'\n"
    "                      scratch; a method whose planned memory exceeds it is refused,\n"
    "                      and scratch it refuses is counted in a warning\n"
    "  --log               print the runtime's log after the run\n"
    "  --list-kernels      print the name of every registered kernel, one a line, and exit\n"
    "  --list-backends     print the id of every registered backend, one a line, and exit\n"
    "  --help              print this and exit\n"
    "\n"
    "Exit status: 0 on success, 1 if the run failed, 2 for a bad command line.\n";

// The command line.
struct Options {
  std::string model, method_name = "forward", inputs_text, output_dir, inputs_dir, steps_dir, prompt_text, profile;
  long long iterations = 0;
  long long generate = -1;  // -1: no --generate
  std::vector<int64_t> prompt;  // --prompt's token ids
  // --all-methods's programs: program k is models[k], read from inputs_dirs[k], written to output_dirs[k].
  std::vector<std::string> models, inputs_dirs, output_dirs;
  long long max_memory_mb = 4096;
  long long threads = 1;  // one thread unless asked: the same speed on any machine
  bool has_inputs = false, print_log = false, help = false, list_kernels = false, list_backends = false,
       all_methods = false;
};

// A whole decimal number from `low` to `high`, or false.
inline bool parse_count(const std::string& text, long long low, long long high, long long& value) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  value = std::strtoll(text.c_str(), nullptr, 10);
  return value >= low && value <= high;
}

// Stores the value of `flag`; false, and `why`, if the flag is unknown or its
// value is not what it takes.
inline bool set_option(const std::string& flag, const std::string& value, Options& options, std::string& why) {
  std::string* text = flag == "--model" ? &options.model : flag == "--method" ? &options.method_name
                    : flag == "--inputs" ? &options.inputs_text : flag == "--output-dir" ? &options.output_dir
                    : flag == "--inputs-dir" ? &options.inputs_dir : flag == "--profile" ? &options.profile
                    : flag == "--steps" ? &options.steps_dir : flag == "--prompt" ? &options.prompt_text
                    : nullptr;
  if (text != nullptr) {
    if (value.empty()) return why = flag + " needs a non-empty value", false;
    *text = value;
    options.has_inputs = options.has_inputs || flag == "--inputs";
    return true;
  }
  if (flag == "--iterations" && !parse_count(value, 1, 1000000000, options.iterations))
    return why = "--iterations takes a whole number from 1 to 1000000000, not '" + value + "'", false;
  if (flag == "--max-memory-mb" && !parse_count(value, 1, 1 << 30, options.max_memory_mb))
    return why = "--max-memory-mb takes a whole number of megabytes from 1 to 1073741824, not '" + value + "'",
           false;
  if (flag == "--threads" && !parse_count(value, 1, 1024, options.threads))
    return why = "--threads takes a whole number from 1 to 1024, not '" + value + "'", false;
  if (flag == "--generate" && !parse_count(value, 0, 1000000, options.generate))
    return why = "--generate takes a whole number from 0 to 1000000, not '" + value + "'", false;
  if (flag != "--iterations" && flag != "--max-memory-mb" && flag != "--threads" && flag != "--generate")
    return why = "unknown flag " + flag + " (see --help)", false;
  return true;
}

// --all-methods's lists of programs, input and output directories, split
// into `options`; false, and `why`, if one has an empty entry or their
// lengths differ.
inline bool split_programs(Options& options, std::string& why) {
  const char* flags[] = {"--model", "--inputs-dir", "--output-dir"};
  const std::string* texts[] = {&options.model, &options.inputs_dir, &options.output_dir};
  std::vector<std::string>* lists[] = {&options.models, &options.inputs_dirs, &options.output_dirs};
  for (int i = 0; i < 3; ++i) {
    if (!split_list(*texts[i], *lists[i]))
      return why = std::string(flags[i]) + " has an empty entry: " + *texts[i], false;
  }
  if (options.inputs_dirs.size() != options.models.size() || options.output_dirs.size() != options.models.size())
    return why = "--all-methods takes as many --inputs-dir and --output-dir entries as --model ones", false;
  return true;
}

// Reads argv into `options`; false, and `why`, on a bad command line.
inline bool parse_options(int argc, char** argv, Options& options, std::string& why) {
  std::vector<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") return options.help = true;
    if (flag == "--list-kernels") return options.list_kernels = true;
    if (flag == "--list-backends") return options.list_backends = true;
    if (std::find(seen.begin(), seen.end(), flag) != seen.end()) return why = flag + " given twice", false;
    seen.push_back(flag);
    if (flag == "--log" || flag == "--all-methods") {
      (flag == "--log" ? options.print_log : options.all_methods) = true;
      continue;
    }
    if (flag.rfind("--", 0) != 0) return why = "unexpected argument '" + flag + "' (see --help)", false;
    if (i + 1 >= argc) return why = "missing value after " + flag, false;
    if (!set_option(flag, argv[++i], options, why)) return false;
  }
  if (options.prompt_text.empty() != (options.generate < 0))
    return why = "--prompt and --generate go together", false;
  if (!options.prompt_text.empty()) {
    if (!parse_prompt(options.prompt_text, options.prompt, why)) return false;
    if (options.model.empty()) return why = "--model is required", false;
    if (options.has_inputs || options.iterations > 0 || options.all_methods || !options.steps_dir.empty() ||
        !options.output_dir.empty() || !options.profile.empty())
      return why = "--prompt feeds the method its own inputs and prints the tokens: drop --inputs, --iterations, "
                   "--all-methods, --steps, --profile and --output-dir",
             false;
    return true;
  }
  if (options.model.empty() || options.output_dir.empty()) return why = "--model and --output-dir are required", false;
  bool one_method = std::find(seen.begin(), seen.end(), "--method") != seen.end() || options.has_inputs ||
                    options.iterations > 0;
  if (options.all_methods && one_method)
    return why = "--all-methods runs every method on its own inputs: drop --method, --inputs and --iterations", false;
  if (!options.steps_dir.empty() && (options.all_methods || options.has_inputs || options.iterations > 0 ||
                                     !options.profile.empty()))
    return why = "--steps reads each step's inputs from its directory: drop --inputs, --iterations, --profile and "
                 "--all-methods",
           false;
  if (options.all_methods && !options.profile.empty())
    return why = "--profile times one method: it does not go with --all-methods", false;
  if (options.all_methods != !options.inputs_dir.empty())
    return why = options.all_methods ? "--all-methods needs --inputs-dir" : "--inputs-dir goes with --all-methods",
           false;
  return !options.all_methods || split_programs(options, why);
}

}  // namespace etsb_runner
