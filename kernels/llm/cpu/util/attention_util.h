// Scaled dot-product attention over a KV cache, the way ExecuTorch's
// llama::custom_sdpa defines it: query [B, S, Hq, D] (sequence at dim 1),
// key and value [B, N, Hkv, D], Hq a multiple of Hkv (grouped-query
// attention: query head h reads key/value head h / (Hq / Hkv)). Query row s
// is the token at position start_pos + s; without a mask it sees the keys
// [0, start_pos + S) (causal: [0, start_pos + s]); with a Float mask
// [S, N] it sees all N keys, the mask added to the scaled scores.
//
// No allocation: each output row is computed in three passes over the keys
// (the max score, the softmax denominator, then the weighted values in
// chunks of head_dim held on the stack), in float for Half and BFloat16.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "cache_util.h"

namespace etsb {
namespace llm {

/// What one attention call reads: the shapes and positions, checked.
struct Attention {
  int64_t batch, q_len, q_heads, kv_heads, head_dim;
  int64_t key_rows, keys;  // the key/value tensors' rows, and how many of them a query may see
  int64_t start_pos;
  bool causal;
  const float* mask;  // [q_len, keys] or null
  float scale;
};

/// Whether query, key and value fit one attention call (ranks, dtypes,
/// layout, heads, head_dim) and the mask the keys; logs what is wrong.
inline bool attention_args_ok(const Tensor& q, const Tensor& k, const Tensor& v,
                              const ::executorch::aten::optional<Tensor>& mask, bool is_causal) {
  ET_CHECK_OR_RETURN_FALSE(q.dim() == 4 && k.dim() == 4 && v.dim() == 4,
                           "custom_sdpa.out: query, key and value must be 4-D [batch, seq, heads, head_dim]");
  const auto dtype = q.scalar_type();
  ET_CHECK_OR_RETURN_FALSE(dtype == ::executorch::aten::ScalarType::Float ||
                               dtype == ::executorch::aten::ScalarType::Half ||
                               dtype == ::executorch::aten::ScalarType::BFloat16,
                           "custom_sdpa.out: query must be Float, Half or BFloat16");
  ET_CHECK_OR_RETURN_FALSE(q.scalar_type() == k.scalar_type() && q.scalar_type() == v.scalar_type(),
                           "custom_sdpa.out: key and value must have query's dtype");
  ET_CHECK_OR_RETURN_FALSE(is_contiguous(q) && is_contiguous(k) && is_contiguous(v),
                           "custom_sdpa.out: query, key and value must be in contiguous dim order");
  ET_CHECK_OR_RETURN_FALSE(k.size(0) == q.size(0) && v.size(0) == q.size(0) && k.size(1) == v.size(1) &&
                               k.size(2) == v.size(2),
                           "custom_sdpa.out: key and value must be [batch, N, heads, _] alike, batch that of query");
  ET_CHECK_OR_RETURN_FALSE(q.size(3) == v.size(3) && k.size(3) == v.size(3),
                           "custom_sdpa.out: query, key and value must have one head_dim");
  ET_CHECK_OR_RETURN_FALSE(k.size(2) > 0 && k.size(2) <= q.size(2) && q.size(2) % k.size(2) == 0,
                           "custom_sdpa.out: query heads (%zd) must be a multiple of key/value heads (%zd)",
                           static_cast<ssize_t>(q.size(2)), static_cast<ssize_t>(k.size(2)));
  if (!mask.has_value()) return true;
  ET_CHECK_OR_RETURN_FALSE(!is_causal, "custom_sdpa.out: attn_mask and is_causal cannot both be given");
  const Tensor& m = mask.value();
  ET_CHECK_OR_RETURN_FALSE(m.scalar_type() == ::executorch::aten::ScalarType::Float && m.dim() == 2 &&
                               is_contiguous(m),
                           "custom_sdpa.out: attn_mask must be a contiguous 2-D Float tensor");
  ET_CHECK_OR_RETURN_FALSE(m.size(0) == q.size(1) && m.size(1) == k.size(1),
                           "custom_sdpa.out: attn_mask must be [query seq, key seq] = [%zd, %zd]",
                           static_cast<ssize_t>(q.size(1)), static_cast<ssize_t>(k.size(1)));
  return true;
}

/// The attention of checked arguments (attention_args_ok); false, logging
/// why, when start_pos leaves the keys: negative, or past the key rows
/// without a mask.
inline bool describe_attention(const Tensor& q, const Tensor& k, const ::executorch::aten::optional<Tensor>& mask,
                               int64_t start_pos, bool is_causal, const ::executorch::aten::optional<double>& scale,
                               Attention& a) {
  a = {q.size(0), q.size(1), q.size(2), k.size(2), q.size(3), k.size(1), k.size(1),
       start_pos, is_causal, nullptr, 0.0f};
  if (mask.has_value()) {
    a.mask = mask.value().const_data_ptr<float>();
    a.causal = false;
  } else {
    ET_CHECK_OR_RETURN_FALSE(start_pos >= 0 && start_pos <= k.size(1) - q.size(1),
                             "custom_sdpa.out: start_pos %" PRId64 " + %zd query rows exceed the %zd key rows",
                             start_pos, static_cast<ssize_t>(q.size(1)), static_cast<ssize_t>(k.size(1)));
    a.keys = start_pos + q.size(1);
  }
  a.scale = scale.has_value() ? static_cast<float>(scale.value())
                              : 1.0f / std::sqrt(static_cast<float>(a.head_dim > 0 ? a.head_dim : 1));
  return true;
}

/// q . k over head_dim, in float.
template <typename T>
inline float dot(const T* q, const T* k, int64_t n) {
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) sum += static_cast<float>(q[i]) * static_cast<float>(k[i]);
  return sum;
}

/// How many keys query row `s` sees: causal rows see up to their position.
inline int64_t keys_seen(const Attention& a, int64_t s) {
  const int64_t causal_end = a.start_pos + s + 1;
  return a.causal && causal_end < a.keys ? causal_end : a.keys;
}

/// The chunk of head_dim whose weighted sum is kept on the stack at a time.
constexpr int64_t kChunk = 64;

/// One output row: query row `s` of head `h` in batch `b` against the keys
/// it sees, written to `out_row` [head_dim]. Scores are q.k * scale (+ the
/// mask's row), softmax-normalised by their max and sum.
template <typename T>
void attend_row(const Attention& a, const T* q, const T* k, const T* v, T* out_row, int64_t b, int64_t s,
                int64_t h) {
  const int64_t d = a.head_dim;
  const int64_t stride = a.kv_heads * d;  // between key (value) rows
  const T* q_row = q + ((b * a.q_len + s) * a.q_heads + h) * d;
  const int64_t offset = (b * a.key_rows * a.kv_heads + h / (a.q_heads / a.kv_heads)) * d;
  const T* k_rows = k + offset;
  const T* v_rows = v + offset;
  const float* mask_row = a.mask != nullptr ? a.mask + s * a.keys : nullptr;
  const int64_t seen = keys_seen(a, s);
  auto score = [&](int64_t j) {
    const float x = dot(q_row, k_rows + j * stride, d) * a.scale;
    return mask_row != nullptr ? x + mask_row[j] : x;
  };
  float top = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < seen; ++j) top = std::fmax(top, score(j));
  float total = 0.0f;
  for (int64_t j = 0; j < seen; ++j) total += std::exp(score(j) - top);
  for (int64_t c = 0; c < d; c += kChunk) {
    const int64_t width = d - c < kChunk ? d - c : kChunk;
    float acc[kChunk] = {};
    for (int64_t j = 0; j < seen; ++j) {
      const float w = std::exp(score(j) - top) / total;
      const T* v_row = v_rows + j * stride + c;
      for (int64_t i = 0; i < width; ++i) acc[i] += w * static_cast<float>(v_row[i]);
    }
    for (int64_t i = 0; i < width; ++i) out_row[c + i] = static_cast<T>(acc[i]);
  }
}

/// out [B, S, Hq, D] = attention(q, k, v) as `a` describes it.
template <typename T>
void attend(const Attention& a, const T* q, const T* k, const T* v, T* out) {
  for (int64_t b = 0; b < a.batch; ++b) {
    for (int64_t s = 0; s < a.q_len; ++s) {
      for (int64_t h = 0; h < a.q_heads; ++h) {
        attend_row(a, q, k, v, out + ((b * a.q_len + s) * a.q_heads + h) * a.head_dim, b, s, h);
      }
    }
  }
}

}  // namespace llm
}  // namespace etsb
