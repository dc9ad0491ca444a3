// --prompt IDS --generate N: greedy generation with an LLM decoder, stepped
// in one process (its KV cache lives in the method's mutable buffers). The
// method is forward(tokens [1, 1] int64, input_pos [1] int64) -> logits
// (Float, the last dim the vocabulary): the prompt is fed a token at a time,
// then each step feeds the previous step's most likely token, N times.
// Each refusal says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/method_meta.h>

namespace etsb_runner {

// Whether input `i` of the method is an int64 tensor of `numel` elements and `dims` dims.
inline bool is_long_input(const executorch::runtime::MethodMeta& meta, size_t i, size_t dims) {
  auto info = meta.input_tensor_meta(i);
  return info.ok() && info->scalar_type() == executorch::aten::ScalarType::Long && info->sizes().size() == dims &&
         info->nbytes() == sizeof(int64_t);
}

// Whether output 0 of the method is Float logits: at least one dim (the last
// the vocabulary, which a 0-dim tensor has not) and some elements.
inline bool is_logits_output(const executorch::runtime::MethodMeta& meta) {
  auto info = meta.output_tensor_meta(0);
  return info.ok() && info->scalar_type() == executorch::aten::ScalarType::Float && info->sizes().size() != 0 &&
         info->nbytes() > 0;
}

// Whether the method has the decoder's signature; false, and `why`, if not.
inline bool check_decoder(const executorch::runtime::MethodMeta& meta, std::string& why) {
  if (meta.num_inputs() != 2 || !is_long_input(meta, 0, 2) || !is_long_input(meta, 1, 1) || meta.num_outputs() < 1 ||
      !is_logits_output(meta))
    return why = "--prompt needs a method forward(tokens [1, 1] int64, input_pos [1] int64) -> logits (Float, "
                 "the last dim the vocabulary); '" + std::string(meta.name()) + "' is not one", false;
  return true;
}

// The index of the largest of `n` logits (the first of equals; NaN counts
// as the largest, as torch.argmax has it).
inline int64_t argmax(const float* logits, int64_t n) {
  int64_t best = 0;
  for (int64_t i = 1; i < n && logits[best] == logits[best]; ++i) {
    if (logits[i] != logits[i] || logits[i] > logits[best]) best = i;
  }
  return best;
}

// Sets one int64 input holding `value` (storage and tensor owned by the caller).
inline executorch::runtime::Error set_long(executorch::runtime::Method& method, size_t index, int64_t& storage,
                                           executorch::aten::TensorImpl& impl, int64_t value) {
  storage = value;
  return method.set_input(executorch::runtime::EValue(executorch::aten::Tensor(&impl)), index);
}

// Feeds `prompt` a token at a time, then `count` greedy tokens, appending
// them to `tokens` (the prompt first); false, and `why`, if a step fails or
// the logits are not Float.
inline bool generate(executorch::runtime::Method& method, const std::vector<int64_t>& prompt, long long count,
                     std::vector<int64_t>& tokens, std::string& why) {
  int64_t token = 0, position = 0;
  executorch::aten::SizesType token_sizes[2] = {1, 1}, position_sizes[1] = {1};
  executorch::aten::DimOrderType order[2] = {0, 1};
  executorch::aten::TensorImpl token_impl(executorch::aten::ScalarType::Long, 2, token_sizes, &token, order);
  executorch::aten::TensorImpl position_impl(executorch::aten::ScalarType::Long, 1, position_sizes, &position, order);
  tokens = prompt;
  const size_t total = prompt.size() + static_cast<size_t>(count);
  for (size_t step = 0; step + 1 < total; ++step) {
    if (set_long(method, 0, token, token_impl, tokens[step]) != executorch::runtime::Error::Ok ||
        set_long(method, 1, position, position_impl, static_cast<int64_t>(step)) != executorch::runtime::Error::Ok)
      return why = "step " + std::to_string(step) + ": the inputs were rejected", false;
    if (method.execute() != executorch::runtime::Error::Ok)
      return why = "step " + std::to_string(step) + " failed", false;
    if (step + 1 < prompt.size()) continue;
    const executorch::runtime::EValue& out = method.get_output(0);
    // (A 0-dim tensor has no last dim: its sizes must not be read at dim() - 1.)
    if (!out.isTensor() || out.toTensor().scalar_type() != executorch::aten::ScalarType::Float ||
        out.toTensor().dim() == 0 || out.toTensor().numel() == 0)
      return why = "the method's output 0 is not Float logits", false;
    const auto& logits = out.toTensor();
    const int64_t vocab = logits.sizes()[logits.dim() - 1];
    // The last position's logits: [.., seq, vocab] holds one row per fed token.
    tokens.push_back(argmax(logits.const_data_ptr<float>() + (logits.numel() - vocab), vocab));
  }
  return true;
}

}  // namespace etsb_runner
