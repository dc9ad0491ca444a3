// Kernel-level checks (see kernel_checks.cpp) of unary math and activations, and
// arithmetic with Scalars (including Scalars that do not fit their dtype).
#include "kernel_checks.h"

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

namespace {
/// gelu of NaN, +inf, -inf, a large negative and a large positive finite
/// value, in dtype T, for one approximation: NaN, +inf and 0 (the limit, as
/// ExecuTorch's portable kernel gives; the formulas alone give -inf * 0 =
/// NaN), then 0 and the value itself. Each value sits in a run of 19 so that
/// the vectorised Float loops meet it in their vector body and in their tail.
template <typename T>
void check_gelu_limits(ScalarType type, const char* approximate) {
  constexpr int kRun = 19;
  const double values[5] = {NAN, INFINITY, -INFINITY, -1e4, 1e4};
  T in[5 * kRun], o[5 * kRun];
  for (int i = 0; i < 5 * kRun; ++i) in[i] = static_cast<T>(values[i / kRun]);
  TT tin(type, {5, kRun}, in), to(type, {5, kRun}, o);
  Tensor out = to.t();
  EXPECT_KERNEL_OK(native::gelu_out(ctx, tin.t(), approximate, out));
  for (int i = 0; i < kRun; ++i) {
    const double nan = static_cast<double>(o[i]), pos = static_cast<double>(o[kRun + i]);
    const double neg = static_cast<double>(o[2 * kRun + i]), low = static_cast<double>(o[3 * kRun + i]);
    const double high = static_cast<double>(o[4 * kRun + i]);
    if (!(std::isnan(nan) && pos == INFINITY && neg == 0 && low == 0 && high == static_cast<double>(in[4 * kRun]))) {
      std::printf("  gelu(%s) of dtype %d at %d: NaN -> %g, inf -> %g, -inf -> %g, -1e4 -> %g, 1e4 -> %g\n",
                  approximate, static_cast<int>(type), i, nan, pos, neg, low, high);
      CHECK(false);
      return;
    }
  }
  CHECK(true);
}
}  // namespace

/// gelu at the infinities and NaN, in every floating dtype (Float takes the
/// vectorised loops, the others the generic one) and both approximations.
void check_gelu_special_values() {
  for (const char* approximate : {"none", "tanh"}) {
    check_gelu_limits<float>(F, approximate);
    check_gelu_limits<double>(D, approximate);
    check_gelu_limits<::executorch::aten::Half>(ScalarType::Half, approximate);
    check_gelu_limits<::executorch::aten::BFloat16>(ScalarType::BFloat16, approximate);
  }
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
