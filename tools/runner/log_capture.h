// The runtime's log, captured instead of printed: a run that works stays
// quiet, and a failure is explained in the runner's own words, the runtime's
// error lines after them (--log prints the whole log after a run). Also what
// the log tells: the kernels the runtime looked up and did not find.
//
// keep_log_message is the platform's log hook (runner.cpp registers it with
// the runtime's PAL). The log is bounded: a hostile program cannot make it
// grow without limit.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <executorch/runtime/platform/platform.h>

#include "npy.h"

namespace etsb_runner {

struct LogLine {
  et_pal_log_level_t level;
  std::string text;
};
// The lines kept.
inline std::vector<LogLine> g_log;
// Lines kept at most.
constexpr size_t kMaxLogLines = 10000;
// Errors the runtime logged, kept or not.
inline size_t g_logged_errors = 0;

inline void keep_log_message(et_timestamp_t, et_pal_log_level_t level, const char*, const char*, size_t,
                             const char* message, size_t length) {
  if (level == kError || level == kFatal) ++g_logged_errors;
  if (g_log.size() >= kMaxLogLines) return;
  std::string text(message, std::min<size_t>(length, 1000));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  g_log.push_back({level, text});
}

// The error lines kept, after a failure has been explained.
inline void print_logged_errors() {
  for (const auto& line : g_log) {
    if (line.level == kError || line.level == kFatal) std::fprintf(stderr, "  runtime: %s\n", line.text.c_str());
  }
}

// Every line kept (--log).
inline void print_log() {
  for (const auto& line : g_log) std::fprintf(stderr, "runtime: %s\n", line.text.c_str());
}

// "Float 4-D contiguous" for dtype 6 and dim order 0,1,2,3 (as etsb's build-time messages say it).
inline std::string describe_tensor(int dtype, const std::vector<int>& order) {
  const etsb_npy::DtypeInfo* info = etsb_npy::by_type(static_cast<executorch::aten::ScalarType>(dtype));
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
inline std::vector<std::string> missing_kernels() {
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

}  // namespace etsb_runner
