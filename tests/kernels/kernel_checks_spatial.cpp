// Kernel-level checks (see kernel_checks.cpp) of matrix products, convolution,
// pooling, normalisation, resampling, distances, and the backward operators.
#include "kernel_checks.h"

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
}
