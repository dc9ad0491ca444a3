// Kernel-level checks (see kernel_checks.cpp) of the copy and view-copy family:
// clone, _to_copy, transpose, t, narrow, diagonal, unfold, split, unbind, stack,
// repeat, roll, tril, pixel_(un)shuffle...
#include "kernel_checks.h"

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
