// Kernel-level checks (see kernel_checks.cpp) of indexing: embedding, index,
// index_put, masks, nonzero and scatters.
#include "kernel_checks.h"

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
