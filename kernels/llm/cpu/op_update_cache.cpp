// llama::update_cache.out and llama::update_cache_with_indices.out: write the
// keys or values of new positions into a KV cache, in place.
#include "util/cache_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace l = ::etsb::llm;

namespace {

/// Whether every index of `indices` [B, S] int64 (contiguous, B and S those
/// of `value`) is a row of the cache.
bool indices_ok(const Tensor& value, const Tensor& cache, const Tensor& indices) {
  ET_CHECK_OR_RETURN_FALSE(indices.scalar_type() == ScalarType::Long && indices.dim() == 2 && l::is_contiguous(indices),
                           "update_cache_with_indices.out: indices must be a contiguous 2-D int64 tensor");
  ET_CHECK_OR_RETURN_FALSE(indices.size(0) == value.size(0) && indices.size(1) == value.size(1),
                           "update_cache_with_indices.out: indices must be [batch, seq] of value");
  const int64_t* data = indices.const_data_ptr<int64_t>();
  for (ssize_t i = 0; i < indices.numel(); ++i) {
    ET_CHECK_OR_RETURN_FALSE(data[i] >= 0 && data[i] < cache.size(1),
                             "update_cache_with_indices.out: index %" PRId64 " is outside a cache of %zd", data[i],
                             static_cast<ssize_t>(cache.size(1)));
  }
  return true;
}

}  // namespace

/// cache[b, start_pos + s] = value[b, s] for value [B, S, H, D] and cache
/// [B, max, H, D] of one dtype (any: rows are copied as bytes), contiguous;
/// the rows must fit the cache. `out` (a placeholder the export gives [1])
/// is left as it is. ExecuTorch's kernel also takes a value and cache of
/// different dtypes of one width, reinterpreting bits; this one refuses them.
Tensor& update_cache_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache, int64_t start_pos,
                         Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, l::cache_write_ok("update_cache.out", value, cache), InvalidArgument, out,
                      "update_cache.out: value cannot be written into cache");
  ET_KERNEL_CHECK_MSG(ctx, l::cache_span_ok("update_cache.out", cache, start_pos, value.size(1)), InvalidArgument,
                      out, "update_cache.out: start_pos out of the cache");
  l::write_rows(value, cache, start_pos);
  return out;
}

/// cache[b, indices[b, s]] = value[b, s]: update_cache_out with each row's
/// position given by `indices` [B, S] int64 (start_pos is not used, as in
/// ExecuTorch's kernel); every index must be a row of the cache.
Tensor& update_cache_with_indices_out(KernelRuntimeContext& ctx, const Tensor& value, Tensor& cache,
                                      int64_t start_pos, const Tensor& indices, Tensor& out) {
  (void)start_pos;
  ET_KERNEL_CHECK_MSG(ctx, l::cache_write_ok("update_cache_with_indices.out", value, cache), InvalidArgument, out,
                      "update_cache_with_indices.out: value cannot be written into cache");
  ET_KERNEL_CHECK_MSG(ctx, indices_ok(value, cache, indices), InvalidArgument, out,
                      "update_cache_with_indices.out: bad indices");
  const int64_t* positions = indices.const_data_ptr<int64_t>();
  for (int64_t b = 0; b < value.size(0); ++b) {
    for (int64_t row = 0; row < value.size(1); ++row) {
      l::copy_row(value, cache, b, row, positions[b * value.size(1) + row]);
    }
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
