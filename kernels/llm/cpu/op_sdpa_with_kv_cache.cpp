// llama::sdpa_with_kv_cache.out: write the new keys and values into the KV
// cache, then attend over it (update_cache twice and custom_sdpa in one).
#include "util/attention_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::optional;
using ::executorch::aten::Tensor;
namespace l = ::etsb::llm;

namespace {
constexpr char kName[] = "sdpa_with_kv_cache.out";  // the switch name
}  // namespace

/// key_cache[:, start_pos + s] = key[:, s] and value_cache likewise (key and
/// value [B, seq_len, Hkv, D], caches [B, max, Hkv, D]), then out = the
/// attention of query [B, seq_len, Hq, D] over the caches from start_pos, as
/// custom_sdpa_out computes it. Float, Half or BFloat16, all alike,
/// contiguous. seq_len must be the rows of query, key and value (ExecuTorch's
/// kernel copies all of key's rows whatever seq_len says); the rows must fit
/// the caches. Nothing is written when an argument is bad.
Tensor& sdpa_with_kv_cache_out(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                               Tensor& key_cache, Tensor& value_cache, int64_t start_pos, int64_t seq_len,
                               const optional<Tensor>& attn_mask, double drpout_p, bool is_causal,
                               const optional<double> scale, Tensor& out) {
  (void)drpout_p;
  ET_KERNEL_CHECK_MSG(ctx,
                      l::cache_write_ok(kName, k, key_cache) && l::cache_write_ok(kName, v, value_cache) &&
                          l::cache_span_ok(kName, key_cache, start_pos, seq_len) &&
                          l::cache_span_ok(kName, value_cache, start_pos, seq_len),
                      InvalidArgument, out, "%s: key and value cannot be written into the caches", kName);
  ET_KERNEL_CHECK_MSG(ctx, q.dim() == 4 && q.size(1) == seq_len && k.size(1) == seq_len && v.size(1) == seq_len,
                      InvalidArgument, out, "%s: query, key and value must have seq_len (%" PRId64 ") rows", kName,
                      seq_len);
  ET_KERNEL_CHECK_MSG(ctx, l::attention_args_ok(q, key_cache, value_cache, attn_mask, is_causal), InvalidArgument,
                      out, "%s: invalid arguments", kName);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == q.scalar_type() && l::is_contiguous(out), InvalidArgument, out,
                      "%s: out must have query's dtype and a contiguous dim order", kName);
  l::Attention a;
  ET_KERNEL_CHECK_MSG(ctx, l::describe_attention(q, key_cache, attn_mask, start_pos, is_causal, scale, a),
                      InvalidArgument, out, "%s: start_pos out of the cache", kName);
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, q.sizes()) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
  ET_SWITCH_FLOATHBF16_TYPES(q.scalar_type(), ctx, kName, CTYPE, [&]() {
    l::write_rows(k, key_cache, start_pos);
    l::write_rows(v, value_cache, start_pos);
    l::attend<CTYPE>(a, q.const_data_ptr<CTYPE>(), key_cache.const_data_ptr<CTYPE>(),
                     value_cache.const_data_ptr<CTYPE>(), out.mutable_data_ptr<CTYPE>());
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
