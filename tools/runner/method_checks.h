// What the runner checks of a method that ExecuTorch's runtime checks only when
// asked (and otherwise aborts on, or leaves to its caller), and the runtime's
// errors by name. Each check answers whether the method passed, with `why`.
#pragma once

#include <cstdio>
#include <cstring>
#include <string>

#include <executorch/runtime/core/error.h>
#include <executorch/runtime/core/tag.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>

#include "memory_budget.h"

namespace etsb_runner {

// "InvalidProgram (0x23)": the runtime's name for an error, and its code.
inline std::string error_name(executorch::runtime::Error error) {
  const char* name = executorch::runtime::to_string(error);
  if (std::strncmp(name, "Error::", 7) == 0) name += 7;
  char code[16];
  std::snprintf(code, sizeof(code), " (0x%x)", static_cast<unsigned>(error));
  return name + std::string(code);
}

// Whether the method's inputs and outputs name values it has: the runtime
// checks them only when asked through MethodMeta, and aborts when the method
// reads an output that is not there.
inline bool check_interface(const executorch::runtime::MethodMeta& meta, std::string& why) {
  for (size_t i = 0; i < meta.num_inputs(); ++i) {
    auto tag = meta.input_tag(i);
    if (!tag.ok())
      return why = "the method's input " + std::to_string(i) + " is invalid (" + error_name(tag.error()) + ")", false;
  }
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto tag = meta.output_tag(i);
    if (!tag.ok())
      return why = "the method's output " + std::to_string(i) + " is invalid (" + error_name(tag.error()) + ")", false;
  }
  return true;
}

// Gives each tensor output the program planned no memory for (its caller is
// to provide it) a buffer from `memory`; false, and `why`, if it cannot.
inline bool bind_unplanned_outputs(const executorch::runtime::MethodMeta& meta, executorch::runtime::Method& method,
                                   MethodMemory& memory, std::string& why) {
  for (size_t i = 0; i < meta.num_outputs(); ++i) {
    auto tag = meta.output_tag(i);
    if (!tag.ok() || tag.get() != executorch::runtime::Tag::Tensor) continue;
    auto info = meta.output_tensor_meta(i);
    if (!info.ok()) return why = "output " + std::to_string(i) + " is invalid (" + error_name(info.error()) + ")", false;
    if (info->is_memory_planned()) continue;
    uint8_t* data = memory.buffer(info->nbytes(), "output " + std::to_string(i), why);
    if (data == nullptr) return false;
    executorch::runtime::Error set = method.set_output_data_ptr(data, info->nbytes(), i);
    if (set != executorch::runtime::Error::Ok)
      return why = "output " + std::to_string(i) + ": cannot set its buffer (" + error_name(set) + ")", false;
  }
  return true;
}

}  // namespace etsb_runner
