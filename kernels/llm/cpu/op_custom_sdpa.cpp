// llama::custom_sdpa.out: scaled dot-product attention of new queries over a
// KV cache, causal from a start position (ExecuTorch's LLM attention).
#include "util/attention_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::optional;
using ::executorch::aten::Tensor;
namespace l = ::etsb::llm;

namespace {
constexpr char kName[] = "custom_sdpa.out";  // the switch name
}  // namespace

/// out [B, S, Hq, D] = softmax(q k^T * scale (+ attn_mask)) v for query
/// [B, S, Hq, D] at positions start_pos.., key and value [B, N, Hkv, D]
/// (see util/attention_util.h for which keys each row sees); Float, Half or
/// BFloat16, all alike (out too), contiguous; out is resized to query's
/// shape. drpout_p is ignored (inference), as in ExecuTorch's kernel. Fails
/// the context on a bad rank, dtype, layout, head count, mask or start_pos.
Tensor& custom_sdpa_out(KernelRuntimeContext& ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                        int64_t start_pos, const optional<Tensor>& attn_mask, double drpout_p, bool is_causal,
                        const optional<double> scale, Tensor& out) {
  (void)drpout_p;
  ET_KERNEL_CHECK_MSG(ctx, l::attention_args_ok(q, k, v, attn_mask, is_causal), InvalidArgument, out,
                      "%s: invalid arguments", kName);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == q.scalar_type() && l::is_contiguous(out), InvalidArgument, out,
                      "%s: out must have query's dtype and a contiguous dim order", kName);
  l::Attention a;
  ET_KERNEL_CHECK_MSG(ctx, l::describe_attention(q, k, attn_mask, start_pos, is_causal, scale, a), InvalidArgument,
                      out, "%s: start_pos out of the keys", kName);
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, q.sizes()) == ::executorch::runtime::Error::Ok,
                  InvalidArgument, out);
  ET_SWITCH_FLOATHBF16_TYPES(q.scalar_type(), ctx, kName, CTYPE, [&]() {
    l::attend<CTYPE>(a, q.const_data_ptr<CTYPE>(), k.const_data_ptr<CTYPE>(), v.const_data_ptr<CTYPE>(),
                     out.mutable_data_ptr<CTYPE>());
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
