// Kernel-level checks of etsb's portable kernels (kernels/portable/cpu),
// calling them directly with tensors built from TensorImpl over stack arrays.
//
// For every operator: at least one bad call (wrong shape, dtype or dim) that
// must set the context's failure state without crashing, and correct-value
// checks, including broadcasting and output resizing. Built and run by
// tests/test_kernel_checks.py, which generates NativeFunctions.h from
// kernels/portable/functions.yaml, so the declarations called here are the
// ones the yaml promises.
//
// Prints one line per failed check and a summary; exits 1 if any check failed.
#include "CustomOpsNativeFunctions.h"
#include "NativeFunctions.h"
#include "check_harness.h"

#include <executorch/runtime/platform/runtime.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::aten::TensorShapeDynamism;
using ::executorch::runtime::Error;
using ::torch::executor::KernelRuntimeContext;
namespace native = ::torch::executor::native;

constexpr auto F = ScalarType::Float;
constexpr auto D = ScalarType::Double;
constexpr auto L = ScalarType::Long;
constexpr auto I = ScalarType::Int;
constexpr auto B = ScalarType::Bool;
constexpr auto DYN = TensorShapeDynamism::DYNAMIC_BOUND;

ArrayRef<int64_t> ints(const int64_t* data, size_t n) { return ArrayRef<int64_t>(data, n); }

// ---- elementwise binary ops ---------------------------------------------------------

void check_add() {
  // Broadcast a row over a matrix, alpha = 2.
  float a[6] = {1, 2, 3, 4, 5, 6}, b[3] = {10, 20, 30}, o[6];
  TT ta(F, {2, 3}, a), tb(F, {3}, b), to(F, {2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, ta.t(), tb.t(), Scalar(int64_t(2)), out));
  CHECK(values_are(o, {21, 42, 63, 24, 45, 66}));
  // Long with a 0-dim Long tensor (what `x + 3` exports to).
  int64_t la[4] = {1, -2, 3, 40}, ls = 3, lo[4];
  TT tla(L, {2, 2}, la), tls(L, {}, &ls), tlo(L, {2, 2}, lo);
  out = tlo.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, tla.t(), tls.t(), Scalar(int64_t(1)), out));
  CHECK(values_are(lo, {4, 1, 6, 43}));
  // Column [2, 1] + row [3]: a real 2-D broadcast; out resized from a larger bound.
  float c[2] = {100, 200}, r[3] = {1, 2, 3}, ro[12];
  TT tc(F, {2, 1}, c), tr(F, {3}, r), tro(F, {4, 3}, ro, DYN);
  out = tro.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, tc.t(), tr.t(), Scalar(1.0), out));
  CHECK(out.dim() == 2 && out.sizes()[0] == 2 && out.sizes()[1] == 3);
  CHECK(values_are(ro, {101, 102, 103, 201, 202, 203}));
  // Mixed dtypes: Long tensor + Float 0-dim -> Float.
  int64_t mi[3] = {1, 2, 3};
  float mf = 0.5f, mo[3];
  TT tmi(L, {3}, mi), tmf(F, {}, &mf), tmo(F, {3}, mo);
  out = tmo.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, tmi.t(), tmf.t(), Scalar(int64_t(1)), out));
  CHECK(values_are(mo, {1.5, 2.5, 3.5}));
  // Failures: shapes that do not broadcast, an out that cannot take the
  // shape, a floating alpha on Long, Float results into a Long out.
  float x4[4];
  TT t4(F, {4}, x4), tbad(F, {3, 3}, ro);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::add_out(ctx, ta.t(), t4.t(), Scalar(1.0), out));
  out = tbad.t();
  EXPECT_KERNEL_FAILS(native::add_out(ctx, ta.t(), tb.t(), Scalar(1.0), out));
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::add_out(ctx, tla.t(), tls.t(), Scalar(0.5), out));
  int64_t lo6[6];
  TT tlo6(L, {2, 3}, lo6);
  out = tlo6.t();
  EXPECT_KERNEL_FAILS(native::add_out(ctx, ta.t(), tb.t(), Scalar(int64_t(1)), out));
  // An unsupported dtype.
  TT tq(ScalarType::QInt8, {2, 2}, la);
  EXPECT_KERNEL_FAILS(native::add_out(ctx, tq.t(), tq.t(), Scalar(int64_t(1)), out));
}

void check_sub() {
  float a[4] = {5, 6, 7, 8}, s = 2, o[4];
  TT ta(F, {2, 2}, a), ts(F, {}, &s), to(F, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::sub_out(ctx, ta.t(), ts.t(), Scalar(int64_t(1)), out));
  CHECK(values_are(o, {3, 4, 5, 6}));
  EXPECT_KERNEL_OK(native::sub_out(ctx, ts.t(), ta.t(), Scalar(0.5), out));
  CHECK(values_are(o, {-0.5, -1, -1.5, -2}));
  bool bb[4] = {true, false, true, false}, bo[4];
  TT tb(B, {2, 2}, bb), tbo(B, {2, 2}, bo);
  out = tbo.t();
  EXPECT_KERNEL_FAILS(native::sub_out(ctx, tb.t(), tb.t(), Scalar(int64_t(1)), out));
  float w[3];
  TT tw(F, {3}, w);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::sub_out(ctx, ta.t(), tw.t(), Scalar(int64_t(1)), out));
}

void check_mul() {
  int64_t a[6] = {1, 2, 3, 4, 5, 6}, s = -2, o[6];
  TT ta(L, {2, 3}, a), ts(L, {}, &s), to(L, {2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::mul_out(ctx, ta.t(), ts.t(), out));
  CHECK(values_are(o, {-2, -4, -6, -8, -10, -12}));
  float f[6] = {1, 2, 3, 4, 5, 6}, fs = 0.5f, fo[6];
  TT tf(F, {2, 3}, f), tfs(F, {}, &fs), tfo(F, {2, 3}, fo);
  out = tfo.t();
  EXPECT_KERNEL_OK(native::mul_out(ctx, tfs.t(), tf.t(), out));  // scalar first
  CHECK(values_are(fo, {0.5, 1, 1.5, 2, 2.5, 3}));
  bool x[4] = {true, true, false, false}, y[4] = {true, false, true, false}, z[4];
  TT tx(B, {4}, x), ty(B, {4}, y), tz(B, {4}, z);
  out = tz.t();
  EXPECT_KERNEL_OK(native::mul_out(ctx, tx.t(), ty.t(), out));
  CHECK(z[0] && !z[1] && !z[2] && !z[3]);
  int64_t b4[4];
  TT t4(L, {4}, b4);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::mul_out(ctx, ta.t(), t4.t(), out));
}

void check_div() {
  float a[4] = {1, 2, 3, 4}, s = 4, o[4];
  TT ta(F, {1, 2, 2}, a), ts(F, {}, &s), to(F, {1, 2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::div_out(ctx, ta.t(), ts.t(), out));
  CHECK(values_are(o, {0.25, 0.5, 0.75, 1}));
  // Integer operands divide as floating point.
  int64_t n[2] = {1, 7}, d[2] = {2, 2};
  float q[2];
  TT tn(L, {2}, n), td(L, {2}, d), tq(F, {2}, q);
  out = tq.t();
  EXPECT_KERNEL_OK(native::div_out(ctx, tn.t(), td.t(), out));
  CHECK(values_are(q, {0.5, 3.5}));
  int64_t lo[2];
  TT tlo(L, {2}, lo);
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::div_out(ctx, tn.t(), td.t(), out));  // true division into Long
}

// ---- unary and comparison ops -------------------------------------------------------

void check_relu() {
  float a[4] = {-1, 0.5f, -0.25f, 2}, o[4];
  TT ta(F, {2, 2}, a), to(F, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::relu_out(ctx, ta.t(), out));
  CHECK(values_are(o, {0, 0.5, 0, 2}));
  float a4[16], o4[16];
  for (int i = 0; i < 16; ++i) a4[i] = static_cast<float>(i - 8);
  TT t4(F, {1, 2, 2, 4}, a4), to4(F, {1, 2, 2, 4}, o4);
  out = to4.t();
  EXPECT_KERNEL_OK(native::relu_out(ctx, t4.t(), out));
  CHECK(o4[0] == 0 && o4[8] == 0 && o4[9] == 1 && o4[15] == 7);
  int64_t lo[4];
  TT tlo(L, {2, 2}, lo);
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::relu_out(ctx, ta.t(), out));  // dtype mismatch
  float small[2];
  TT ts(F, {2}, small);
  out = ts.t();
  EXPECT_KERNEL_FAILS(native::relu_out(ctx, ta.t(), out));  // rank mismatch: cannot resize
}

void check_neg() {
  float a[3] = {1, -2, 0}, o[3];
  TT ta(F, {3}, a), to(F, {3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::neg_out(ctx, ta.t(), out));
  CHECK(values_are(o, {-1, 2, 0}));
  bool b[3] = {true, false, true}, bo[3];
  TT tb(B, {3}, b), tbo(B, {3}, bo);
  out = tbo.t();
  EXPECT_KERNEL_FAILS(native::neg_out(ctx, tb.t(), out));
}

void check_gt() {
  float a[4] = {0.1f, 0.6f, -1, 0.5f};
  bool o[4];
  TT ta(F, {2, 2}, a), to(B, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::gt_scalar_out(ctx, ta.t(), Scalar(0.5), out));
  CHECK(!o[0] && o[1] && !o[2] && !o[3]);
  // An integral tensor against a floating scalar compares as floating point.
  int64_t l[3] = {2, 3, -5};
  bool lo[3];
  TT tl(L, {3}, l), tlo(B, {3}, lo);
  out = tlo.t();
  EXPECT_KERNEL_OK(native::gt_scalar_out(ctx, tl.t(), Scalar(2.5), out));
  CHECK(!lo[0] && lo[1] && !lo[2]);
  // Into a Float out: 1 / 0.
  float fo[4];
  TT tfo(F, {2, 2}, fo);
  out = tfo.t();
  EXPECT_KERNEL_OK(native::gt_scalar_out(ctx, ta.t(), Scalar(int64_t(0)), out));
  CHECK(values_are(fo, {1, 1, 0, 1}));
  bool wrong[3];
  TT tw(B, {3}, wrong);
  out = tw.t();
  EXPECT_KERNEL_FAILS(native::gt_scalar_out(ctx, ta.t(), Scalar(0.5), out));  // rank mismatch
}

void check_where() {
  bool c[4] = {true, false, false, true};
  float x[4] = {1, 2, 3, 4}, y = -1, o[4];
  TT tc(B, {2, 2}, c), tx(F, {2, 2}, x), ty(F, {}, &y), to(F, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::where_out(ctx, tc.t(), tx.t(), ty.t(), out));
  CHECK(values_are(o, {1, -1, -1, 4}));
  // Broadcast a row condition over columns; mixed self / other dtypes.
  bool row[2] = {false, true};
  int64_t li[4] = {10, 20, 30, 40};
  TT trow(B, {2}, row), tli(L, {2, 2}, li);
  EXPECT_KERNEL_OK(native::where_out(ctx, trow.t(), tx.t(), tli.t(), out));
  CHECK(values_are(o, {10, 2, 30, 4}));
  TT tcf(F, {2, 2}, x);
  EXPECT_KERNEL_FAILS(native::where_out(ctx, tcf.t(), tx.t(), ty.t(), out));  // Float condition
  bool c3[3] = {true, true, true};
  TT tc3(B, {3}, c3);
  EXPECT_KERNEL_FAILS(native::where_out(ctx, tc3.t(), tx.t(), ty.t(), out));  // no broadcast
}

// ---- reductions ---------------------------------------------------------------------

void check_sum() {
  float a[6] = {1, 2, 3, 4, 5, 6};
  double o[2];
  TT ta(F, {2, 3}, a), to(D, {2}, o);
  const int64_t dim1[1] = {1};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::sum_dim_out(ctx, ta.t(), ints(dim1, 1), false, D, out));
  CHECK(values_are(o, {6, 15}));
  // Over dim 0 with keepdim, in the input dtype.
  float k[3];
  TT tk(F, {1, 3}, k);
  const int64_t dim0[1] = {-2};
  out = tk.t();
  EXPECT_KERNEL_OK(native::sum_dim_out(ctx, ta.t(), ints(dim0, 1), true, std::nullopt, out));
  CHECK(values_are(k, {5, 7, 9}));
  // Every dim: a 0-dim result; integers sum into Long.
  int64_t li[6] = {1, 2, 3, 4, 5, 6}, total = 0;
  TT tli(L, {2, 3}, li), ttotal(L, {}, &total);
  out = ttotal.t();
  EXPECT_KERNEL_OK(native::sum_dim_out(ctx, tli.t(), std::nullopt, false, std::nullopt, out));
  CHECK(total == 21);
  out = to.t();
  const int64_t bad_dim[1] = {2};
  EXPECT_KERNEL_FAILS(native::sum_dim_out(ctx, ta.t(), ints(bad_dim, 1), false, D, out));
  const int64_t twice[2] = {1, -1};
  EXPECT_KERNEL_FAILS(native::sum_dim_out(ctx, ta.t(), ints(twice, 2), false, D, out));
  // Without dtype, out's dtype is the one summed in (ATen's rule for a given out).
  o[0] = o[1] = 0;
  EXPECT_KERNEL_OK(native::sum_dim_out(ctx, ta.t(), ints(dim1, 1), false, std::nullopt, out));
  CHECK(values_are(o, {6, 15}));
  EXPECT_KERNEL_FAILS(native::sum_dim_out(ctx, ta.t(), ints(dim1, 1), false, F, out));  // out is not Float
}

void check_mean() {
  float a[12];
  for (int i = 0; i < 12; ++i) a[i] = static_cast<float>(i);
  float o[4];
  TT ta(F, {2, 3, 2}, a), to(F, {2, 2}, o);
  const int64_t dim1[1] = {1};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::mean_dim_out(ctx, ta.t(), ints(dim1, 1), false, std::nullopt, out));
  CHECK(values_are(o, {2, 3, 8, 9}));
  float last[6];
  TT tlast(F, {2, 3, 1}, last);
  const int64_t dimm1[1] = {-1};
  out = tlast.t();
  EXPECT_KERNEL_OK(native::mean_dim_out(ctx, ta.t(), ints(dimm1, 1), true, std::nullopt, out));
  CHECK(values_are(last, {0.5, 2.5, 4.5, 6.5, 8.5, 10.5}));
  float all = 0;
  TT tall(F, {}, &all);
  out = tall.t();
  EXPECT_KERNEL_OK(native::mean_dim_out(ctx, ta.t(), std::nullopt, false, std::nullopt, out));
  CHECK(near(all, 5.5));
  int64_t li[2] = {1, 2}, lo = 0;
  TT tli(L, {2}, li), tlo(L, {}, &lo);
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::mean_dim_out(ctx, tli.t(), std::nullopt, false, std::nullopt, out));  // no int mean
  const int64_t bad[1] = {3};
  out = to.t();
  EXPECT_KERNEL_FAILS(native::mean_dim_out(ctx, ta.t(), ints(bad, 1), false, std::nullopt, out));
}

// ---- matrix products and convolution ------------------------------------------------

void check_addmm() {
  // [2, 3] @ [3, 2] + bias [2].
  float bias[2] = {0.5f, -1}, m1[6] = {1, 2, 3, 4, 5, 6}, m2[6] = {1, 0, 0, 1, 1, 1}, o[4];
  TT tb(F, {2}, bias), t1(F, {2, 3}, m1), t2(F, {3, 2}, m2), to(F, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::addmm_out(ctx, tb.t(), t1.t(), t2.t(), Scalar(int64_t(1)), Scalar(int64_t(1)), out));
  CHECK(values_are(o, {4.5, 4, 10.5, 10}));
  EXPECT_KERNEL_OK(native::addmm_out(ctx, tb.t(), t1.t(), t2.t(), Scalar(2.0), Scalar(0.5), out));
  CHECK(values_are(o, {3, 0.5, 6, 3.5}));
  // A longer inner dim and row than the unrolled blocks (k = 9, n = 11).
  float a[2 * 9], b[9 * 11], c[2 * 11], zero = 0;
  for (int i = 0; i < 18; ++i) a[i] = static_cast<float>(i % 5) - 2;
  for (int i = 0; i < 99; ++i) b[i] = static_cast<float>(i % 7) * 0.5f;
  TT ta(F, {2, 9}, a), tbb(F, {9, 11}, b), tc(F, {2, 11}, c), tz(F, {}, &zero);
  out = tc.t();
  EXPECT_KERNEL_OK(native::addmm_out(ctx, tz.t(), ta.t(), tbb.t(), Scalar(int64_t(1)), Scalar(int64_t(1)), out));
  bool all_right = true;
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 11; ++j) {
      double expected = 0;
      for (int p = 0; p < 9; ++p) expected += a[i * 9 + p] * b[p * 11 + j];
      all_right = all_right && near(c[i * 11 + j], expected);
    }
  }
  CHECK(all_right);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::addmm_out(ctx, tb.t(), t1.t(), t1.t(), Scalar(int64_t(1)), Scalar(int64_t(1)), out));
  float wide[3];
  TT tw(F, {3}, wide);
  EXPECT_KERNEL_FAILS(native::addmm_out(ctx, tw.t(), t1.t(), t2.t(), Scalar(int64_t(1)), Scalar(int64_t(1)), out));
}

void check_bmm() {
  float a[2 * 2 * 3] = {1, 2, 3, 4, 5, 6, 1, 0, 0, 0, 1, 0};
  float b[2 * 3 * 1] = {1, 1, 1, 7, 8, 9};
  float o[4];
  TT ta(F, {2, 2, 3}, a), tb(F, {2, 3, 1}, b), to(F, {2, 2, 1}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::bmm_out(ctx, ta.t(), tb.t(), out));
  CHECK(values_are(o, {6, 15, 7, 8}));
  TT tbad(F, {1, 3, 1}, b);
  EXPECT_KERNEL_FAILS(native::bmm_out(ctx, ta.t(), tbad.t(), out));  // batch mismatch
  int64_t lb[6];
  TT tl(L, {2, 3, 1}, lb);
  EXPECT_KERNEL_FAILS(native::bmm_out(ctx, ta.t(), tl.t(), out));  // dtype mismatch
}

void check_convolution() {
  // 1 x 1 x 4 x 4 input, one 3 x 3 kernel of ones, padding 1: neighbourhood sums.
  float x[16], w[9], bias = 1, o[16];
  for (int i = 0; i < 16; ++i) x[i] = static_cast<float>(i);
  for (int i = 0; i < 9; ++i) w[i] = 1;
  TT tx(F, {1, 1, 4, 4}, x), tw(F, {1, 1, 3, 3}, w), tb(F, {1}, &bias), to(F, {1, 1, 4, 4}, o);
  const int64_t one[1] = {1}, zero[1] = {0};
  std::optional<Tensor> b(tb.t());
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::convolution_out(ctx, tx.t(), tw.t(), b, ints(one, 1), ints(one, 1), ints(one, 1), false,
                                           ints(zero, 1), 1, out));
  // Corner (0,0): 0+1+4+5 = 10, plus bias; centre (1,1): 0+1+2+4+5+6+8+9+10 = 45, plus bias.
  CHECK(near(o[0], 11) && near(o[5], 46) && near(o[15], 10 + 11 + 14 + 15 + 1));
  // Stride 2, no padding, two groups of one channel each, no bias.
  float x2[2 * 16], w2[2 * 4] = {1, 0, 0, 0, 0, 0, 0, 1}, o2[2 * 4];
  for (int i = 0; i < 32; ++i) x2[i] = static_cast<float>(i);
  TT tx2(F, {1, 2, 4, 4}, x2), tw2(F, {2, 1, 2, 2}, w2), to2(F, {1, 2, 2, 2}, o2);
  const int64_t two[1] = {2};
  out = to2.t();
  EXPECT_KERNEL_OK(native::convolution_out(ctx, tx2.t(), tw2.t(), std::nullopt, ints(two, 1), ints(zero, 1),
                                           ints(one, 1), false, ints(zero, 1), 2, out));
  CHECK(values_are(o2, {0, 2, 8, 10, 21, 23, 29, 31}));
  // Transposed (the direct loops: these calls have no temp allocator): with a
  // symmetric kernel, stride 1 and padding 1 it gives the same sums.
  out = to.t();
  EXPECT_KERNEL_OK(native::convolution_out(ctx, tx.t(), tw.t(), b, ints(one, 1), ints(one, 1), ints(one, 1), true,
                                           ints(zero, 1), 1, out));
  CHECK(near(o[0], 11) && near(o[5], 46));
  // Stride 2 spreads each input element over a 2 x 2 block.
  float tx4[4] = {1, 2, 3, 4}, tones[4] = {1, 1, 1, 1};
  TT ttx(F, {1, 1, 2, 2}, tx4), ttw(F, {1, 1, 2, 2}, tones);
  out = to.t();
  EXPECT_KERNEL_OK(native::convolution_out(ctx, ttx.t(), ttw.t(), std::nullopt, ints(two, 1), ints(zero, 1),
                                           ints(one, 1), true, ints(zero, 1), 1, out));
  CHECK(values_are(o, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_KERNEL_FAILS(native::convolution_out(ctx, ttx.t(), ttw.t(), std::nullopt, ints(one, 1), ints(zero, 1),
                                              ints(one, 1), true, ints(two, 1), 1, out));  // output_padding >= stride
  EXPECT_KERNEL_FAILS(native::convolution_out(ctx, tx2.t(), tw.t(), b, ints(one, 1), ints(one, 1), ints(one, 1),
                                              false, ints(zero, 1), 1, out));  // 2 channels vs weight's 1
  EXPECT_KERNEL_FAILS(native::convolution_out(ctx, tx.t(), tw.t(), b, ints(zero, 1), ints(one, 1), ints(one, 1),
                                              false, ints(zero, 1), 1, out));  // stride 0
}

void check_max_pool2d() {
  float x[16] = {1, 5, 2, 0, 3, 4, 8, 1, 0, 0, 1, 2, 9, 0, 3, 7};
  float o[4];
  int64_t idx[4];
  TT tx(F, {1, 1, 4, 4}, x), to(F, {1, 1, 2, 2}, o), ti(L, {1, 1, 2, 2}, idx);
  const int64_t two[1] = {2}, zero[1] = {0}, one[1] = {1};
  Tensor out = to.t(), indices = ti.t();
  EXPECT_KERNEL_OK(native::max_pool2d_with_indices_out(ctx, tx.t(), ints(two, 1), ints(two, 0), ints(zero, 1),
                                                       ints(one, 1), false, out, indices));
  CHECK(values_are(o, {5, 8, 9, 7}));
  CHECK(idx[0] == 1 && idx[1] == 6 && idx[2] == 12 && idx[3] == 15);
  float fi[4];
  TT tfi(F, {1, 1, 2, 2}, fi);
  indices = tfi.t();
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_out(ctx, tx.t(), ints(two, 1), ints(two, 0), ints(zero, 1),
                                                          ints(one, 1), false, out, indices));  // Float indices
  indices = ti.t();
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_out(ctx, tx.t(), ints(two, 1), ints(two, 0), ints(two, 1),
                                                          ints(one, 1), false, out, indices));  // padding > kernel/2
  TT t2d(F, {4, 4}, x);
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_out(ctx, t2d.t(), ints(two, 1), ints(two, 0), ints(zero, 1),
                                                          ints(one, 1), false, out, indices));  // 2-D input
}

// ---- softmax and layer norm ---------------------------------------------------------

void check_softmax() {
  float x[6] = {1, 2, 3, 0, 0, 0}, o[6];
  TT tx(F, {2, 3}, x), to(F, {2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::softmax_out(ctx, tx.t(), -1, false, out));
  CHECK(values_are(o, {0.09003057, 0.24472847, 0.66524096, 1.0 / 3, 1.0 / 3, 1.0 / 3}));
  EXPECT_KERNEL_OK(native::softmax_out(ctx, tx.t(), 0, false, out));  // a strided dim
  CHECK(values_are(o, {0.7310586, 0.8807971, 0.95257413, 0.26894142, 0.11920292, 0.04742587}));
  EXPECT_KERNEL_FAILS(native::softmax_out(ctx, tx.t(), 2, false, out));
  EXPECT_KERNEL_FAILS(native::softmax_out(ctx, tx.t(), 1, true, out));
  int64_t l[6];
  TT tl(L, {2, 3}, l);
  out = tl.t();
  EXPECT_KERNEL_FAILS(native::softmax_out(ctx, tl.t(), 1, false, out));  // integer softmax
}

void check_layer_norm() {
  float x[8] = {1, 2, 3, 4, 2, 2, 2, 6}, w[4] = {1, 1, 2, 2}, b[4] = {0, 0, 0, 1};
  float y[8], mean[2], rstd[2];
  TT tx(F, {2, 4}, x), tw(F, {4}, w), tb(F, {4}, b), ty(F, {2, 4}, y), tm(F, {2, 1}, mean), tr(F, {2, 1}, rstd);
  const int64_t shape[1] = {4};
  std::optional<Tensor> weight(tw.t()), bias(tb.t());
  Tensor o0 = ty.t(), o1 = tm.t(), o2 = tr.t();
  EXPECT_KERNEL_OK(native::native_layer_norm_out(ctx, tx.t(), ints(shape, 1), weight, bias, 1e-5, o0, o1, o2));
  const double r0 = 1 / std::sqrt(1.25 + 1e-5);
  CHECK(values_are(mean, {2.5, 3}));
  CHECK(near(rstd[0], r0));
  CHECK(values_are(y, {-1.5 * r0, -0.5 * r0, 2 * 0.5 * r0, 2 * 1.5 * r0 + 1}));
  const int64_t bad_shape[1] = {3};
  EXPECT_KERNEL_FAILS(native::native_layer_norm_out(ctx, tx.t(), ints(bad_shape, 1), weight, bias, 1e-5, o0, o1, o2));
  TT tshort(F, {3}, w);
  std::optional<Tensor> short_weight(tshort.t());
  EXPECT_KERNEL_FAILS(native::native_layer_norm_out(ctx, tx.t(), ints(shape, 1), short_weight, bias, 1e-5, o0, o1,
                                                    o2));
}

// ---- data movement ------------------------------------------------------------------

void check_permute_copy() {
  float x[24], o[24];
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i);
  TT tx(F, {2, 3, 4}, x), to(F, {4, 2, 3}, o);
  const int64_t dims[3] = {2, 0, 1};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::permute_copy_out(ctx, tx.t(), ints(dims, 3), out));
  // out[k][i][j] = x[i][j][k]
  CHECK(o[0] == 0 && o[1] == 4 && o[3] == 12 && o[6] == 1 && o[23] == 23);
  const int64_t t2[2] = {1, 0};
  float m[6] = {1, 2, 3, 4, 5, 6}, mo[6];
  TT tm(F, {2, 3}, m), tmo(F, {3, 2}, mo);
  out = tmo.t();
  EXPECT_KERNEL_OK(native::permute_copy_out(ctx, tm.t(), ints(t2, 2), out));
  CHECK(values_are(mo, {1, 4, 2, 5, 3, 6}));
  const int64_t repeated[3] = {0, 0, 1}, negative[3] = {-1, 0, 1};
  out = to.t();
  EXPECT_KERNEL_FAILS(native::permute_copy_out(ctx, tx.t(), ints(repeated, 3), out));
  EXPECT_KERNEL_FAILS(native::permute_copy_out(ctx, tx.t(), ints(dims, 2), out));
  EXPECT_KERNEL_OK(native::permute_copy_out(ctx, tx.t(), ints(negative, 3), out));
}

void check_expand_copy() {
  float x[3] = {1, 2, 3}, o[24];
  TT tx(F, {3, 1}, x), to(F, {2, 3, 4}, o);
  const int64_t size[3] = {2, -1, 4};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::expand_copy_out(ctx, tx.t(), ints(size, 3), false, out));
  CHECK(o[0] == 1 && o[3] == 1 && o[4] == 2 && o[11] == 3 && o[12] == 1 && o[23] == 3);
  float y[6];
  TT ty(F, {3, 2}, y);
  const int64_t bad[2] = {3, 4};
  EXPECT_KERNEL_FAILS(native::expand_copy_out(ctx, ty.t(), ints(bad, 2), false, out));
  const int64_t fewer[1] = {3};
  EXPECT_KERNEL_FAILS(native::expand_copy_out(ctx, tx.t(), ints(fewer, 1), false, out));
}

void check_split_with_sizes_copy() {
  float x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, a[4], b[6];
  TT tx(F, {2, 5}, x), ta(F, {2, 2}, a), tb(F, {2, 3}, b);
  Tensor outs[2] = {ta.t(), tb.t()};
  const int64_t sizes[2] = {2, 3};
  {
    KernelRuntimeContext ctx;
    native::split_with_sizes_copy_out(ctx, tx.t(), ints(sizes, 2), -1, ArrayRef<Tensor>(outs, 2));
    CHECK(ctx.failure_state() == Error::Ok);
  }
  CHECK(values_are(a, {0, 1, 5, 6}));
  CHECK(values_are(b, {2, 3, 4, 7, 8, 9}));
  const int64_t bad[2] = {2, 2};
  {
    KernelRuntimeContext ctx;
    native::split_with_sizes_copy_out(ctx, tx.t(), ints(bad, 2), 1, ArrayRef<Tensor>(outs, 2));
    CHECK(ctx.failure_state() != Error::Ok);  // sizes do not add up
  }
  {
    KernelRuntimeContext ctx;
    native::split_with_sizes_copy_out(ctx, tx.t(), ints(sizes, 2), 1, ArrayRef<Tensor>(outs, 1));
    CHECK(ctx.failure_state() != Error::Ok);  // one out for two sizes
  }
  {
    KernelRuntimeContext ctx;
    native::split_with_sizes_copy_out(ctx, tx.t(), ints(sizes, 2), 2, ArrayRef<Tensor>(outs, 2));
    CHECK(ctx.failure_state() != Error::Ok);  // dim out of range
  }
}

void check_embedding() {
  float w[12] = {0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32}, o[12];
  int64_t idx[4] = {3, 0, 1, 3};
  TT tw(F, {4, 3}, w), ti(L, {2, 2}, idx), to(F, {2, 2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::embedding_out(ctx, tw.t(), ti.t(), -1, false, false, out));
  CHECK(values_are(o, {30, 31, 32, 0, 1, 2, 10, 11, 12, 30, 31, 32}));
  int32_t idx32[2] = {2, 1};
  float o2[6];
  TT ti32(I, {2}, idx32), to2(F, {2, 3}, o2);
  out = to2.t();
  EXPECT_KERNEL_OK(native::embedding_out(ctx, tw.t(), ti32.t(), -1, false, false, out));
  CHECK(values_are(o2, {20, 21, 22, 10, 11, 12}));
  int64_t bad[4] = {0, 4, 1, 1};
  TT tbad(L, {2, 2}, bad);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::embedding_out(ctx, tw.t(), tbad.t(), -1, false, false, out));  // index 4 of 4 rows
  TT tw1(F, {12}, w);
  EXPECT_KERNEL_FAILS(native::embedding_out(ctx, tw1.t(), ti.t(), -1, false, false, out));  // 1-D weight
}

void check_to_dim_order_copy() {
  int64_t x[6] = {1, 2, 3, 4, 5, 6};
  float o[6];
  TT tx(L, {2, 3}, x), to(F, {2, 3}, o);
  const int64_t contiguous[2] = {0, 1};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::_to_dim_order_copy_out(ctx, tx.t(), false, ints(contiguous, 2), out));
  CHECK(values_are(o, {1, 2, 3, 4, 5, 6}));
  // Same dtype, new layout: out laid out with dim order (1, 0) holds the transpose in memory.
  float f[6] = {1, 2, 3, 4, 5, 6}, t[6];
  TT tf(F, {2, 3}, f), tt(F, {2, 3}, t, TensorShapeDynamism::STATIC, {1, 0});
  const int64_t transposed[2] = {1, 0};
  out = tt.t();
  EXPECT_KERNEL_OK(native::_to_dim_order_copy_out(ctx, tf.t(), false, ints(transposed, 2), out));
  CHECK(values_are(t, {1, 4, 2, 5, 3, 6}));
  // Both at once: Long -> Double into dim order (1, 0).
  double d[6];
  TT td(D, {2, 3}, d, TensorShapeDynamism::STATIC, {1, 0});
  out = td.t();
  EXPECT_KERNEL_OK(native::_to_dim_order_copy_out(ctx, tx.t(), false, ints(transposed, 2), out));
  CHECK(values_are(d, {1, 4, 2, 5, 3, 6}));
  // No dim order: the layout is preserved (out must match self's).
  out = to.t();
  EXPECT_KERNEL_OK(native::_to_dim_order_copy_out(ctx, tx.t(), false, std::nullopt, out));
  out = tt.t();
  EXPECT_KERNEL_FAILS(native::_to_dim_order_copy_out(ctx, tf.t(), false, std::nullopt, out));
  EXPECT_KERNEL_FAILS(native::_to_dim_order_copy_out(ctx, tf.t(), false, ints(contiguous, 2), out));
  const int64_t three[3] = {0, 1, 2};
  out = to.t();
  EXPECT_KERNEL_FAILS(native::_to_dim_order_copy_out(ctx, tx.t(), false, ints(three, 3), out));
  float wrong[4];
  TT tw(F, {2, 2}, wrong);
  out = tw.t();
  EXPECT_KERNEL_FAILS(native::_to_dim_order_copy_out(ctx, tx.t(), false, ints(contiguous, 2), out));  // static shape
}

// ---- integer overflow wraps around, as in ATen ---------------------------------------
// (Signed overflow is undefined in C++: the kernels compute integers in
// uint64_t. The sanitized build of these checks, tools/runner/fuzz, proves it.)
void check_integer_overflow_wraps() {
  const int64_t max = INT64_MAX, min = INT64_MIN, one = 1, two = 2;
  int64_t o = 0;
  int64_t maxv = max, minv = min, onev = one, twov = two;
  TT tmax(L, {1}, &maxv), tmin(L, {1}, &minv), tone(L, {1}, &onev), ttwo(L, {1}, &twov), to(L, {1}, &o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, tmax.t(), tone.t(), Scalar(int64_t(1)), out));
  CHECK(o == min);
  EXPECT_KERNEL_OK(native::add_out(ctx, tone.t(), tone.t(), Scalar(max), out));  // 1 + max * 1
  CHECK(o == min);
  EXPECT_KERNEL_OK(native::sub_out(ctx, tmin.t(), tone.t(), Scalar(int64_t(1)), out));
  CHECK(o == max);
  EXPECT_KERNEL_OK(native::mul_out(ctx, tmax.t(), ttwo.t(), out));
  CHECK(o == -2);
  EXPECT_KERNEL_OK(native::neg_out(ctx, tmin.t(), out));
  CHECK(o == min);
  int64_t pair[2] = {max, 1}, total = 0;
  TT tpair(L, {2}, pair), ttotal(L, {}, &total);
  out = ttotal.t();
  EXPECT_KERNEL_OK(native::sum_dim_out(ctx, tpair.t(), std::nullopt, false, std::nullopt, out));
  CHECK(total == min);
  int32_t imax = INT32_MAX, itwo = 2, io = 0;
  TT timax(I, {1}, &imax), titwo(I, {1}, &itwo), tio(I, {1}, &io);
  out = tio.t();
  EXPECT_KERNEL_OK(native::mul_out(ctx, timax.t(), titwo.t(), out));
  CHECK(io == -2);
  int64_t m1[4] = {max, max, 1, 1}, m2[4] = {2, 0, 0, 2}, bias[2] = {0, 0}, mo[4] = {};
  TT tm1(L, {2, 2}, m1), tm2(L, {2, 2}, m2), tbias(L, {2}, bias), tmo(L, {2, 2}, mo);
  out = tmo.t();
  EXPECT_KERNEL_OK(native::addmm_out(ctx, tbias.t(), tm1.t(), tm2.t(), Scalar(int64_t(1)), Scalar(int64_t(1)), out));
  CHECK(mo[0] == -2 && mo[1] == -2 && mo[2] == 2 && mo[3] == 2);
}

// ---- shape and copy ops ------------------------------------------------------------

void check_reshapes() {
  float x[6] = {1, 2, 3, 4, 5, 6}, o[6];
  TT tx(F, {2, 3}, x), to(F, {3, 2}, o, DYN);
  Tensor out = to.t();
  const int64_t inferred[2] = {-1, 2}, two_missing[2] = {-1, -1}, wrong[2] = {4, 2};
  EXPECT_KERNEL_OK(native::view_copy_out(ctx, tx.t(), ints(inferred, 2), out));
  CHECK(out.sizes()[0] == 3 && out.sizes()[1] == 2 && values_are(o, {1, 2, 3, 4, 5, 6}));
  EXPECT_KERNEL_FAILS(native::view_copy_out(ctx, tx.t(), ints(two_missing, 2), out));
  EXPECT_KERNEL_FAILS(native::view_copy_out(ctx, tx.t(), ints(wrong, 2), out));
  float u[6];
  TT tu(F, {2, 1, 3}, u);
  out = tu.t();
  EXPECT_KERNEL_OK(native::unsqueeze_copy_out(ctx, tx.t(), -2, out));
  EXPECT_KERNEL_FAILS(native::unsqueeze_copy_out(ctx, tx.t(), 3, out));
  TT tsq(F, {2, 3}, o);
  out = tsq.t();
  const int64_t dims[2] = {1, 0}, repeated[2] = {1, -2}, far[1] = {3};
  EXPECT_KERNEL_OK(native::squeeze_copy_dims_out(ctx, tu.t(), ints(dims, 2), out));  // dim 0 (size 2) stays
  EXPECT_KERNEL_FAILS(native::squeeze_copy_dims_out(ctx, tu.t(), ints(repeated, 2), out));
  EXPECT_KERNEL_FAILS(native::squeeze_copy_dims_out(ctx, tu.t(), ints(far, 1), out));
  EXPECT_KERNEL_OK(native::squeeze_copy_dim_out(ctx, tu.t(), 1, out));
  EXPECT_KERNEL_FAILS(native::squeeze_copy_dim_out(ctx, tu.t(), -4, out));
  EXPECT_KERNEL_OK(native::alias_copy_out(ctx, tx.t(), out));
  int64_t l6[6];
  TT tl(L, {2, 3}, l6);
  out = tl.t();
  EXPECT_KERNEL_FAILS(native::alias_copy_out(ctx, tx.t(), out));  // dtype differs
  // _clone_dim_order into channels-last.
  float c[4], cx[4] = {1, 2, 3, 4};
  TT tcx(F, {1, 2, 2, 1}, cx), tc(F, {1, 2, 2, 1}, c, TensorShapeDynamism::STATIC, {0, 2, 3, 1});
  out = tc.t();
  const int64_t last[4] = {0, 2, 3, 1};
  EXPECT_KERNEL_OK(native::_clone_dim_order_out(ctx, tcx.t(), false, ints(last, 4), out));
  CHECK(values_are(c, {1, 3, 2, 4}));
  EXPECT_KERNEL_FAILS(native::_clone_dim_order_out(ctx, tcx.t(), false, std::nullopt, out));
}

void check_select_slice() {
  float x[6] = {1, 2, 3, 4, 5, 6}, o[3];
  TT tx(F, {2, 3}, x), to(F, {3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::select_copy_int_out(ctx, tx.t(), 0, -1, out));
  CHECK(values_are(o, {4, 5, 6}));
  EXPECT_KERNEL_FAILS(native::select_copy_int_out(ctx, tx.t(), 0, 2, out));
  EXPECT_KERNEL_FAILS(native::select_copy_int_out(ctx, tx.t(), 2, 0, out));
  float so[4];
  TT tso(F, {2, 2}, so, DYN);
  out = tso.t();
  EXPECT_KERNEL_OK(native::slice_copy_Tensor_out(ctx, tx.t(), 1, int64_t(-3), std::nullopt, 2, out));
  CHECK(values_are(so, {1, 3, 4, 6}));
  EXPECT_KERNEL_FAILS(native::slice_copy_Tensor_out(ctx, tx.t(), 1, int64_t(0), int64_t(2), 0, out));
  const int64_t size[2] = {2, 2}, stride[2] = {1, 2}, big[2] = {3, 3};
  EXPECT_KERNEL_OK(native::as_strided_copy_out(ctx, tx.t(), ints(size, 2), ints(stride, 2), int64_t(1), out));
  CHECK(values_are(so, {2, 4, 3, 5}));
  EXPECT_KERNEL_FAILS(native::as_strided_copy_out(ctx, tx.t(), ints(big, 2), ints(big, 2), std::nullopt, out));
  float src[2] = {-1, -2}, sc[6];
  TT tsrc(F, {2, 1}, src), tsc(F, {2, 3}, sc);
  out = tsc.t();
  EXPECT_KERNEL_OK(native::slice_scatter_out(ctx, tx.t(), tsrc.t(), 1, int64_t(1), int64_t(2), 1, out));
  CHECK(values_are(sc, {1, -1, 3, 4, -2, 6}));
  EXPECT_KERNEL_FAILS(native::slice_scatter_out(ctx, tx.t(), tsrc.t(), 1, int64_t(0), int64_t(3), 1, out));
}

void check_cat_pad_copy() {
  float a[2] = {1, 2}, b[4] = {3, 4, 5, 6}, o[6], empty[1];
  TT ta(F, {1, 2}, a), tb(F, {2, 2}, b), te(F, {0}, empty), to(F, {3, 2}, o);
  Tensor list[3] = {ta.t(), te.t(), tb.t()};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::cat_out(ctx, ArrayRef<Tensor>(list, 3), 0, out));
  CHECK(values_are(o, {1, 2, 3, 4, 5, 6}));
  EXPECT_KERNEL_FAILS(native::cat_out(ctx, ArrayRef<Tensor>(list, 3), 1, out));  // sizes differ along dim 0
  EXPECT_KERNEL_FAILS(native::cat_out(ctx, ArrayRef<Tensor>(list, size_t(0)), 0, out));
  int64_t l[2] = {7, 8};
  TT tl(L, {1, 2}, l);
  Tensor mixed[2] = {ta.t(), tl.t()};
  float mo[4];
  TT tmo(F, {2, 2}, mo);
  out = tmo.t();
  EXPECT_KERNEL_OK(native::cat_out(ctx, ArrayRef<Tensor>(mixed, 2), 0, out));
  CHECK(values_are(mo, {1, 2, 7, 8}));
  int64_t lo[4];
  TT tlo(L, {2, 2}, lo);
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::cat_out(ctx, ArrayRef<Tensor>(mixed, 2), 0, out));  // Float into Long
  float p[8];
  TT tp(F, {1, 4}, p);
  out = tp.t();
  const int64_t pad[2] = {1, 1}, odd[1] = {1}, crop[2] = {-3, 0};
  EXPECT_KERNEL_OK(native::constant_pad_nd_out(ctx, ta.t(), ints(pad, 2), Scalar(0.5), out));
  CHECK(values_are(p, {0.5, 1, 2, 0.5}));
  EXPECT_KERNEL_FAILS(native::constant_pad_nd_out(ctx, ta.t(), ints(odd, 1), Scalar(0.0), out));
  EXPECT_KERNEL_FAILS(native::constant_pad_nd_out(ctx, ta.t(), ints(crop, 2), Scalar(0.0), out));
  float c[4];
  TT tc(F, {2, 2}, c);
  out = tc.t();
  EXPECT_KERNEL_OK(native::copy_out(ctx, tb.t(), tl.t(), false, out));  // Long row broadcast into Float
  CHECK(values_are(c, {7, 8, 7, 8}));
  float c3[3];
  TT t3(F, {3}, c3);
  EXPECT_KERNEL_FAILS(native::copy_out(ctx, tb.t(), t3.t(), false, out));
}

void check_indexing() {
  float x[6] = {1, 2, 3, 4, 5, 6}, o[4];
  int64_t idx[2] = {2, -3}, bad[2] = {0, 3};
  TT tx(F, {2, 3}, x), ti(L, {2}, idx), tbad(L, {2}, bad), to(F, {2, 2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::index_select_out(ctx, tx.t(), 1, ti.t(), out));
  CHECK(values_are(o, {3, 1, 6, 4}));
  EXPECT_KERNEL_FAILS(native::index_select_out(ctx, tx.t(), 1, tbad.t(), out));
  TT tf(F, {2}, o);
  EXPECT_KERNEL_FAILS(native::index_select_out(ctx, tx.t(), 1, tf.t(), out));  // Float index
  // x[:, [2, -3]] through index.Tensor: None then an index tensor.
  std::optional<Tensor> indices[2] = {std::nullopt, ti.t()};
  EXPECT_KERNEL_OK(native::index_Tensor_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(indices, 2), out));
  CHECK(values_are(o, {3, 1, 6, 4}));
  std::optional<Tensor> out_of_range[2] = {std::nullopt, tbad.t()};
  EXPECT_KERNEL_FAILS(native::index_Tensor_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(out_of_range, 2), out));
  std::optional<Tensor> too_many[3] = {std::nullopt, ti.t(), ti.t()};
  EXPECT_KERNEL_FAILS(native::index_Tensor_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(too_many, 3), out));
}

void check_index_put_and_copy_() {
  // x[:, [2, 0]] = [[10, 20], [30, 40]], then += 1 at x[[1, 1]] (a repeated row adds up).
  float x[6] = {1, 2, 3, 4, 5, 6}, v[4] = {10, 20, 30, 40}, one = 1, o[6];
  int64_t cols[2] = {2, 0}, rows[2] = {1, 1}, bad[1] = {3};
  TT tx(F, {2, 3}, x), tv(F, {2, 2}, v), tone(F, {}, &one), tc(L, {2}, cols), tr(L, {2}, rows), tb(L, {1}, bad),
      to(F, {2, 3}, o);
  Tensor out = to.t();
  std::optional<Tensor> at_cols[2] = {std::nullopt, tc.t()};
  EXPECT_KERNEL_OK(native::index_put_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(at_cols, 2), tv.t(), false, out));
  CHECK(values_are(o, {20, 2, 10, 40, 5, 30}));
  std::optional<Tensor> at_rows[1] = {tr.t()};
  EXPECT_KERNEL_OK(
      native::index_put_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(at_rows, 1), tone.t(), true, out));
  CHECK(values_are(o, {1, 2, 3, 6, 7, 8}));
  // Refused: an index out of range, values that do not broadcast, values of another dtype.
  std::optional<Tensor> out_of_range[1] = {tb.t()};
  EXPECT_KERNEL_FAILS(
      native::index_put_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(out_of_range, 1), tone.t(), false, out));
  float v3[3];
  TT tv3(F, {3}, v3);
  EXPECT_KERNEL_FAILS(
      native::index_put_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(at_cols, 2), tv3.t(), false, out));
  int64_t lv = 1;
  TT tlv(L, {}, &lv);
  EXPECT_KERNEL_FAILS(
      native::index_put_out(ctx, tx.t(), ArrayRef<std::optional<Tensor>>(at_rows, 1), tlv.t(), false, out));
  // copy_: self written in place, src broadcast; a src that does not broadcast is refused.
  float s[3] = {7, 8, 9};
  TT ts(F, {3}, s);
  Tensor self = tx.t();
  EXPECT_KERNEL_OK(native::copy_(ctx, self, ts.t(), false));
  CHECK(values_are(x, {7, 8, 9, 7, 8, 9}));
  EXPECT_KERNEL_FAILS(native::copy_(ctx, self, tv.t(), false));
}

void check_creation() {
  float o[6];
  TT to(F, {2, 3}, o, DYN);
  Tensor out = to.t();
  const int64_t size[2] = {3, 2}, negative[1] = {-1};
  EXPECT_KERNEL_OK(native::full_out(ctx, ints(size, 2), Scalar(2.5), out));
  CHECK(out.sizes()[0] == 3 && values_are(o, {2.5, 2.5, 2.5, 2.5, 2.5, 2.5}));
  EXPECT_KERNEL_FAILS(native::full_out(ctx, ints(negative, 1), Scalar(1.0), out));
  EXPECT_KERNEL_OK(native::full_like_out(ctx, to.t(), Scalar(int64_t(1)), std::nullopt, out));
  EXPECT_KERNEL_FAILS(
      native::full_like_out(ctx, to.t(), Scalar(int64_t(1)), static_cast<::executorch::aten::MemoryFormat>(2), out));
  float s;
  TT ts(F, {}, &s);
  out = ts.t();
  EXPECT_KERNEL_OK(native::scalar_tensor_out(ctx, Scalar(-4.0), out));
  CHECK(s == -4.0f);
  int64_t r[4];
  TT tr(L, {4}, r, DYN);
  out = tr.t();
  EXPECT_KERNEL_OK(native::arange_start_out(ctx, Scalar(int64_t(1)), Scalar(int64_t(8)), Scalar(int64_t(3)), out));
  CHECK(out.sizes()[0] == 3 && r[0] == 1 && r[1] == 4 && r[2] == 7);
  EXPECT_KERNEL_FAILS(native::arange_start_out(ctx, Scalar(int64_t(1)), Scalar(int64_t(8)), Scalar(int64_t(0)), out));
  EXPECT_KERNEL_FAILS(native::arange_out(ctx, Scalar(int64_t(-2)), out));
  EXPECT_KERNEL_FAILS(native::arange_out(ctx, Scalar(int64_t(9)), out));  // more than out's bound
}

// ---- comparison, logic and reductions to Bool -------------------------------------

void check_compare_and_logic() {
  int32_t x[4] = {1, 0, -3, 300};
  bool o[4];
  TT tx(I, {4}, x), to(B, {4}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::eq_scalar_out(ctx, tx.t(), Scalar(int64_t(300)), out));
  CHECK(!o[0] && !o[1] && !o[2] && o[3]);
  EXPECT_KERNEL_OK(native::le_scalar_out(ctx, tx.t(), Scalar(0.5), out));
  CHECK(!o[0] && o[1] && o[2] && !o[3]);
  EXPECT_KERNEL_OK(native::logical_not_out(ctx, tx.t(), out));
  CHECK(!o[0] && o[1] && !o[2] && !o[3]);
  bool y[2] = {true, false};
  TT ty(B, {2}, y);
  EXPECT_KERNEL_FAILS(native::logical_and_out(ctx, tx.t(), ty.t(), out));  // shapes do not broadcast
  bool z[4] = {true, true, false, false};
  TT tz(B, {4}, z);
  EXPECT_KERNEL_OK(native::logical_and_out(ctx, tx.t(), tz.t(), out));
  CHECK(o[0] && !o[1] && !o[2] && !o[3]);
  bool a[2];
  TT ta(B, {2}, a);
  TT tm(I, {2, 2}, x);
  out = ta.t();
  EXPECT_KERNEL_OK(native::any_out(ctx, tm.t(), 1, false, out));
  CHECK(a[0] && a[1]);
  EXPECT_KERNEL_FAILS(native::any_out(ctx, tm.t(), 2, false, out));
  float f[2];
  TT tf(F, {2}, f);
  out = tf.t();
  EXPECT_KERNEL_FAILS(native::any_out(ctx, tm.t(), 1, false, out));  // Float out
  TT tq(ScalarType::QInt8, {4}, x);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::ne_scalar_out(ctx, tq.t(), Scalar(int64_t(0)), out));
}

// ---- arithmetic with Scalars and unary math -----------------------------------------

void check_scalar_arithmetic() {
  int64_t x[3] = {7, -7, 2};
  float fo[3];
  int64_t lo[3];
  TT tx(L, {3}, x), tfo(F, {3}, fo), tlo(L, {3}, lo);
  Tensor out = tfo.t();
  EXPECT_KERNEL_OK(native::mul_scalar_out(ctx, tx.t(), Scalar(0.5), out));  // Long * double -> Float
  CHECK(values_are(fo, {3.5, -3.5, 1}));
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::mul_scalar_out(ctx, tx.t(), Scalar(0.5), out));  // Float result into Long
  EXPECT_KERNEL_OK(native::fmod_Scalar_out(ctx, tx.t(), Scalar(int64_t(-3)), out));
  CHECK(lo[0] == 1 && lo[1] == -1 && lo[2] == 2);
  EXPECT_KERNEL_FAILS(native::fmod_Scalar_out(ctx, tx.t(), Scalar(int64_t(0)), out));
  EXPECT_KERNEL_OK(native::sub_scalar_out(ctx, tx.t(), Scalar(int64_t(2)), Scalar(int64_t(3)), out));
  CHECK(lo[0] == 1 && lo[1] == -13 && lo[2] == -4);
  EXPECT_KERNEL_FAILS(native::add_scalar_out(ctx, tx.t(), Scalar(int64_t(2)), Scalar(0.5), out));
  out = tfo.t();
  EXPECT_KERNEL_OK(native::div_scalar_out(ctx, tx.t(), Scalar(int64_t(2)), out));
  CHECK(values_are(fo, {3.5, -3.5, 1}));
  EXPECT_KERNEL_OK(native::clamp_out(ctx, tx.t(), Scalar(int64_t(0)), std::nullopt, out));
  CHECK(values_are(fo, {7, 0, 2}));
  EXPECT_KERNEL_FAILS(native::clamp_out(ctx, tx.t(), std::nullopt, std::nullopt, out));
  float h[3] = {-5, 0.25f, 9};
  TT th(F, {3}, h);
  EXPECT_KERNEL_OK(native::hardtanh_out(ctx, th.t(), Scalar(0.0), Scalar(6.0), out));
  CHECK(values_are(fo, {0, 0.25, 6}));
  out = tlo.t();
  EXPECT_KERNEL_FAILS(native::hardtanh_out(ctx, th.t(), Scalar(0.0), Scalar(6.0), out));
}

/// Scalars that do not fit the dtype they are used in are refused (ATen's
/// rule, util/scalar_fits.h); a negative fill value wraps into Byte.
void check_scalar_overflow() {
  uint8_t u[2];
  TT tu(ScalarType::Byte, {2}, u);
  Tensor out = tu.t();
  const int64_t size[1] = {2};
  EXPECT_KERNEL_FAILS(native::full_out(ctx, ints(size, 1), Scalar(int64_t(256)), out));
  EXPECT_KERNEL_OK(native::full_out(ctx, ints(size, 1), Scalar(int64_t(-1)), out));
  CHECK(u[0] == 255 && u[1] == 255);
  u[0] = 3;
  u[1] = 200;
  EXPECT_KERNEL_FAILS(native::clamp_out(ctx, tu.t(), Scalar(int64_t(-1)), std::nullopt, out));  // bounds do not wrap
  EXPECT_KERNEL_OK(native::clamp_out(ctx, tu.t(), Scalar(int64_t(5)), Scalar(int64_t(255)), out));
  CHECK(u[0] == 5 && u[1] == 200);
  int8_t c[2] = {1, 2}, co[2];
  TT tc(ScalarType::Char, {2}, c), tco(ScalarType::Char, {2}, co);
  out = tco.t();
  EXPECT_KERNEL_FAILS(native::add_out(ctx, tc.t(), tc.t(), Scalar(int64_t(-129)), out));
  EXPECT_KERNEL_OK(native::add_out(ctx, tc.t(), tc.t(), Scalar(int64_t(-128)), out));
  CHECK(co[0] == -127 && co[1] == 2);  // 1 - 128 and 2 - 256 wrapped
  EXPECT_KERNEL_FAILS(native::add_scalar_out(ctx, tc.t(), Scalar(int64_t(1)), Scalar(int64_t(128)), out));
  float f[2] = {-1, 1}, fo[2];
  TT tf(F, {2}, f), tfo(F, {2}, fo);
  out = tfo.t();
  EXPECT_KERNEL_FAILS(native::full_out(ctx, ints(size, 1), Scalar(3.41e38), out));
  EXPECT_KERNEL_OK(native::full_out(ctx, ints(size, 1), Scalar(-INFINITY), out));  // infinities fit
  CHECK(std::isinf(fo[0]) && fo[0] < 0);
  EXPECT_KERNEL_FAILS(native::hardtanh_out(ctx, tf.t(), Scalar(-3.41e38), Scalar(1.0), out));
  EXPECT_KERNEL_FAILS(native::leaky_relu_out(ctx, tf.t(), Scalar(3.41e38), out));
  float s;
  TT ts(F, {}, &s);
  out = ts.t();
  EXPECT_KERNEL_FAILS(native::scalar_tensor_out(ctx, Scalar(1e39), out));
  EXPECT_KERNEL_OK(native::scalar_tensor_out(ctx, Scalar(int64_t(1) << 40), out));  // any integer fits Float
  CHECK(s == 1099511627776.0f);
}

/// add.out on complex tensors (one dtype throughout), and the refusals of
/// out dtypes other than self's (elu, gelu) and of implicit expansion.
void check_complex_add_and_refusals() {
  using CF = ::executorch::aten::complex<float>;
  CF a[2] = {CF(1, 2), CF(3, -4)}, b[1] = {CF(0.5f, 1)}, o[2];
  TT ta(ScalarType::ComplexFloat, {2}, a), tb(ScalarType::ComplexFloat, {1}, b), to(ScalarType::ComplexFloat, {2}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::add_out(ctx, ta.t(), tb.t(), Scalar(int64_t(2)), out));
  CHECK(o[0] == CF(2, 4) && o[1] == CF(4, -2));
  float f[2] = {1, -1};
  TT tf(F, {2}, f);
  EXPECT_KERNEL_FAILS(native::add_out(ctx, ta.t(), tf.t(), Scalar(int64_t(1)), out));  // no complex promotion
  double d[2];
  TT td(D, {2}, d);
  out = td.t();
  EXPECT_KERNEL_FAILS(native::elu_out(ctx, tf.t(), Scalar(1.0), Scalar(1.0), Scalar(1.0), out));
  EXPECT_KERNEL_FAILS(native::gelu_out(ctx, tf.t(), "none", out));
  float e[4];
  TT te(F, {2, 2}, e);
  out = te.t();
  const int64_t size[2] = {2, 2};
  EXPECT_KERNEL_FAILS(native::expand_copy_out(ctx, tf.t(), ints(size, 2), true, out));
  EXPECT_KERNEL_OK(native::expand_copy_out(ctx, tf.t(), ints(size, 2), false, out));
}

void check_unary_math() {
  float x[3] = {-1, 0, 2}, o[3];
  TT tx(F, {3}, x), to(F, {3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::sigmoid_out(ctx, tx.t(), out));
  CHECK(values_are(o, {0.2689414, 0.5, 0.8807971}));
  EXPECT_KERNEL_OK(native::gelu_out(ctx, tx.t(), "none", out));
  CHECK(values_are(o, {-0.1586553, 0, 1.9544997}));
  EXPECT_KERNEL_OK(native::gelu_out(ctx, tx.t(), "tanh", out));
  CHECK(values_are(o, {-0.1588080, 0, 1.9545977}));
  EXPECT_KERNEL_FAILS(native::gelu_out(ctx, tx.t(), "sigmoid", out));
  // NaN and infinities through the vectorised exp and erf (the fuzzer once
  // found NaN reaching a float-to-int conversion there: undefined behaviour).
  float special[3] = {NAN, INFINITY, -INFINITY}, so[3];
  TT tsp(F, {3}, special), tso(F, {3}, so);
  out = tso.t();
  EXPECT_KERNEL_OK(native::sigmoid_out(ctx, tsp.t(), out));
  CHECK(std::isnan(so[0]) && so[1] == 1.0f && so[2] == 0.0f);
  EXPECT_KERNEL_OK(native::gelu_out(ctx, tsp.t(), "none", out));
  CHECK(std::isnan(so[0]) && std::isinf(so[1]));
  EXPECT_KERNEL_OK(native::softmax_out(ctx, tsp.t(), 0, false, out));
  CHECK(std::isnan(so[0]) && std::isnan(so[1]) && std::isnan(so[2]));
  out = to.t();
  int32_t i[3] = {-1, 0, 2};
  TT ti(I, {3}, i);
  EXPECT_KERNEL_OK(native::tanh_out(ctx, ti.t(), out));  // Int in, Float out
  CHECK(values_are(o, {-0.7615942, 0, 0.9640276}));
  int32_t io[3];
  TT tio(I, {3}, io);
  out = tio.t();
  EXPECT_KERNEL_FAILS(native::exp_out(ctx, ti.t(), out));  // an integral out
}

// ---- normalisation, pooling, matrix products ----------------------------------------

void check_batch_norm_pool_mm() {
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, mean[2] = {1, 2}, var[2] = {4, 1}, w[2] = {2, 1}, b[2] = {0, 10};
  float o[8], e1[1], e2[1];
  TT tx(F, {1, 2, 2, 2}, x), tm(F, {2}, mean), tv(F, {2}, var), tw(F, {2}, w), tb(F, {2}, b), to(F, {1, 2, 2, 2}, o);
  TT t1(F, {0}, e1, DYN), t2(F, {0}, e2, DYN);
  Tensor out = to.t(), out1 = t1.t(), out2 = t2.t();
  EXPECT_KERNEL_OK(native::_native_batch_norm_legit_no_training_out(ctx, tx.t(), tw.t(), tb.t(), tm.t(), tv.t(), 0.1,
                                                                    0.0, out, out1, out2));
  CHECK(values_are(o, {0, 1, 2, 3, 13, 14, 15, 16}));
  float m3[3];
  TT t3(F, {3}, m3);
  EXPECT_KERNEL_FAILS(native::_native_batch_norm_legit_no_training_out(ctx, tx.t(), tw.t(), tb.t(), t3.t(), tv.t(),
                                                                       0.1, 1e-5, out, out1, out2));
  float p[2];
  TT tp(F, {1, 2, 1, 1}, p);
  out = tp.t();
  const int64_t k2[1] = {2}, k3[3] = {2, 2, 2};
  EXPECT_KERNEL_OK(native::avg_pool2d_out(ctx, tx.t(), ints(k2, 1), {}, {}, false, true, std::nullopt, out));
  CHECK(values_are(p, {2.5, 6.5}));
  EXPECT_KERNEL_FAILS(native::avg_pool2d_out(ctx, tx.t(), ints(k3, 3), {}, {}, false, true, std::nullopt, out));
  EXPECT_KERNEL_FAILS(native::avg_pool2d_out(ctx, tx.t(), ints(k2, 1), {}, {}, false, true, int64_t(0), out));
  float a[6] = {1, 2, 3, 4, 5, 6}, mb[2] = {1, -1}, mo[3];
  TT ta(F, {3, 2}, a), tmb(F, {2, 1}, mb), tmo(F, {3, 1}, mo);
  out = tmo.t();
  EXPECT_KERNEL_OK(native::mm_out(ctx, ta.t(), tmb.t(), out));
  CHECK(values_are(mo, {-1, -1, -1}));
  EXPECT_KERNEL_FAILS(native::mm_out(ctx, ta.t(), ta.t(), out));
  float lsm[3];
  TT tl(F, {3}, lsm);
  out = tl.t();
  TT tv3(F, {3}, x);
  EXPECT_KERNEL_OK(native::log_softmax_out(ctx, tv3.t(), 0, false, out));
  CHECK(values_are(lsm, {-2.4076059, -1.4076059, -0.4076059}));
  EXPECT_KERNEL_FAILS(native::log_softmax_out(ctx, tv3.t(), 1, false, out));
}

// ---- the rest of the library: binary tensor ops, rounding, reductions, resampling ----

void check_binary_tensor_ops() {
  float a[3] = {1, NAN, 3}, b[3] = {2, 0, -1}, o[3];
  TT ta(F, {3}, a), tb(F, {3}, b), to(F, {3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::minimum_out(ctx, ta.t(), tb.t(), out));
  CHECK(o[0] == 1 && std::isnan(o[1]) && o[2] == -1);
  EXPECT_KERNEL_OK(native::maximum_out(ctx, ta.t(), tb.t(), out));
  CHECK(o[0] == 2 && std::isnan(o[1]) && o[2] == 3);
  int64_t x[3] = {2, -3, 7}, e[3] = {10, 3, -1}, lo[3];
  TT tx(L, {3}, x), te(L, {3}, e), tlo(L, {3}, lo);
  out = tlo.t();
  EXPECT_KERNEL_OK(native::pow_Tensor_Tensor_out(ctx, tx.t(), te.t(), out));
  CHECK(lo[0] == 1024 && lo[1] == -27 && lo[2] == 0);
  EXPECT_KERNEL_FAILS(native::pow_Tensor_Scalar_out(ctx, tx.t(), Scalar(int64_t(-1)), out));
  EXPECT_KERNEL_OK(native::pow_Tensor_Scalar_out(ctx, tx.t(), Scalar(int64_t(2)), out));
  CHECK(lo[0] == 4 && lo[1] == 9 && lo[2] == 49);
  EXPECT_KERNEL_OK(native::fmod_Tensor_out(ctx, tx.t(), te.t(), out));
  CHECK(lo[0] == 2 && lo[1] == 0 && lo[2] == 0);
  int64_t z[3] = {1, 0, 1};
  TT tz(L, {3}, z);
  EXPECT_KERNEL_FAILS(native::fmod_Tensor_out(ctx, tx.t(), tz.t(), out));
  EXPECT_KERNEL_OK(native::bitwise_and_Tensor_out(ctx, tx.t(), te.t(), out));
  CHECK(lo[0] == 2 && lo[1] == (-3 & 3) && lo[2] == 7);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::bitwise_and_Tensor_out(ctx, ta.t(), tb.t(), out));
  bool bo[3];
  TT tbo(B, {3}, bo);
  out = tbo.t();
  EXPECT_KERNEL_OK(native::lt_tensor_out(ctx, tx.t(), tb.t(), out));  // Long against Float
  CHECK(!bo[0] && bo[1] && !bo[2]);
  float two[2];
  TT t2(F, {2}, two);
  EXPECT_KERNEL_FAILS(native::eq_tensor_out(ctx, tx.t(), t2.t(), out));
}

void check_rounding_and_activations() {
  float x[4] = {-1.5f, -0.5f, 0.5f, 2.5f}, o[4];
  TT tx(F, {4}, x), to(F, {4}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::round_out(ctx, tx.t(), out));
  CHECK(values_are(o, {-2, -0.0, 0, 2}));
  EXPECT_KERNEL_OK(native::floor_out(ctx, tx.t(), out));
  CHECK(values_are(o, {-2, -1, 0, 2}));
  EXPECT_KERNEL_OK(native::ceil_out(ctx, tx.t(), out));
  CHECK(values_are(o, {-1, 0, 1, 3}));
  EXPECT_KERNEL_OK(native::abs_out(ctx, tx.t(), out));
  CHECK(values_are(o, {1.5, 0.5, 0.5, 2.5}));
  EXPECT_KERNEL_OK(native::leaky_relu_out(ctx, tx.t(), Scalar(0.1), out));
  CHECK(values_are(o, {-0.15, -0.05, 0.5, 2.5}));
  EXPECT_KERNEL_OK(native::elu_out(ctx, tx.t(), Scalar(1.0), Scalar(1.0), Scalar(1.0), out));
  CHECK(values_are(o, {-0.7768698, -0.3934693, 0.5, 2.5}));
  bool b[4] = {true, false, true, false}, bo[4];
  TT tb(B, {4}, b), tbo(B, {4}, bo);
  out = tbo.t();
  EXPECT_KERNEL_FAILS(native::abs_out(ctx, tb.t(), out));
  int32_t i[4] = {1, -2, 3, -4}, io[4];
  TT ti(I, {4}, i), tio(I, {4}, io);
  out = tio.t();
  EXPECT_KERNEL_FAILS(native::leaky_relu_out(ctx, ti.t(), Scalar(0.1), out));
  double d[4];
  TT td(D, {4}, d);
  out = td.t();
  EXPECT_KERNEL_FAILS(native::leaky_relu_out(ctx, tx.t(), Scalar(0.1), out));  // out's dtype not self's
  out = tio.t();
  EXPECT_KERNEL_OK(native::floor_out(ctx, ti.t(), out));
  CHECK(io[1] == -2 && io[3] == -4);
}

void check_reductions_and_scans() {
  float x[6] = {1, 5, 2, 4, 3, 6}, o[3];
  TT tx(F, {2, 3}, x), to(F, {3}, o);
  Tensor out = to.t();
  const int64_t d0[1] = {0}, d5[1] = {5};
  EXPECT_KERNEL_OK(native::amax_out(ctx, tx.t(), ints(d0, 1), false, out));
  CHECK(values_are(o, {4, 5, 6}));
  EXPECT_KERNEL_FAILS(native::amax_out(ctx, tx.t(), ints(d5, 1), false, out));
  int64_t idx[2];
  TT ti(L, {2}, idx);
  out = ti.t();
  EXPECT_KERNEL_OK(native::argmax_out(ctx, tx.t(), int64_t(1), false, out));
  CHECK(idx[0] == 1 && idx[1] == 2);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::argmax_out(ctx, tx.t(), int64_t(1), false, out));  // not Long
  float v[2];
  TT tv(F, {2}, v);
  out = tv.t();
  const int64_t d1[1] = {1};
  EXPECT_KERNEL_OK(native::var_correction_out(ctx, tx.t(), ints(d1, 1), std::nullopt, false, out));
  CHECK(values_are(v, {4.333333, 2.333333}));
  EXPECT_KERNEL_FAILS(native::var_correction_out(ctx, tx.t(), ints(d5, 1), std::nullopt, false, out));
  float c[6];
  TT tc(F, {2, 3}, c);
  out = tc.t();
  EXPECT_KERNEL_OK(native::cumsum_out(ctx, tx.t(), 1, std::nullopt, out));
  CHECK(values_are(c, {1, 6, 8, 4, 7, 13}));
  EXPECT_KERNEL_FAILS(native::cumsum_out(ctx, tx.t(), 2, std::nullopt, out));
  int32_t ci[3] = {1, 2, 3};
  TT tci(I, {3}, ci);
  EXPECT_KERNEL_FAILS(native::cumsum_out(ctx, tci.t(), 0, std::nullopt, out));  // Int sums into Long, not Float
  float f[6];
  TT tf(F, {2, 3}, f);
  out = tf.t();
  const int64_t both[2] = {0, -1}, twice[2] = {1, 1};
  EXPECT_KERNEL_OK(native::flip_out(ctx, tx.t(), ints(both, 2), out));
  CHECK(values_are(f, {6, 3, 4, 2, 5, 1}));
  EXPECT_KERNEL_FAILS(native::flip_out(ctx, tx.t(), ints(twice, 2), out));
  int64_t gi[2] = {2, -1}, bad[2] = {0, 3};
  TT tgi(L, {1, 2}, gi), tbad(L, {1, 2}, bad);
  float g[2];
  TT tg(F, {1, 2}, g);
  out = tg.t();
  EXPECT_KERNEL_OK(native::gather_out(ctx, tx.t(), 1, tgi.t(), false, out));
  CHECK(values_are(g, {2, 2}));
  EXPECT_KERNEL_FAILS(native::gather_out(ctx, tx.t(), 1, tbad.t(), false, out));
}

void check_resampling_and_group_norm() {
  float x[4] = {1, 2, 3, 4}, o[16], p[1];
  TT tx(F, {1, 1, 2, 2}, x), to(F, {1, 1, 4, 4}, o), tp(F, {1, 1, 1, 1}, p);
  Tensor out = to.t();
  const int64_t size4[2] = {4, 4}, size1[2] = {1, 1}, one[1] = {4};
  EXPECT_KERNEL_OK(native::upsample_nearest2d_vec_out(ctx, tx.t(), ints(size4, 2), std::nullopt, out));
  CHECK(values_are(o, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  const double scales[2] = {2.0, 2.0};
  EXPECT_KERNEL_FAILS(native::upsample_nearest2d_vec_out(ctx, tx.t(), ints(size4, 2), ArrayRef<double>(scales, 2),
                                                         out));  // both given
  EXPECT_KERNEL_OK(native::upsample_bilinear2d_vec_out(ctx, tx.t(), std::nullopt, true, ArrayRef<double>(scales, 2),
                                                       out));
  CHECK(near(o[0], 1) && near(o[3], 2) && near(o[15], 4) && near(o[1], 1 + 1.0 / 3));
  EXPECT_KERNEL_FAILS(native::upsample_bilinear2d_vec_out(ctx, tx.t(), ints(one, 1), false, std::nullopt, out));
  out = tp.t();
  EXPECT_KERNEL_OK(native::_adaptive_avg_pool2d_out(ctx, tx.t(), ints(size1, 2), out));
  CHECK(values_are(p, {2.5}));
  EXPECT_KERNEL_FAILS(native::_adaptive_avg_pool2d_out(ctx, tx.t(), ints(one, 1), out));
  float y[4], mean[1], rstd[1];
  TT ty(F, {1, 1, 2, 2}, y), tm(F, {1, 1}, mean), tr(F, {1, 1}, rstd);
  Tensor o0 = ty.t(), o1 = tm.t(), o2 = tr.t();
  EXPECT_KERNEL_OK(native::native_group_norm_out(ctx, tx.t(), std::nullopt, std::nullopt, 1, 1, 4, 1, 0.0, o0, o1, o2));
  CHECK(values_are(mean, {2.5}) && values_are(y, {-1.3416408, -0.4472136, 0.4472136, 1.3416408}));
  EXPECT_KERNEL_FAILS(native::native_group_norm_out(ctx, tx.t(), std::nullopt, std::nullopt, 1, 1, 4, 2, 0.0, o0, o1,
                                                    o2));  // 1 channel in 2 groups
}

void check_embedding_bag() {
  float w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, o[4];  // 4 rows of 2
  int64_t idx[3] = {0, 3, 1}, off[2] = {0, 2}, o2b[3], size[2], maxi[4];
  TT tw(F, {4, 2}, w), ti(L, {3}, idx), toff(L, {2}, off), to(F, {2, 2}, o);
  TT t1(L, {3}, o2b, DYN), t2(L, {2}, size), t3(L, {2}, maxi), t3max(L, {2, 2}, maxi);
  Tensor out0 = to.t(), out1 = t1.t(), out2 = t2.t(), out3 = t3.t();
  EXPECT_KERNEL_OK(native::_embedding_bag_out(ctx, tw.t(), ti.t(), toff.t(), false, 1, false, std::nullopt, false, -1,
                                              out0, out1, out2, out3));
  CHECK(values_are(o, {4, 5, 3, 4}) && size[0] == 2 && size[1] == 1 && o2b[2] == 1);
  out3 = t3max.t();  // max mode: a [bags, D] max_indices
  EXPECT_KERNEL_OK(native::_embedding_bag_out(ctx, tw.t(), ti.t(), toff.t(), false, 2, false, std::nullopt, false, -1,
                                              out0, out1, out2, out3));
  CHECK(values_are(o, {7, 8, 3, 4}) && maxi[0] == 3 && maxi[2] == 1);
  int64_t bad[3] = {0, 4, 1};
  TT tbad(L, {3}, bad);
  EXPECT_KERNEL_FAILS(native::_embedding_bag_out(ctx, tw.t(), tbad.t(), toff.t(), false, 0, false, std::nullopt, false,
                                                 -1, out0, out1, out2, out3));
  EXPECT_KERNEL_FAILS(native::_embedding_bag_out(ctx, tw.t(), ti.t(), toff.t(), false, 3, false, std::nullopt, false,
                                                 -1, out0, out1, out2, out3));
}

// ---- the second batch of the portable set (issue 30) -----------------------------------

void check_bitwise_and_division_family() {
  // Shifts by counts past the width or negative: ATen's results, no UB (UBSan).
  int8_t x[4] = {-128, 5, -3, 64}, o[4];
  int8_t counts[4] = {1, 8, -1, 7};
  const auto C = ScalarType::Char;
  TT tx(C, {4}, x), tc(C, {4}, counts), to(C, {4}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::bitwise_left_shift_Tensor_out(ctx, tx.t(), tc.t(), out));
  CHECK(o[0] == 0 && o[1] == 0 && o[2] == 0 && o[3] == 0);
  EXPECT_KERNEL_OK(native::bitwise_right_shift_Tensor_out(ctx, tx.t(), tc.t(), out));
  CHECK(o[0] == -64 && o[1] == 0 && o[2] == -1 && o[3] == 0);
  EXPECT_KERNEL_OK(native::bitwise_left_shift_Tensor_Scalar_out(ctx, tx.t(), Scalar(int64_t(70)), out));
  CHECK(o[0] == 0 && o[3] == 0);
  EXPECT_KERNEL_OK(native::bitwise_not_out(ctx, tx.t(), out));
  CHECK(o[0] == 127 && o[1] == -6);
  EXPECT_KERNEL_OK(native::bitwise_xor_Scalar_out(ctx, tx.t(), Scalar(int64_t(1)), out));
  CHECK(o[1] == 4 && o[2] == -4);
  float f[4] = {1.5f, -2, 0, 7}, fo[4];
  TT tf(F, {4}, f), tfo(F, {4}, fo);
  out = tfo.t();
  EXPECT_KERNEL_FAILS(native::bitwise_not_out(ctx, tf.t(), out));        // floating self
  EXPECT_KERNEL_FAILS(native::bitwise_or_Tensor_out(ctx, tf.t(), tf.t(), out));
  EXPECT_KERNEL_FAILS(native::bitwise_right_shift_Tensor_Scalar_out(ctx, tf.t(), Scalar(int64_t(1)), out));
  // remainder takes the divisor's sign; floor_divide rounds down; integer zero divisors fail.
  int32_t a[4] = {7, -7, 7, -7}, b[4] = {3, 3, -3, -3}, r[4], z[4] = {1, 0, 1, 1};
  TT ta(I, {4}, a), tb(I, {4}, b), tr(I, {4}, r), tz(I, {4}, z);
  out = tr.t();
  EXPECT_KERNEL_OK(native::remainder_Tensor_out(ctx, ta.t(), tb.t(), out));
  CHECK(r[0] == 1 && r[1] == 2 && r[2] == -2 && r[3] == -1);
  EXPECT_KERNEL_OK(native::floor_divide_out(ctx, ta.t(), tb.t(), out));
  CHECK(r[0] == 2 && r[1] == -3 && r[2] == -3 && r[3] == 2);
  EXPECT_KERNEL_FAILS(native::floor_divide_out(ctx, ta.t(), tz.t(), out));
  EXPECT_KERNEL_FAILS(native::remainder_Tensor_out(ctx, ta.t(), tz.t(), out));
  EXPECT_KERNEL_FAILS(native::remainder_Scalar_out(ctx, ta.t(), Scalar(int64_t(0)), out));
  EXPECT_KERNEL_OK(native::rsub_scalar_out(ctx, ta.t(), Scalar(int64_t(1)), Scalar(int64_t(2)), out));
  CHECK(r[0] == -13 && r[1] == 15);
  EXPECT_KERNEL_FAILS(native::rsub_scalar_out(ctx, ta.t(), Scalar(1.5), Scalar(int64_t(1)), out));  // Float result
  out = tfo.t();
  EXPECT_KERNEL_OK(native::atan2_out(ctx, ta.t(), tb.t(), out));  // Int operands, Float out
  CHECK(values_are(fo, {1.1659045, -1.1659045, 1.9756881, -1.9756881}));
  out = to.t();
  EXPECT_KERNEL_FAILS(native::atan2_out(ctx, ta.t(), tb.t(), out));  // an integral out
}

void check_unary_batch() {
  float x[4] = {NAN, INFINITY, -2.5f, 0.25f}, o[4];
  bool flags[4];
  TT tx(F, {4}, x), to(F, {4}, o), tflags(B, {4}, flags);
  Tensor out = tflags.t();
  EXPECT_KERNEL_OK(native::isnan_out(ctx, tx.t(), out));
  CHECK(flags[0] && !flags[1] && !flags[2]);
  EXPECT_KERNEL_OK(native::isinf_out(ctx, tx.t(), out));
  CHECK(!flags[0] && flags[1] && !flags[3]);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::isnan_out(ctx, tx.t(), out));  // out must be Bool
  EXPECT_KERNEL_OK(native::sign_out(ctx, tx.t(), out));
  CHECK(std::isnan(o[0]) && o[1] == 1 && o[2] == -1 && o[3] == 1);
  EXPECT_KERNEL_OK(native::trunc_out(ctx, tx.t(), out));
  CHECK(o[2] == -2 && o[3] == 0);
  EXPECT_KERNEL_OK(native::logit_out(ctx, tx.t(), 0.1, out));
  CHECK(std::isnan(o[0]) && near(o[1], 2.1972246) && near(o[2], -2.1972246) && near(o[3], -1.0986123));
  EXPECT_KERNEL_OK(native::log1p_out(ctx, tx.t(), out));
  CHECK(std::isnan(o[0]) && std::isnan(o[2]) && near(o[3], 0.2231436));
  int32_t i[4] = {1, 0, -1, 2}, io[4];
  TT ti(I, {4}, i), tio(I, {4}, io);
  out = tio.t();
  EXPECT_KERNEL_FAILS(native::acos_out(ctx, ti.t(), out));  // an integral out
  out = to.t();
  EXPECT_KERNEL_OK(native::acos_out(ctx, ti.t(), out));
  CHECK(near(o[0], 0) && near(o[1], 1.5707964) && near(o[2], 3.1415927) && std::isnan(o[3]));
}

void check_reduction_batch() {
  float x[6] = {3, -1, 7, 2, NAN, 0};
  TT tx(F, {2, 3}, x);
  float v[2];
  int64_t idx[2];
  TT tv(F, {2}, v), tidx(L, {2}, idx);
  Tensor values = tv.t(), indices = tidx.t();
  EXPECT_KERNEL_OK(native::max_out(ctx, tx.t(), 1, false, values, indices));
  CHECK(v[0] == 7 && idx[0] == 2 && std::isnan(v[1]) && idx[1] == 1);
  EXPECT_KERNEL_OK(native::min_out(ctx, tx.t(), -1, false, values, indices));
  CHECK(v[0] == -1 && idx[0] == 1 && std::isnan(v[1]));
  EXPECT_KERNEL_FAILS(native::min_out(ctx, tx.t(), 2, false, values, indices));  // dim out of range
  EXPECT_KERNEL_FAILS(native::max_out(ctx, tx.t(), 1, false, values, values));   // Float indices
  float scalar;
  TT ts(F, {}, &scalar);
  Tensor out = ts.t();
  EXPECT_KERNEL_OK(native::max_unary_out(ctx, tx.t(), out));
  CHECK(std::isnan(scalar));
  float nothing[1];
  TT tempty(F, {0, 3}, nothing);
  EXPECT_KERNEL_OK(native::min_unary_out(ctx, tempty.t(), out));  // the identity, +inf
  CHECK(std::isinf(scalar) && scalar > 0);
  int64_t dims[1] = {1};
  EXPECT_KERNEL_FAILS(native::amin_out(ctx, tempty.t(), ints(dims, 0), false, out));  // over zero elements
  int64_t long_out;
  TT tl(L, {}, &long_out);
  Tensor lout = tl.t();
  EXPECT_KERNEL_OK(native::argmin_out(ctx, tx.t(), std::nullopt, false, lout));
  CHECK(long_out == 4);  // the first NaN
  int64_t big[3] = {INT64_MAX, 3, -2};
  TT tbig(L, {3}, big);
  EXPECT_KERNEL_OK(native::prod_out(ctx, tbig.t(), std::nullopt, lout));  // wraps, no UB
  CHECK(long_out == static_cast<int64_t>(static_cast<uint64_t>(INT64_MAX) * static_cast<uint64_t>(int64_t(-6))));
  EXPECT_KERNEL_FAILS(native::prod_out(ctx, tbig.t(), ScalarType::Int, lout));  // out is not of dtype
  float var[2], mean[2];
  TT tvar(F, {2}, var), tmean(F, {2}, mean);
  Tensor tv_out = tvar.t(), tm_out = tmean.t();
  float y[6] = {1, 2, 3, 4, 6, 8};
  TT ty(F, {2, 3}, y);
  EXPECT_KERNEL_OK(native::var_mean_correction_out(ctx, ty.t(), ints(dims, 1), std::nullopt, false, tv_out,
                                                   tm_out));
  CHECK(values_are(var, {1, 4}) && values_are(mean, {2, 6}));
  EXPECT_KERNEL_FAILS(native::var_mean_correction_out(ctx, ty.t(), ints(dims, 1), std::nullopt, false, tv_out,
                                                      lout));  // mean of another dtype
  float g[2];
  TT tg(F, {2, 1}, g);
  Tensor gout = tg.t();
  float h[4] = {1, 0, 2, 100};  // rows [a, b]: a * sigmoid(b)
  TT th(F, {2, 2}, h);
  EXPECT_KERNEL_OK(native::glu_out(ctx, th.t(), 1, gout));
  CHECK(values_are(g, {0.5, 2}));
  EXPECT_KERNEL_FAILS(native::glu_out(ctx, ty.t(), 1, gout));  // an odd dim
}

void check_creation_batch() {
  int32_t o[6];
  TT to(I, {2, 3}, o, DYN);
  Tensor out = to.t();
  const int64_t sizes[2] = {3, 2};
  EXPECT_KERNEL_OK(native::ones_out(ctx, ints(sizes, 2), out));
  CHECK(out.size(0) == 3 && o[0] == 1 && o[5] == 1);
  EXPECT_KERNEL_OK(native::zeros_out(ctx, ints(sizes, 2), out));
  CHECK(o[0] == 0 && o[5] == 0);
  const int64_t bad[2] = {-1, 2};
  EXPECT_KERNEL_FAILS(native::zeros_out(ctx, ints(bad, 2), out));
  EXPECT_KERNEL_FAILS(native::empty_out(ctx, ints(bad, 2), std::nullopt, out));
  const int64_t too_big[2] = {4, 4};
  EXPECT_KERNEL_FAILS(native::ones_out(ctx, ints(too_big, 2), out));  // past the bound
  int32_t self[6] = {0};
  TT tself(I, {3, 2}, self);
  EXPECT_KERNEL_OK(native::fill_scalar_out(ctx, tself.t(), Scalar(int64_t(-4)), out));
  CHECK(o[0] == -4 && o[5] == -4);
  EXPECT_KERNEL_FAILS(native::fill_scalar_out(ctx, tself.t(), Scalar(int64_t(1) << 40), out));  // out of range
  double value = 2.75;
  TT tvalue(D, {}, &value), tvector(D, {1}, &value);
  EXPECT_KERNEL_OK(native::fill_tensor_out(ctx, tself.t(), tvalue.t(), out));
  CHECK(o[0] == 2 && o[5] == 2);
  EXPECT_KERNEL_FAILS(native::fill_tensor_out(ctx, tself.t(), tvector.t(), out));  // not 0-dim
  float fo[6];
  TT tfo(F, {3, 2}, fo);
  Tensor fout = tfo.t();
  EXPECT_KERNEL_FAILS(native::fill_scalar_out(ctx, tself.t(), Scalar(1.0), fout));  // out of another dtype
}

// ---- masked, scatter, topk and padding (issue 30) ------------------------------------

void check_masked_and_nonzero() {
  float x[6] = {1, 2, 3, 4, 5, 6}, o[6];
  bool m[3] = {true, false, true};
  TT tx(F, {2, 3}, x), tm(B, {3}, m), to(F, {2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::masked_fill_scalar_out(ctx, tx.t(), tm.t(), Scalar(-1.0), out));
  CHECK(values_are(o, {-1, 2, -1, -1, 5, -1}));
  uint8_t u[2] = {1, 2}, uo[2];
  bool m2[2] = {true, false};
  TT tu(ScalarType::Byte, {2}, u), tuo(ScalarType::Byte, {2}, uo), tm2(B, {2}, m2);
  Tensor uout = tuo.t();
  EXPECT_KERNEL_FAILS(native::masked_fill_scalar_out(ctx, tu.t(), tm2.t(), Scalar(int64_t(300)), uout));
  int32_t im[3] = {1, 0, 1};
  TT tim(I, {3}, im);
  EXPECT_KERNEL_FAILS(native::masked_fill_scalar_out(ctx, tx.t(), tim.t(), Scalar(1.0), out));  // mask not Bool
  bool m4[4] = {true, true, true, true};
  TT tm4(B, {4}, m4);
  EXPECT_KERNEL_FAILS(native::masked_fill_scalar_out(ctx, tx.t(), tm4.t(), Scalar(1.0), out));  // no broadcast
  float src[4] = {10, 20, 30, 40};
  TT tsrc(F, {4}, src), tshort(F, {3}, src);
  EXPECT_KERNEL_OK(native::masked_scatter_out(ctx, tx.t(), tm.t(), tsrc.t(), out));
  CHECK(values_are(o, {10, 2, 20, 30, 5, 40}));
  o[1] = 99;
  EXPECT_KERNEL_FAILS(native::masked_scatter_out(ctx, tx.t(), tm.t(), tshort.t(), out));  // 4 wanted, 3 given
  CHECK(o[1] == 99);                                                                      // out untouched
  float so[6];
  TT tso(F, {6}, so, DYN), tstatic(F, {6}, so);
  Tensor sout = tso.t();
  EXPECT_KERNEL_OK(native::masked_select_out(ctx, tx.t(), tm.t(), sout));
  CHECK(sout.dim() == 1 && sout.size(0) == 4 && values_are(so, {1, 3, 4, 6}));
  sout = tstatic.t();
  EXPECT_KERNEL_FAILS(native::masked_select_out(ctx, tx.t(), tm.t(), sout));  // a static out of 6
  float nz[6] = {0, 1.5f, 0, NAN, 0, 0};
  int64_t idx[12];
  TT tnz(F, {2, 3}, nz), tidx(L, {6, 2}, idx, DYN), tidx_i(I, {6, 2}, idx, DYN), tidx1(L, {12}, idx, DYN);
  Tensor iout = tidx.t();
  EXPECT_KERNEL_OK(native::nonzero_out(ctx, tnz.t(), iout));
  CHECK(iout.size(0) == 2 && iout.size(1) == 2 && values_are(idx, {0, 1, 1, 0}));
  iout = tidx_i.t();
  EXPECT_KERNEL_FAILS(native::nonzero_out(ctx, tnz.t(), iout));  // out not Long
  iout = tidx1.t();
  EXPECT_KERNEL_FAILS(native::nonzero_out(ctx, tnz.t(), iout));  // out not 2-D
}

void check_scatter_family() {
  float x[6] = {1, 2, 3, 4, 5, 6}, s[4] = {10, 20, 30, 40}, o[6];
  int64_t ix[2] = {2, -3};
  TT tx(F, {2, 3}, x), ts(F, {2, 2}, s), to(F, {2, 3}, o), ti(L, {2, 1}, ix);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::scatter_src_out(ctx, tx.t(), 1, ti.t(), ts.t(), out));
  CHECK(values_are(o, {1, 2, 10, 30, 5, 6}));
  EXPECT_KERNEL_OK(native::scatter_value_out(ctx, tx.t(), -1, ti.t(), Scalar(7.0), out));
  CHECK(values_are(o, {1, 2, 7, 7, 5, 6}));
  EXPECT_KERNEL_OK(native::scatter_add_out(ctx, tx.t(), 1, ti.t(), ts.t(), out));
  CHECK(values_are(o, {1, 2, 13, 34, 5, 6}));
  int64_t bad[2] = {3, 0};
  TT tbad(L, {2, 1}, bad), twide(L, {2, 4}, bad), tflat(L, {2}, ix);
  EXPECT_KERNEL_FAILS(native::scatter_src_out(ctx, tx.t(), 1, tbad.t(), ts.t(), out));  // index out of range
  EXPECT_KERNEL_FAILS(native::scatter_add_out(ctx, tx.t(), 2, ti.t(), ts.t(), out));    // no dim 2
  EXPECT_KERNEL_FAILS(native::scatter_add_out(ctx, tx.t(), 1, tflat.t(), ts.t(), out));  // index of rank 1
  EXPECT_KERNEL_FAILS(native::scatter_value_out(ctx, tx.t(), 1, ti.t(), Scalar(1e300), out));  // overflows Float
  float fidx[2] = {0, 1};
  TT tfi(F, {2, 1}, fidx);
  EXPECT_KERNEL_FAILS(native::scatter_value_out(ctx, tx.t(), 1, tfi.t(), Scalar(1.0), out));  // Float index
  double d[4];
  TT td(D, {2, 2}, d);
  EXPECT_KERNEL_FAILS(native::scatter_add_out(ctx, tx.t(), 1, ti.t(), td.t(), out));  // src of another dtype
  int64_t row[3] = {7, 8, 9};
  TT trow(L, {3}, row), tshort(L, {2}, row);
  EXPECT_KERNEL_OK(native::select_scatter_out(ctx, tx.t(), trow.t(), 0, -1, out));  // Long src into Float
  CHECK(values_are(o, {1, 2, 3, 7, 8, 9}));
  EXPECT_KERNEL_FAILS(native::select_scatter_out(ctx, tx.t(), tshort.t(), 0, 0, out));  // wrong slice shape
  EXPECT_KERNEL_FAILS(native::select_scatter_out(ctx, tx.t(), trow.t(), 0, 2, out));    // index out of range
}

void check_topk_and_padding() {
  float x[6] = {3, NAN, 1, 5, 2, 4}, v[6];
  int64_t ix[6];
  TT tx(F, {2, 3}, x), tv(F, {2, 2}, v, DYN), ti(L, {2, 2}, ix, DYN), tvi(I, {2, 2}, ix);
  Tensor values = tv.t(), indices = ti.t();
  EXPECT_KERNEL_OK(native::topk_values(ctx, tx.t(), 2, 1, true, true, values, indices));
  CHECK(std::isnan(v[0]) && v[1] == 3 && v[2] == 5 && v[3] == 4);
  CHECK(values_are(ix, {1, 0, 0, 2}));
  EXPECT_KERNEL_OK(native::topk_values(ctx, tx.t(), 2, 1, false, true, values, indices));
  CHECK(values_are(v, {1, 3, 2, 4}) && values_are(ix, {2, 0, 1, 2}));
  EXPECT_KERNEL_FAILS(native::topk_values(ctx, tx.t(), 4, 1, true, true, values, indices));  // k > size
  EXPECT_KERNEL_FAILS(native::topk_values(ctx, tx.t(), 1, 2, true, true, values, indices));  // no dim 2
  indices = tvi.t();
  EXPECT_KERNEL_FAILS(native::topk_values(ctx, tx.t(), 2, 1, true, true, values, indices));  // Int indices
  float p[3] = {1, 2, 3}, po[7];
  TT tp(F, {1, 3}, p), tpo(F, {1, 7}, po, DYN);
  Tensor out = tpo.t();
  const int64_t two_two[2] = {2, 2}, three[2] = {3, 0}, four[4] = {1, 1, 0, 0};
  EXPECT_KERNEL_OK(native::reflection_pad1d_out(ctx, tp.t(), ints(two_two, 2), out));
  CHECK(values_are(po, {3, 2, 1, 2, 3, 2, 1}));
  EXPECT_KERNEL_OK(native::replication_pad1d_out(ctx, tp.t(), ints(two_two, 2), out));
  CHECK(values_are(po, {1, 1, 1, 2, 3, 3, 3}));
  EXPECT_KERNEL_FAILS(native::reflection_pad1d_out(ctx, tp.t(), ints(three, 2), out));  // pad 3 of a 3-wide dim
  EXPECT_KERNEL_FAILS(native::replication_pad1d_out(ctx, tp.t(), ints(four, 4), out));  // 4 pads for 1d
  EXPECT_KERNEL_FAILS(native::replication_pad2d_out(ctx, tp.t(), ints(four, 4), out));  // rank 2 for 2d
  float q[4] = {1, 2, 3, 4}, qo[16];
  TT tq(F, {1, 2, 2}, q), tqo(F, {1, 4, 4}, qo);
  out = tqo.t();
  const int64_t all_one[4] = {1, 1, 1, 1};
  EXPECT_KERNEL_OK(native::replication_pad2d_out(ctx, tq.t(), ints(all_one, 4), out));
  CHECK(values_are(qo, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
  EXPECT_KERNEL_OK(native::reflection_pad2d_out(ctx, tq.t(), ints(all_one, 4), out));
  CHECK(values_are(qo, {4, 3, 4, 3, 2, 1, 2, 1, 4, 3, 4, 3, 2, 1, 2, 1}));
  double dq[16];
  TT tdq(D, {1, 4, 4}, dq);
  out = tdq.t();
  EXPECT_KERNEL_FAILS(native::reflection_pad2d_out(ctx, tq.t(), ints(all_one, 4), out));  // out of another dtype
  const int64_t six[6] = {1, 1, 1, 1, 1, 1};
  float r[8], ro[64];
  TT tr(F, {1, 2, 2, 2}, r), tro(F, {1, 4, 4, 4}, ro);
  out = tro.t();
  for (int i = 0; i < 8; ++i) r[i] = static_cast<float>(i);
  EXPECT_KERNEL_OK(native::replication_pad3d_out(ctx, tr.t(), ints(six, 6), out));
  CHECK(ro[0] == 0 && ro[63] == 7 && ro[21] == 0 && ro[42] == 7);
  EXPECT_KERNEL_OK(native::reflection_pad3d_out(ctx, tr.t(), ints(six, 6), out));
  CHECK(ro[0] == 7 && ro[63] == 0 && ro[21] == 0 && ro[42] == 7);
  EXPECT_KERNEL_FAILS(native::reflection_pad3d_out(ctx, tq.t(), ints(six, 6), out));  // rank 3 for 3d
// ---- the tail of the portable set (issue 30): random, device-copy, dim-order ops ----------

}

void check_random_and_device_copies() {
  float r[512];
  TT tr(F, {512}, r, DYN);
  Tensor out = tr.t();
  const int64_t n512[1] = {512}, bad[1] = {-3};
  EXPECT_KERNEL_OK(native::rand_out(ctx, ints(n512, 1), out));
  double sum = 0;
  bool in_range = true;
  for (float v : r) {
    in_range = in_range && v >= 0 && v < 1;
    sum += v;
  }
  CHECK(in_range && std::fabs(sum / 512 - 0.5) < 0.06);
  const float first = r[0];
  EXPECT_KERNEL_OK(native::rand_out(ctx, ints(n512, 1), out));
  CHECK(r[0] != first);  // the stream moves on
  EXPECT_KERNEL_OK(native::randn_out(ctx, ints(n512, 1), out));
  double sq = 0;
  sum = 0;
  for (float v : r) sum += v, sq += double(v) * v;
  CHECK(std::fabs(sum / 512) < 0.2 && std::fabs(sq / 512 - 1) < 0.3);
  EXPECT_KERNEL_FAILS(native::rand_out(ctx, ints(bad, 1), out));  // a negative size
  int32_t ir[4];
  TT tir(I, {4}, ir);
  out = tir.t();
  const int64_t n4[1] = {4};
  EXPECT_KERNEL_FAILS(native::randn_out(ctx, ints(n4, 1), out));  // an integral out
  float x[4] = {1, 2, 3, 4}, y[4];
  bool m[4];
  TT tx(F, {4}, x), ty(F, {4}, y), tm(B, {4}, m), tmf(F, {4}, y);
  Tensor o = ty.t(), mask = tm.t(), fmask = tmf.t();
  EXPECT_KERNEL_OK(native::native_dropout_out(ctx, tx.t(), 0.5, false, o, mask));
  CHECK(values_are(y, {1, 2, 3, 4}) && m[0] && m[3]);
  EXPECT_KERNEL_OK(native::native_dropout_out(ctx, tx.t(), 1.0, true, o, mask));
  CHECK(values_are(y, {0, 0, 0, 0}) && !m[0] && !m[3]);
  EXPECT_KERNEL_OK(native::native_dropout_out(ctx, tx.t(), 0.5, std::nullopt, o, mask));  // absent: training
  bool scaled = true;
  for (int i = 0; i < 4; ++i) scaled = scaled && (m[i] ? near(y[i], 2 * x[i]) : y[i] == 0);
  CHECK(scaled);
  EXPECT_KERNEL_FAILS(native::native_dropout_out(ctx, tx.t(), 1.5, true, o, mask));     // p past 1
  EXPECT_KERNEL_FAILS(native::native_dropout_out(ctx, tx.t(), 0.5, true, o, fmask));    // a Float mask
  EXPECT_KERNEL_FAILS(native::native_dropout_out(ctx, tir.t(), 0.5, true, o, mask));    // an Int input
  float c[6] = {1, 2, 3, 4, 5, 6}, d[6];
  TT tc(F, {2, 3}, c), td(F, {2, 3}, d), tdl(L, {2, 3}, d), tsmall(F, {1, 3}, d);
  Tensor copy = td.t();
  EXPECT_KERNEL_OK(native::_h2d_copy_out(ctx, tc.t(), copy));
  CHECK(values_are(d, {1, 2, 3, 4, 5, 6}));
  d[0] = 0;
  EXPECT_KERNEL_OK(native::_d2h_copy_out(ctx, tc.t(), copy));
  CHECK(d[0] == 1);
  copy = tdl.t();
  EXPECT_KERNEL_FAILS(native::_h2d_copy_out(ctx, tc.t(), copy));  // another dtype
  copy = tsmall.t();
  EXPECT_KERNEL_FAILS(native::_d2h_copy_out(ctx, tc.t(), copy));  // a static out of another shape
  float e[16];
  TT tcl(F, {1, 2, 2, 2}, e, DYN, {0, 2, 3, 1}), tplain(F, {2, 2}, e, DYN);
  Tensor ecl = tcl.t(), eplain = tplain.t();
  const int64_t cl_size[4] = {1, 2, 2, 1}, cl_order[4] = {0, 2, 3, 1}, plain_order[4] = {0, 1, 2, 3};
  const int64_t odd_order[2] = {1, 2}, size2[2] = {1, 3};
  EXPECT_KERNEL_OK(native::_empty_dim_order_out(ctx, ints(cl_size, 4), ints(cl_order, 4), ecl));
  CHECK(ecl.size(3) == 1);
  EXPECT_KERNEL_FAILS(native::_empty_dim_order_out(ctx, ints(cl_size, 4), ints(plain_order, 4), ecl));  // not out's
  EXPECT_KERNEL_FAILS(native::_empty_dim_order_out(ctx, ints(cl_size, 4), std::nullopt, ecl));  // out not contiguous
  EXPECT_KERNEL_FAILS(native::_empty_dim_order_out(ctx, ints(size2, 2), ints(odd_order, 2), eplain));  // no order
  EXPECT_KERNEL_OK(native::_empty_dim_order_out(ctx, ints(size2, 2), std::nullopt, eplain));
  CHECK(eplain.size(1) == 3);
}

void check_distances_and_batch_norm_training() {
  float a[4] = {0, 0, 3, 4}, b[2] = {0, 0}, o[2];  // rows (0, 0) and (3, 4) against (0, 0)
  TT ta(F, {2, 2}, a), tb(F, {1, 2}, b), to(F, {2, 1}, o), tl(L, {2, 1}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::_cdist_forward_out(ctx, ta.t(), tb.t(), 2.0, std::nullopt, out));
  CHECK(values_are(o, {0, 5}));
  EXPECT_KERNEL_OK(native::_cdist_forward_out(ctx, ta.t(), tb.t(), INFINITY, std::nullopt, out));
  CHECK(values_are(o, {0, 4}));
  EXPECT_KERNEL_FAILS(native::_cdist_forward_out(ctx, ta.t(), tb.t(), -1.0, std::nullopt, out));  // negative p
  EXPECT_KERNEL_FAILS(native::_cdist_forward_out(ctx, ta.t(), tb.t(), 2.0, int64_t(3), out));     // a bad mode
  Tensor long_out = tl.t();
  EXPECT_KERNEL_FAILS(native::_cdist_forward_out(ctx, ta.t(), tb.t(), 2.0, std::nullopt, long_out));  // a Long out
  float c[3] = {1, 2, 3};
  TT tc(F, {3}, c), tc2(F, {1, 3}, c);
  out = to.t();
  EXPECT_KERNEL_FAILS(native::_cdist_forward_out(ctx, tc.t(), tb.t(), 2.0, std::nullopt, out));   // 1-D x1
  EXPECT_KERNEL_FAILS(native::_cdist_forward_out(ctx, tc2.t(), tb.t(), 2.0, std::nullopt, out));  // M differs
  float pd[1];
  TT tpd(F, {1}, pd);
  out = tpd.t();
  EXPECT_KERNEL_OK(native::_pdist_forward_out(ctx, ta.t(), 1.0, out));
  CHECK(values_are(pd, {7}));
  EXPECT_KERNEL_FAILS(native::_pdist_forward_out(ctx, tc.t(), 2.0, out));   // not a matrix
  EXPECT_KERNEL_FAILS(native::_pdist_forward_out(ctx, ta.t(), -2.0, out));  // negative p
  // Batch norm with the batch's statistics: channel 0 holds 1, 3; channel 1 holds 2, 6.
  float x[4] = {1, 2, 3, 6}, y[4], mean[2], invstd[2], rm[2] = {0, 0}, rv[2] = {1, 1};
  TT tx(F, {2, 2}, x), ty(F, {2, 2}, y), tm(F, {2}, mean), ti(F, {2}, invstd), trm(F, {2}, rm), trv(F, {2}, rv);
  Tensor o0 = ty.t(), o1 = tm.t(), o2 = ti.t(), run_mean = trm.t(), run_var = trv.t();
  EXPECT_KERNEL_OK(native::_native_batch_norm_legit_out(ctx, tx.t(), std::nullopt, std::nullopt, run_mean, run_var,
                                                        true, 0.5, 0.0, o0, o1, o2));
  CHECK(values_are(mean, {2, 4}) && values_are(invstd, {1, 0.5}) && values_are(y, {-1, -1, 1, 1}));
  CHECK(values_are(rm, {1, 2}) && values_are(rv, {1.5, 4.5}));  // unbiased variances 2 and 8, momentum 0.5
  EXPECT_KERNEL_OK(native::_native_batch_norm_legit_no_stats_out(ctx, tx.t(), std::nullopt, std::nullopt, true, 0.1,
                                                                 0.0, o0, o1, o2));
  CHECK(values_are(y, {-1, -1, 1, 1}));
  double dx[4];
  TT tdx(D, {2, 2}, dx);
  EXPECT_KERNEL_FAILS(native::_native_batch_norm_legit_no_stats_out(ctx, tdx.t(), std::nullopt, std::nullopt, true,
                                                                    0.1, 0.0, o0, o1, o2));  // Double input
  float w3[3];
  TT tw3(F, {3}, w3);
  EXPECT_KERNEL_FAILS(native::_native_batch_norm_legit_out(ctx, tx.t(), tw3.t(), std::nullopt, run_mean, run_var,
                                                           true, 0.1, 0.0, o0, o1, o2));  // weight not [C]
  TT tx1(F, {4}, x);
  EXPECT_KERNEL_FAILS(native::_native_batch_norm_legit_no_stats_out(ctx, tx1.t(), std::nullopt, std::nullopt, true,
                                                                    0.1, 0.0, o0, o1, o2));  // 1-D input
}

void check_sampling_and_backward() {
  float x[4] = {1, 2, 3, 4}, g[2] = {0, 0}, o[1];
  TT tx(F, {1, 1, 2, 2}, x), tg(F, {1, 1, 1, 2}, g), to(F, {1, 1, 1, 1}, o), tg3(F, {1, 1, 2}, g);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::grid_sampler_2d_out(ctx, tx.t(), tg.t(), 0, 0, false, out));  // the centre: the mean
  CHECK(values_are(o, {2.5}));
  EXPECT_KERNEL_FAILS(native::grid_sampler_2d_out(ctx, tx.t(), tg.t(), 3, 0, false, out));  // a bad mode
  EXPECT_KERNEL_FAILS(native::grid_sampler_2d_out(ctx, tx.t(), tg.t(), 0, 5, false, out));  // a bad padding
  EXPECT_KERNEL_FAILS(native::grid_sampler_2d_out(ctx, tx.t(), tg3.t(), 0, 0, false, out));  // a 3-D grid
  double dg[2] = {0, 0};
  TT tdg(D, {1, 1, 1, 2}, dg);
  EXPECT_KERNEL_FAILS(native::grid_sampler_2d_out(ctx, tx.t(), tdg.t(), 0, 0, false, out));  // grid of another dtype
  const int64_t one[2] = {1, 1}, zero[2] = {0, 1};
  EXPECT_KERNEL_OK(native::_upsample_bilinear2d_aa_out(ctx, tx.t(), ints(one, 2), false, std::nullopt, std::nullopt,
                                                       out));
  CHECK(values_are(o, {2.5}));  // a 2x2 plane averaged into one pixel
  EXPECT_KERNEL_FAILS(native::_upsample_bilinear2d_aa_out(ctx, tx.t(), ints(zero, 2), false, std::nullopt,
                                                          std::nullopt, out));  // an empty output size
  EXPECT_KERNEL_FAILS(native::_upsample_bilinear2d_aa_out(ctx, tx.t(), ints(one, 1), false, std::nullopt,
                                                          std::nullopt, out));  // one size
  // Max pooling 2x2 over the plane picks index 3; its gradient lands there.
  float go[1] = {5}, gi[4];
  int64_t idx[1] = {3}, bad_idx[1] = {4};
  TT tgo(F, {1, 1, 1, 1}, go), tidx(L, {1, 1, 1, 1}, idx), tbad(L, {1, 1, 1, 1}, bad_idx), tgi(F, {1, 1, 2, 2}, gi);
  Tensor grad_in = tgi.t();
  const int64_t k2[2] = {2, 2}, p0[2] = {0, 0}, d1[2] = {1, 1};
  EXPECT_KERNEL_OK(native::max_pool2d_with_indices_backward_out(ctx, tgo.t(), tx.t(), ints(k2, 2), ints(k2, 0),
                                                                ints(p0, 2), ints(d1, 2), false, tidx.t(), grad_in));
  CHECK(values_are(gi, {0, 0, 0, 5}));
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_backward_out(ctx, tgo.t(), tx.t(), ints(k2, 2), ints(k2, 0),
                                                                   ints(p0, 2), ints(d1, 2), false, tbad.t(),
                                                                   grad_in));  // an index outside the plane
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_backward_out(ctx, tgo.t(), tx.t(), ints(k2, 2), ints(k2, 0),
                                                                   ints(p0, 2), ints(d1, 2), false, tgo.t(),
                                                                   grad_in));  // Float indices
  const int64_t k1[2] = {1, 1};
  EXPECT_KERNEL_FAILS(native::max_pool2d_with_indices_backward_out(ctx, tgo.t(), tx.t(), ints(k1, 2), ints(k1, 2),
                                                                   ints(p0, 2), ints(d1, 2), false, tidx.t(),
                                                                   grad_in));  // grad_output of another shape
  // A 1x1 convolution of a 2x2 plane by weight 3: grad_input = 3 * grad, grad_weight = sum(grad * x).
  float w[1] = {3}, gout[4] = {1, 1, 1, 2}, gin[4], gw[1], gb[1];
  TT tw(F, {1, 1, 1, 1}, w), tgout(F, {1, 1, 2, 2}, gout), tgin(F, {1, 1, 2, 2}, gin), tgw(F, {1, 1, 1, 1}, gw),
      tgb(F, {1}, gb);
  Tensor o0 = tgin.t(), o1 = tgw.t(), o2 = tgb.t();
  const int64_t s1[1] = {1}, pad0[1] = {0}, bias1[1] = {1};
  bool mask[3] = {true, true, true};
  EXPECT_KERNEL_OK(native::convolution_backward_out(ctx, tgout.t(), tx.t(), tw.t(), ints(bias1, 1), ints(s1, 1),
                                                    ints(pad0, 1), ints(s1, 1), false, ints(pad0, 1), 1,
                                                    ArrayRef<bool>(mask, 3), o0, o1, o2));
  CHECK(values_are(gin, {3, 3, 3, 6}) && values_are(gw, {14}) && values_are(gb, {5}));
  EXPECT_KERNEL_FAILS(native::convolution_backward_out(ctx, tgo.t(), tx.t(), tw.t(), ints(bias1, 1), ints(s1, 1),
                                                       ints(pad0, 1), ints(s1, 1), false, ints(pad0, 1), 1,
                                                       ArrayRef<bool>(mask, 3), o0, o1, o2));  // grad_output's shape
  EXPECT_KERNEL_FAILS(native::convolution_backward_out(ctx, tgout.t(), tx.t(), tw.t(), ints(bias1, 1), ints(s1, 1),
                                                       ints(pad0, 1), ints(s1, 1), false, ints(pad0, 1), 2,
                                                       ArrayRef<bool>(mask, 3), o0, o1, o2));  // groups 2, 1 channel
  EXPECT_KERNEL_FAILS(native::convolution_backward_out(ctx, tgout.t(), tx.t(), tw.t(), ints(bias1, 1), ints(s1, 1),
                                                       ints(pad0, 1), ints(s1, 1), false, ints(pad0, 1), 1,
                                                       ArrayRef<bool>(mask, 2), o0, o1, o2));  // a 2-entry mask
// ---- the copy and view-copy family (clone, _to_copy, transpose, t, narrow, diagonal,
// ---- unfold, split, unbind, stack, repeat, roll, tril, pixel_(un)shuffle, ...)

}

void check_plain_copies() {
  float x[6] = {1, 2, 3, 4, 5, 6}, o[6];
  TT tx(F, {2, 3}, x), to(F, {2, 3}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::clone_out(ctx, tx.t(), std::nullopt, out));
  CHECK(values_are(o, {1, 2, 3, 4, 5, 6}));
  EXPECT_KERNEL_OK(native::detach_copy_out(ctx, tx.t(), out));
  EXPECT_KERNEL_OK(native::lift_fresh_copy_out(ctx, tx.t(), out));
  EXPECT_KERNEL_FAILS(native::clone_out(ctx, tx.t(), ::executorch::aten::MemoryFormat::Preserve, out));
  int32_t io[6];
  TT tio(I, {2, 3}, io), tsmall(F, {3, 2}, o);
  Tensor iout = tio.t(), small = tsmall.t();
  EXPECT_KERNEL_FAILS(native::detach_copy_out(ctx, tx.t(), iout));  // another dtype
  EXPECT_KERNEL_FAILS(native::lift_fresh_copy_out(ctx, tx.t(), small));  // a static out of another shape
  // _to_copy converts (float -> int truncates) and refuses non_blocking and other memory formats.
  float y[3] = {1.5f, -2.5f, 7.0f};
  TT ty(F, {3}, y), tyo(I, {3}, io);
  Tensor yout = tyo.t();
  EXPECT_KERNEL_OK(native::to_copy_out(ctx, ty.t(), false, std::nullopt, yout));
  CHECK(io[0] == 1 && io[1] == -2 && io[2] == 7);
  EXPECT_KERNEL_FAILS(native::to_copy_out(ctx, ty.t(), true, std::nullopt, yout));
  EXPECT_KERNEL_FAILS(native::to_copy_out(ctx, ty.t(), false, ::executorch::aten::MemoryFormat::Preserve, yout));
  TT tbad(I, {2}, io);
  Tensor bad = tbad.t();
  EXPECT_KERNEL_FAILS(native::to_copy_out(ctx, ty.t(), false, std::nullopt, bad));  // static out, wrong shape
}

void check_view_copies() {
  float x[24], o[24];
  for (int i = 0; i < 24; ++i) x[i] = static_cast<float>(i);
  // Outputs of each rank, resizable up to 24 elements.
  TT tx(F, {2, 3, 4}, x), to3(F, {2, 3, 4}, o, DYN), to2(F, {4, 6}, o, DYN);
  Tensor out = to3.t(), out2 = to2.t();
  // transpose(0, 2): out[k][j][i] = x[i][j][k]
  EXPECT_KERNEL_OK(native::transpose_copy_int_out(ctx, tx.t(), 0, -1, out));
  CHECK(out.size(0) == 4 && out.size(2) == 2 && o[0] == 0 && o[1] == 12 && o[2] == 4);
  EXPECT_KERNEL_FAILS(native::transpose_copy_int_out(ctx, tx.t(), 0, 3, out));
  TT tm(F, {2, 3}, x);
  EXPECT_KERNEL_OK(native::t_copy_out(ctx, tm.t(), out2));
  CHECK(out2.size(0) == 3 && values_are(o, {0, 3, 1, 4, 2, 5}));
  EXPECT_KERNEL_FAILS(native::t_copy_out(ctx, tx.t(), out));  // 3 dims
  // narrow along dim 2 from -3 for 2: columns 1, 2; and an empty narrow
  EXPECT_KERNEL_OK(native::narrow_copy_out(ctx, tx.t(), 2, -3, 2, out));
  CHECK(out.size(2) == 2 && values_are(o, {1, 2, 5, 6}));
  EXPECT_KERNEL_OK(native::narrow_copy_out(ctx, tx.t(), 2, 4, 0, out));
  CHECK(out.numel() == 0);
  EXPECT_KERNEL_FAILS(native::narrow_copy_out(ctx, tx.t(), 2, 3, 2, out));  // runs past the dim
  EXPECT_KERNEL_FAILS(native::narrow_copy_out(ctx, tx.t(), 2, 0, -1, out));
  // diagonal offset 1 of dims 1, 2: x[b][i][i + 1]
  EXPECT_KERNEL_OK(native::diagonal_copy_out(ctx, tx.t(), 1, 1, 2, out2));
  CHECK(out2.size(1) == 3 && values_are(o, {1, 6, 11, 13, 18, 23}));
  EXPECT_KERNEL_OK(native::diagonal_copy_out(ctx, tx.t(), -5, 1, 2, out2));
  CHECK(out2.numel() == 0);
  EXPECT_KERNEL_FAILS(native::diagonal_copy_out(ctx, tx.t(), 0, 1, -2, out2));  // the same dim twice
  // unfold dim 2 into windows of 2 every 2: [2, 3, 2, 2]
  TT to4(F, {2, 3, 2, 2}, o, DYN);
  Tensor out4 = to4.t();
  EXPECT_KERNEL_OK(native::unfold_copy_out(ctx, tx.t(), 2, 2, 2, out4));
  CHECK(out4.size(2) == 2 && values_are(o, {0, 1, 2, 3, 4, 5}));
  EXPECT_KERNEL_FAILS(native::unfold_copy_out(ctx, tx.t(), 2, 5, 1, out4));  // window past the dim
  EXPECT_KERNEL_FAILS(native::unfold_copy_out(ctx, tx.t(), 2, 2, 0, out4));  // step 0
  int32_t io[24];
  TT tio(I, {2, 3, 4}, io, DYN);
  Tensor iout = tio.t();
  EXPECT_KERNEL_FAILS(native::transpose_copy_int_out(ctx, tx.t(), 0, 1, iout));  // another dtype
}

void check_split_unbind() {
  float x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, a[4], b[4], c[2];
  TT tx(F, {2, 5}, x), ta(F, {2, 2}, a), tb(F, {2, 2}, b), tc(F, {2, 1}, c);
  Tensor outs[3] = {ta.t(), tb.t(), tc.t()};
  {
    KernelRuntimeContext ctx;
    native::split_copy_Tensor_out(ctx, tx.t(), 2, -1, ArrayRef<Tensor>(outs, 3));
    CHECK(ctx.failure_state() == Error::Ok);
  }
  CHECK(values_are(a, {0, 1, 5, 6}) && values_are(b, {2, 3, 7, 8}) && values_are(c, {4, 9}));
  {
    KernelRuntimeContext ctx;
    native::split_copy_Tensor_out(ctx, tx.t(), 2, 1, ArrayRef<Tensor>(outs, 2));
    CHECK(ctx.failure_state() != Error::Ok);  // two outputs for three pieces
  }
  {
    KernelRuntimeContext ctx;
    native::split_copy_Tensor_out(ctx, tx.t(), 0, 1, ArrayRef<Tensor>(outs, 1));
    CHECK(ctx.failure_state() != Error::Ok);  // split_size 0 of a non-empty dim
  }
  float r0[5], r1[5];
  TT t0(F, {5}, r0), t1(F, {5}, r1);
  Tensor rows[2] = {t0.t(), t1.t()};
  {
    KernelRuntimeContext ctx;
    native::unbind_copy_int_out(ctx, tx.t(), 0, ArrayRef<Tensor>(rows, 2));
    CHECK(ctx.failure_state() == Error::Ok);
  }
  CHECK(values_are(r1, {5, 6, 7, 8, 9}));
  {
    KernelRuntimeContext ctx;
    native::unbind_copy_int_out(ctx, tx.t(), 1, ArrayRef<Tensor>(rows, 2));
    CHECK(ctx.failure_state() != Error::Ok);  // five slices, two outputs
  }
  {
    KernelRuntimeContext ctx;
    native::unbind_copy_int_out(ctx, tx.t(), 2, ArrayRef<Tensor>(rows, 2));
    CHECK(ctx.failure_state() != Error::Ok);  // dim out of range
  }
}

void check_stack_repeat_roll_tril() {
  float a[3] = {1, 2, 3}, o[12];
  int32_t b[3] = {4, 5, 6};
  TT ta(F, {3}, a), tb(I, {3}, b), to(F, {2, 6}, o, DYN);
  Tensor in[2] = {ta.t(), tb.t()};
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::stack_out(ctx, ArrayRef<Tensor>(in, 2), 1, out));  // [3, 2], int converted
  CHECK(out.size(0) == 3 && values_are(o, {1, 4, 2, 5, 3, 6}));
  EXPECT_KERNEL_FAILS(native::stack_out(ctx, ArrayRef<Tensor>(in, 2), 2, out));  // dim out of range
  EXPECT_KERNEL_FAILS(native::stack_out(ctx, ArrayRef<Tensor>(in, size_t{0}), 0, out));  // nothing to stack
  int32_t io[12];
  TT tio(I, {2, 6}, io, DYN);
  Tensor iout = tio.t();
  EXPECT_KERNEL_FAILS(native::stack_out(ctx, ArrayRef<Tensor>(in, 2), 0, iout));  // float into int
  // repeat [2, 2] of a 3-vector: [2, 6]
  const int64_t reps[2] = {2, 2};
  EXPECT_KERNEL_OK(native::repeat_out(ctx, ta.t(), ints(reps, 2), out));
  CHECK(out.size(1) == 6 && values_are(o, {1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  const int64_t negative[2] = {1, -1};
  EXPECT_KERNEL_FAILS(native::repeat_out(ctx, ta.t(), ints(negative, 2), out));
  float m[6] = {1, 2, 3, 4, 5, 6};
  TT tm(F, {2, 3}, m);
  EXPECT_KERNEL_FAILS(native::repeat_out(ctx, tm.t(), ints(reps, 1), out));  // fewer repeats than dims
  // roll by 1 along dim 1, and flat by -1
  const int64_t one[1] = {1}, minus[1] = {-1}, dim1[1] = {1};
  EXPECT_KERNEL_OK(native::roll_out(ctx, tm.t(), ints(one, 1), ints(dim1, 1), out));
  CHECK(values_are(o, {3, 1, 2, 6, 4, 5}));
  EXPECT_KERNEL_OK(native::roll_out(ctx, tm.t(), ints(minus, 1), ints(dim1, 0), out));
  CHECK(values_are(o, {2, 3, 4, 5, 6, 1}));
  EXPECT_KERNEL_FAILS(native::roll_out(ctx, tm.t(), ints(reps, 2), ints(dim1, 1), out));  // 2 shifts, 1 dim
  const int64_t dim2[1] = {2};
  EXPECT_KERNEL_FAILS(native::roll_out(ctx, tm.t(), ints(one, 1), ints(dim2, 1), out));
  // tril with diagonal 0 and -1
  EXPECT_KERNEL_OK(native::tril_out(ctx, tm.t(), 0, out));
  CHECK(values_are(o, {1, 0, 0, 4, 5, 0}));
  EXPECT_KERNEL_OK(native::tril_out(ctx, tm.t(), -1, out));
  CHECK(values_are(o, {0, 0, 0, 4, 0, 0}));
  TT to1(F, {3}, o);
  Tensor out1 = to1.t();
  EXPECT_KERNEL_FAILS(native::tril_out(ctx, ta.t(), 0, out1));  // 1-D
  EXPECT_KERNEL_FAILS(native::tril_out(ctx, tm.t(), 0, iout));  // another dtype
}

void check_shuffle_interleave_complex() {
  // pixel_shuffle of [1, 4, 1, 1] by 2 is [1, 1, 2, 2] in channel order; unshuffle undoes it.
  float x[4] = {1, 2, 3, 4}, o[4], back[4];
  TT tx(F, {1, 4, 1, 1}, x), to(F, {1, 1, 2, 2}, o), tback(F, {1, 4, 1, 1}, back);
  Tensor out = to.t(), undo = tback.t();
  EXPECT_KERNEL_OK(native::pixel_shuffle_out(ctx, tx.t(), 2, out));
  CHECK(values_are(o, {1, 2, 3, 4}));
  EXPECT_KERNEL_OK(native::pixel_unshuffle_out(ctx, to.t(), 2, undo));
  CHECK(values_are(back, {1, 2, 3, 4}));
  EXPECT_KERNEL_FAILS(native::pixel_unshuffle_out(ctx, tx.t(), 2, undo));  // 1x1 does not divide by 2
  EXPECT_KERNEL_FAILS(native::pixel_shuffle_out(ctx, tx.t(), 3, out));    // 4 channels, 3 * 3
  EXPECT_KERNEL_FAILS(native::pixel_shuffle_out(ctx, tx.t(), 0, out));
  TT tflat(F, {4}, x);
  EXPECT_KERNEL_FAILS(native::pixel_shuffle_out(ctx, tflat.t(), 1, out));  // fewer than 3 dims
  // repeat_interleave [2, 0, 1] -> [0, 0, 2]
  int64_t reps[3] = {2, 0, 1}, ro[3], neg[2] = {1, -1};
  TT treps(L, {3}, reps), tro(L, {3}, ro, DYN), tneg(L, {2}, neg);
  Tensor rout = tro.t();
  EXPECT_KERNEL_OK(native::repeat_interleave_Tensor_out(ctx, treps.t(), std::nullopt, rout));
  CHECK(ro[0] == 0 && ro[1] == 0 && ro[2] == 2);
  EXPECT_KERNEL_FAILS(native::repeat_interleave_Tensor_out(ctx, treps.t(), int64_t(4), rout));  // not the sum
  EXPECT_KERNEL_FAILS(native::repeat_interleave_Tensor_out(ctx, tneg.t(), std::nullopt, rout));  // negative
  TT tfreps(F, {3}, x);
  EXPECT_KERNEL_FAILS(native::repeat_interleave_Tensor_out(ctx, tfreps.t(), std::nullopt, rout));  // float repeats
  // view_as_real and _conj_physical on ComplexFloat; a real self is refused.
  using CF = ::executorch::aten::complex<float>;
  CF z[2] = {CF(1, 2), CF(3, -4)}, zo[2];
  float parts[4];
  TT tz(ScalarType::ComplexFloat, {2}, z), tzo(ScalarType::ComplexFloat, {2}, zo), tparts(F, {2, 2}, parts);
  Tensor pout = tparts.t(), zout = tzo.t();
  EXPECT_KERNEL_OK(native::view_as_real_copy_out(ctx, tz.t(), pout));
  CHECK(values_are(parts, {1, 2, 3, -4}));
  EXPECT_KERNEL_OK(native::_conj_physical_out(ctx, tz.t(), zout));
  CHECK(zo[0].real() == 1 && zo[0].imag() == -2 && zo[1].imag() == 4);
  EXPECT_KERNEL_FAILS(native::view_as_real_copy_out(ctx, tparts.t(), pout));
  EXPECT_KERNEL_FAILS(native::_conj_physical_out(ctx, tparts.t(), pout));
  EXPECT_KERNEL_FAILS(native::_conj_physical_out(ctx, tz.t(), pout));  // out of another dtype
  // index_put_ writes self in place.
  float s[4] = {0, 0, 0, 0}, v = 5;
  int64_t at[1] = {2};
  TT ts(F, {4}, s), tv(F, {}, &v), tat(L, {1}, at);
  Tensor self = ts.t();
  std::optional<Tensor> idx[1] = {tat.t()};
  EXPECT_KERNEL_OK(native::index_put_(ctx, self, ArrayRef<std::optional<Tensor>>(idx, 1), tv.t(), true));
  CHECK(values_are(s, {0, 0, 5, 0}));
  int64_t lv = 1;
  TT tlv(L, {}, &lv);
  EXPECT_KERNEL_FAILS(native::index_put_(ctx, self, ArrayRef<std::optional<Tensor>>(idx, 1), tlv.t(), false));
}

int main() {
  ::executorch::runtime::runtime_init();
  check_integer_overflow_wraps();
  check_add();
  check_sub();
  check_mul();
  check_div();
  check_relu();
  check_neg();
  check_gt();
  check_where();
  check_sum();
  check_mean();
  check_addmm();
  check_bmm();
  check_convolution();
  check_max_pool2d();
  check_softmax();
  check_layer_norm();
  check_permute_copy();
  check_expand_copy();
  check_split_with_sizes_copy();
  check_embedding();
  check_to_dim_order_copy();
  check_reshapes();
  check_select_slice();
  check_cat_pad_copy();
  check_indexing();
  check_index_put_and_copy_();
  check_creation();
  check_compare_and_logic();
  check_scalar_arithmetic();
  check_scalar_overflow();
  check_complex_add_and_refusals();
  check_unary_math();
  check_batch_norm_pool_mm();
  check_binary_tensor_ops();
  check_rounding_and_activations();
  check_reductions_and_scans();
  check_resampling_and_group_norm();
  check_embedding_bag();
  check_bitwise_and_division_family();
  check_unary_batch();
  check_reduction_batch();
  check_creation_batch();
  check_masked_and_nonzero();
  check_scatter_family();
  check_topk_and_padding();
  check_random_and_device_copies();
  check_distances_and_batch_norm_training();
  check_sampling_and_backward();
  check_plain_copies();
  check_view_copies();
  check_split_unbind();
  check_stack_repeat_roll_tril();
  check_shuffle_interleave_complex();
  return report();
}
