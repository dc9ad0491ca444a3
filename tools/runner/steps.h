// --steps DIR: the step directories of a multi-step run. A program whose
// method keeps state in mutable buffers (an LLM decoder's KV cache) is run
// once per step in one process, step k reading DIR/step_<k>/input_<i>.npy.
// The steps are step_0 .. step_<n-1>, each a directory, none missing and
// nothing else named step_*; each refusal says why.
#pragma once

#include <dirent.h>
#include <sys/stat.h>

#include <string>
#include <vector>

namespace etsb_runner {

// The most steps one run takes (a decoder's context is far shorter).
constexpr long long kMaxSteps = 100000;

// k for a name "step_<k>" (decimal, no sign, no leading zero); -1 otherwise.
inline long long step_number(const std::string& name) {
  if (name.rfind("step_", 0) != 0) return -1;
  const std::string digits = name.substr(5);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos ||
      (digits.size() > 1 && digits[0] == '0'))
    return -1;
  return std::stoll(digits);
}

// The step directories of `dir`, in order: DIR/step_0 .. DIR/step_<n-1>;
// false, and `why`, if `dir` is not a directory, has no step, a step that is
// not a directory, a gap, or an entry step_* that is not a step's name.
inline bool step_directories(const std::string& dir, std::vector<std::string>& steps, std::string& why) {
  DIR* listing = opendir(dir.c_str());
  if (listing == nullptr) return why = "--steps " + dir + ": not a readable directory", false;
  long long count = 0, highest = -1;
  std::string bad;
  while (dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.rfind("step_", 0) != 0) continue;
    const long long k = step_number(name);
    if (k < 0 || k >= kMaxSteps) {
      bad = name;
      break;
    }
    ++count;
    highest = k > highest ? k : highest;
  }
  closedir(listing);
  if (!bad.empty())
    return why = "--steps " + dir + ": '" + bad + "' is not step_<k> with k from 0 to " +
                 std::to_string(kMaxSteps - 1), false;
  if (count == 0) return why = "--steps " + dir + ": no step_0 directory", false;
  if (highest + 1 != count)
    return why = "--steps " + dir + ": the steps are not step_0 to step_<n-1> without a gap", false;
  for (long long k = 0; k < count; ++k) {
    const std::string path = dir + "/step_" + std::to_string(k);
    struct stat info;
    if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return why = path + ": not a directory", false;
    steps.push_back(path);
  }
  return true;
}

}  // namespace etsb_runner
