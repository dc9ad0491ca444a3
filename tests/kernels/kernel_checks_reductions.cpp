// Kernel-level checks (see kernel_checks.cpp) of reductions, scans and softmax.
#include "kernel_checks.h"

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
