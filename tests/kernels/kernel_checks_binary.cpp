// Kernel-level checks (see kernel_checks.cpp) of elementwise binary operators
// (broadcasting, type promotion, alpha), comparisons and logic, bitwise and
// division, and integer overflow.
#include "kernel_checks.h"

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

// Integer overflow wraps around, as in ATen. (Signed overflow is undefined in
// C++: the kernels compute integers in uint64_t. The sanitized build of these
// checks, tools/runner/fuzz, proves it.)
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
