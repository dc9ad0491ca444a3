// The KV cache of ExecuTorch's LLM operators: a [batch, max_seq, heads,
// head_dim] tensor, contiguous, whose sequence dim (1) holds one position a
// row. The checks of a write into it and the write itself, shared by
// llama::update_cache(_with_indices) and llama::sdpa_with_kv_cache.
// Header-only, no allocation, no IO; namespace etsb::llm, apart from the
// portable library's etsb::kernels and ExecuTorch's own utilities.
#pragma once

#include <executorch/runtime/kernel/kernel_includes.h>

#include <cstdint>
#include <cstring>

namespace etsb {
namespace llm {

using ::executorch::aten::Tensor;

/// Whether `t` is laid out in the default (contiguous, row-major) dim order.
inline bool is_contiguous(const Tensor& t) {
  const auto order = t.dim_order();
  for (size_t d = 0; d < order.size(); ++d) {
    if (order[d] != d) return false;
  }
  return true;
}

/// Whether `value` [B, S, H, D] can be written into `cache` [B, max, H, D]
/// row by row: both 4-D and contiguous, of one dtype, with the same batch,
/// heads and head_dim. Logs what is wrong (the caller's check names the op).
inline bool cache_write_ok(const char* op, const Tensor& value, const Tensor& cache) {
  ET_CHECK_OR_RETURN_FALSE(value.dim() == 4 && cache.dim() == 4,
                           "%s: value and cache must be 4-D [batch, seq, heads, head_dim], got %zd-D and %zd-D", op,
                           static_cast<ssize_t>(value.dim()), static_cast<ssize_t>(cache.dim()));
  ET_CHECK_OR_RETURN_FALSE(value.scalar_type() == cache.scalar_type(), "%s: value and cache must have one dtype", op);
  ET_CHECK_OR_RETURN_FALSE(is_contiguous(value) && is_contiguous(cache),
                           "%s: value and cache must be in contiguous dim order", op);
  ET_CHECK_OR_RETURN_FALSE(value.size(0) == cache.size(0) && value.size(2) == cache.size(2) &&
                               value.size(3) == cache.size(3),
                           "%s: value [%zd, _, %zd, %zd] does not fit cache [%zd, _, %zd, %zd]", op,
                           static_cast<ssize_t>(value.size(0)), static_cast<ssize_t>(value.size(2)),
                           static_cast<ssize_t>(value.size(3)), static_cast<ssize_t>(cache.size(0)),
                           static_cast<ssize_t>(cache.size(2)), static_cast<ssize_t>(cache.size(3)));
  return true;
}

/// Whether rows [start_pos, start_pos + seq_len) lie inside the cache's
/// sequence dim.
inline bool cache_span_ok(const char* op, const Tensor& cache, int64_t start_pos, int64_t seq_len) {
  ET_CHECK_OR_RETURN_FALSE(start_pos >= 0 && seq_len >= 0 && start_pos <= cache.size(1) - seq_len,
                           "%s: positions [%" PRId64 ", %" PRId64 " + %" PRId64 ") do not fit a cache of %zd", op,
                           start_pos, start_pos, seq_len, static_cast<ssize_t>(cache.size(1)));
  return true;
}

/// Copies sequence row `row` of `value`'s batch `b` into row `position` of
/// the cache (both checked by cache_write_ok, the position by the caller).
inline void copy_row(const Tensor& value, const Tensor& cache, int64_t b, int64_t row, int64_t position) {
  const size_t row_bytes = static_cast<size_t>(value.size(2)) * value.size(3) * value.element_size();
  const auto* from = static_cast<const uint8_t*>(value.const_data_ptr()) + (b * value.size(1) + row) * row_bytes;
  auto* to = static_cast<uint8_t*>(cache.mutable_data_ptr()) + (b * cache.size(1) + position) * row_bytes;
  if (row_bytes > 0) std::memmove(to, from, row_bytes);
}

/// Writes every row of `value` into the cache from `start_pos` on (checked
/// by cache_write_ok and cache_span_ok).
inline void write_rows(const Tensor& value, const Tensor& cache, int64_t start_pos) {
  for (int64_t b = 0; b < value.size(0); ++b) {
    for (int64_t row = 0; row < value.size(1); ++row) copy_row(value, cache, b, row, start_pos + row);
  }
}

}  // namespace llm
}  // namespace etsb
