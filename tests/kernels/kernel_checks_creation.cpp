// Kernel-level checks (see kernel_checks.cpp) of creation and random operators,
// and the device copies.
#include "kernel_checks.h"

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
