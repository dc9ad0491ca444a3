// Kernel-level checks of etsb's LLM kernels (kernels/llm/cpu), called directly
// with tensors over stack arrays: values against a plain double-precision
// reference of the attention, and every bad argument reported through the
// context (nothing written) instead of crashing. Built and run by
// tests/test_llm.py, which generates CustomOpsNativeFunctions.h from
// kernels/llm/functions.yaml, so the declarations called are the yaml's.
//
// Prints one line per failed check and a summary; exits 1 if any failed.
#include "CustomOpsNativeFunctions.h"
#include "check_harness.h"

#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace native = ::torch::executor::native;

constexpr auto F = ScalarType::Float;
constexpr auto L = ScalarType::Long;
const std::optional<Tensor> kNoMask;
const std::optional<double> kNoScale;

/// The attention of one query row over keys [0, seen) of a [N, Hkv, D]
/// cache (batch 1), double precision: the reference.
void reference_row(const float* q, const float* k, const float* v, int kv_heads, int d, int kv_head, int seen,
                   const float* mask, double scale, double* out) {
  double scores[16], top = -INFINITY, total = 0;
  for (int j = 0; j < seen; ++j) {
    double s = 0;
    for (int i = 0; i < d; ++i) s += double(q[i]) * k[(j * kv_heads + kv_head) * d + i];
    scores[j] = s * scale + (mask ? mask[j] : 0.0);
    top = std::fmax(top, scores[j]);
  }
  for (int j = 0; j < seen; ++j) total += std::exp(scores[j] - top);
  for (int i = 0; i < d; ++i) {
    out[i] = 0;
    for (int j = 0; j < seen; ++j) out[i] += std::exp(scores[j] - top) / total * v[(j * kv_heads + kv_head) * d + i];
  }
}

bool rows_near(const float* got, const double* expected, int n) {
  for (int i = 0; i < n; ++i) {
    if (std::fabs(got[i] - expected[i]) > 1e-5 * (1 + std::fabs(expected[i]))) {
      std::printf("  value %d: got %g, expected %g\n", i, got[i], expected[i]);
      return false;
    }
  }
  return true;
}

void check_update_cache() {
  float cache[1 * 5 * 2 * 3] = {}, value[1 * 2 * 2 * 3], out[1];
  for (int i = 0; i < 12; ++i) value[i] = float(i + 1);
  TT tc(F, {1, 5, 2, 3}, cache), tv(F, {1, 2, 2, 3}, value), to(F, {1}, out);
  Tensor c = tc.t(), o = to.t();
  EXPECT_KERNEL_OK(native::update_cache_out(ctx, tv.t(), c, 2, o));
  CHECK(cache[0] == 0 && cache[11] == 0 && cache[12] == 1 && cache[23] == 12 && cache[24] == 0);
  // Any dtype: a Long cache.
  int64_t lcache[1 * 3 * 1 * 2] = {}, lvalue[2] = {7, -8};
  TT tlc(L, {1, 3, 1, 2}, lcache), tlv(L, {1, 1, 1, 2}, lvalue);
  Tensor lc = tlc.t();
  EXPECT_KERNEL_OK(native::update_cache_out(ctx, tlv.t(), lc, 2, o));
  CHECK(lcache[4] == 7 && lcache[5] == -8 && lcache[0] == 0);
  // Rows past the end, a negative start, another dtype, another rank, other heads, another layout.
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, tv.t(), c, 4, o));
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, tv.t(), c, -1, o));
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, tlv.t(), c, 0, o));
  TT t3(F, {2, 2, 3}, value), heads(F, {1, 2, 3, 2}, value), strided(F, {1, 5, 2, 3}, cache, {0, 2, 1, 3});
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, t3.t(), c, 0, o));
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, heads.t(), c, 0, o));
  Tensor sc = strided.t();
  EXPECT_KERNEL_FAILS(native::update_cache_out(ctx, tv.t(), sc, 0, o));
  CHECK(cache[0] == 0 && cache[29] == 0);  // nothing written by a refused call
  // With indices: rows 4 and 0.
  float icache[1 * 5 * 2 * 3] = {};
  int64_t rows[2] = {4, 0}, bad_rows[2] = {1, 5};
  int32_t int_rows[2] = {1, 2};
  TT tic(F, {1, 5, 2, 3}, icache), ti(L, {1, 2}, rows), tbad(L, {1, 2}, bad_rows),
      tint(ScalarType::Int, {1, 2}, int_rows), tflat(L, {2}, rows);
  Tensor ic = tic.t();
  EXPECT_KERNEL_OK(native::update_cache_with_indices_out(ctx, tv.t(), ic, 0, ti.t(), o));
  CHECK(icache[24] == 1 && icache[29] == 6 && icache[0] == 7 && icache[5] == 12 && icache[6] == 0);
  EXPECT_KERNEL_FAILS(native::update_cache_with_indices_out(ctx, tv.t(), ic, 0, tbad.t(), o));
  EXPECT_KERNEL_FAILS(native::update_cache_with_indices_out(ctx, tv.t(), ic, 0, tint.t(), o));
  EXPECT_KERNEL_FAILS(native::update_cache_with_indices_out(ctx, tv.t(), ic, 0, tflat.t(), o));
}

void check_custom_sdpa() {
  // Grouped-query attention: 2 query heads over 1 key/value head, head_dim 2,
  // 2 new queries at positions 1 and 2 of a 4-row cache.
  float q[1 * 2 * 2 * 2] = {0.5f, -1.f, 1.5f, 0.25f, -0.75f, 2.f, 1.f, 1.f};
  float k[1 * 4 * 1 * 2] = {1.f, 0.f, 0.f, 1.f, -1.f, 2.f, 3.f, 3.f};
  float v[1 * 4 * 1 * 2] = {1.f, 2.f, -3.f, 4.f, 5.f, -6.f, 9.f, 9.f};
  float out[8];
  TT tq(F, {1, 2, 2, 2}, q), tk(F, {1, 4, 1, 2}, k), tv(F, {1, 4, 1, 2}, v), to(F, {1, 2, 2, 2}, out);
  Tensor o = to.t();
  const double scale = 1 / std::sqrt(2.0);
  double expected[8];
  for (int s = 0; s < 2; ++s) {
    for (int h = 0; h < 2; ++h) reference_row(q + (s * 2 + h) * 2, k, v, 1, 2, 0, 1 + s + 1, nullptr, scale,
                                              expected + (s * 2 + h) * 2);
  }
  EXPECT_KERNEL_OK(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 1, kNoMask, 0.0, true, kNoScale, o));
  CHECK(rows_near(out, expected, 8));
  // Not causal: every query sees keys [0, start_pos + 2); an explicit scale.
  for (int s = 0; s < 2; ++s) {
    for (int h = 0; h < 2; ++h) reference_row(q + (s * 2 + h) * 2, k, v, 1, 2, 0, 3, nullptr, 0.3,
                                              expected + (s * 2 + h) * 2);
  }
  EXPECT_KERNEL_OK(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 1, kNoMask, 0.0, false, 0.3, o));
  CHECK(rows_near(out, expected, 8));
  // A mask [2, 4]: all four keys, the mask added to the scores.
  float mask[8] = {0.f, -1.f, 0.5f, -INFINITY, 0.f, 0.f, -INFINITY, 1.f};
  TT tm(F, {2, 4}, mask);
  for (int s = 0; s < 2; ++s) {
    for (int h = 0; h < 2; ++h) reference_row(q + (s * 2 + h) * 2, k, v, 1, 2, 0, 4, mask + s * 4, scale,
                                              expected + (s * 2 + h) * 2);
  }
  EXPECT_KERNEL_OK(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 0, std::optional<Tensor>(tm.t()), 0.0, false,
                                           kNoScale, o));
  CHECK(rows_near(out, expected, 8));
  // Half and BFloat16 (inputs exact in both, computed in float), from position 2.
  for (int s = 0; s < 2; ++s) {
    for (int h = 0; h < 2; ++h) reference_row(q + (s * 2 + h) * 2, k, v, 1, 2, 0, 2 + s + 1, nullptr, scale,
                                              expected + (s * 2 + h) * 2);
  }
  ::executorch::aten::Half hq[8], hk[8], hv[8], ho[8];
  ::executorch::aten::BFloat16 bq[8], bk[8], bv[8], bo[8];
  for (int i = 0; i < 8; ++i) hq[i] = q[i], hk[i] = k[i], hv[i] = v[i], bq[i] = q[i], bk[i] = k[i], bv[i] = v[i];
  TT thq(ScalarType::Half, {1, 2, 2, 2}, hq), thk(ScalarType::Half, {1, 4, 1, 2}, hk),
      thv(ScalarType::Half, {1, 4, 1, 2}, hv), tho(ScalarType::Half, {1, 2, 2, 2}, ho);
  TT tbq(ScalarType::BFloat16, {1, 2, 2, 2}, bq), tbk(ScalarType::BFloat16, {1, 4, 1, 2}, bk),
      tbv(ScalarType::BFloat16, {1, 4, 1, 2}, bv), tbo(ScalarType::BFloat16, {1, 2, 2, 2}, bo);
  Tensor hout = tho.t(), bout = tbo.t();
  EXPECT_KERNEL_OK(native::custom_sdpa_out(ctx, thq.t(), thk.t(), thv.t(), 2, kNoMask, 0.0, true, kNoScale, hout));
  EXPECT_KERNEL_OK(native::custom_sdpa_out(ctx, tbq.t(), tbk.t(), tbv.t(), 2, kNoMask, 0.0, true, kNoScale, bout));
  for (int i = 0; i < 8; ++i) {
    CHECK(std::fabs(float(ho[i]) - expected[i]) <= 2e-3 * (1 + std::fabs(expected[i])));
    CHECK(std::fabs(float(bo[i]) - expected[i]) <= 1e-2 * (1 + std::fabs(expected[i])));
  }
  // Refused: a mask with is_causal, a Long mask, a mask of the wrong shape,
  // past the keys, a negative start, 3 query heads over 2, another dtype,
  // another out dtype, another head_dim, a rank-3 query, Double.
  int64_t lmask[8] = {};
  TT tlm(L, {2, 4}, lmask), tm3(F, {2, 3}, mask);
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 0, std::optional<Tensor>(tm.t()), 0.0,
                                              true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 0, std::optional<Tensor>(tlm.t()), 0.0,
                                              false, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 0, std::optional<Tensor>(tm3.t()), 0.0,
                                              false, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 3, kNoMask, 0.0, true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), -1, kNoMask, 0.0, true, kNoScale, o));
  float q3[12], k2[16];
  TT tq3(F, {1, 2, 3, 2}, q3), tk2(F, {1, 4, 2, 2}, k2), tk3(F, {1, 4, 1, 3}, k2), tq_rank3(F, {2, 2, 2}, q);
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq3.t(), tk2.t(), tk2.t(), 0, kNoMask, 0.0, true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), thk.t(), thv.t(), 0, kNoMask, 0.0, true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk.t(), tv.t(), 0, kNoMask, 0.0, true, kNoScale, hout));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq.t(), tk3.t(), tk3.t(), 0, kNoMask, 0.0, true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tq_rank3.t(), tk.t(), tv.t(), 0, kNoMask, 0.0, true, kNoScale, o));
  double dq[8] = {}, dk[8] = {}, dout[8];
  TT tdq(ScalarType::Double, {1, 2, 2, 2}, dq), tdk(ScalarType::Double, {1, 4, 1, 2}, dk),
      tdo(ScalarType::Double, {1, 2, 2, 2}, dout);
  Tensor dto = tdo.t();
  EXPECT_KERNEL_FAILS(native::custom_sdpa_out(ctx, tdq.t(), tdk.t(), tdk.t(), 0, kNoMask, 0.0, true, kNoScale, dto));
}

void check_sdpa_with_kv_cache() {
  // One new token at position 2 of 3-row caches (2 heads, head_dim 2).
  float q[4] = {1.f, 0.5f, -0.5f, 2.f}, k[4] = {0.25f, 1.f, 1.f, -1.f}, v[4] = {2.f, 3.f, -1.f, 4.f};
  float kc[12] = {1.f, 2.f, 3.f, 4.f, -1.f, 0.f, 0.5f, 0.5f, 9.f, 9.f, 9.f, 9.f};
  float vc[12] = {4.f, 3.f, 2.f, 1.f, 0.f, 1.f, 1.f, 0.f, 9.f, 9.f, 9.f, 9.f};
  float out[4];
  TT tq(F, {1, 1, 2, 2}, q), tk(F, {1, 1, 2, 2}, k), tv(F, {1, 1, 2, 2}, v), tkc(F, {1, 3, 2, 2}, kc),
      tvc(F, {1, 3, 2, 2}, vc), to(F, {1, 1, 2, 2}, out);
  Tensor kcache = tkc.t(), vcache = tvc.t(), o = to.t();
  // Refused first (nothing written): seq_len that is not the rows, a start past the cache.
  EXPECT_KERNEL_FAILS(native::sdpa_with_kv_cache_out(ctx, tq.t(), tk.t(), tv.t(), kcache, vcache, 2, 2, kNoMask, 0.0,
                                                     true, kNoScale, o));
  EXPECT_KERNEL_FAILS(native::sdpa_with_kv_cache_out(ctx, tq.t(), tk.t(), tv.t(), kcache, vcache, 3, 1, kNoMask, 0.0,
                                                     true, kNoScale, o));
  CHECK(kc[8] == 9.f && vc[11] == 9.f);
  EXPECT_KERNEL_OK(native::sdpa_with_kv_cache_out(ctx, tq.t(), tk.t(), tv.t(), kcache, vcache, 2, 1, kNoMask, 0.0,
                                                  true, kNoScale, o));
  CHECK(kc[8] == 0.25f && kc[11] == -1.f && vc[8] == 2.f && vc[11] == 4.f);
  double expected[4];
  for (int h = 0; h < 2; ++h) {
    reference_row(q + h * 2, kc, vc, 2, 2, h, 3, nullptr, 1 / std::sqrt(2.0), expected + h * 2);
  }
  CHECK(rows_near(out, expected, 4));
}

int main() {
  ::executorch::runtime::runtime_init();
  check_update_cache();
  check_custom_sdpa();
  check_sdpa_with_kv_cache();
  return report();
}
