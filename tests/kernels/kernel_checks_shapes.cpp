// Kernel-level checks (see kernel_checks.cpp) of shape operators: permute, expand,
// split, reshapes, select and slice, cat, padding, dim-order copies, and topk.
#include "kernel_checks.h"

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
}
