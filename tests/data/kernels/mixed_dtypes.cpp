// Test kernels for the mixed_dtypes corpus model (tests/test_kernel_choice.py):
// just the dtypes that model uses. add.out has two kernels, a default one for
// any dtype and one registered only for all-Float, contiguous 2-D tensors;
// both compute the same, correct result, and each writes one line per call on
// stderr ("etsb-trace: <kernel> <dtype>"), so a run shows which kernel the
// runtime chose for each kernel key. Errors go through the context.
#include <cstdio>

#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_includes.h>

namespace test {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::runtime::Error;
using ::torch::executor::KernelRuntimeContext;

namespace {

const char* dtype_name(ScalarType type) {
  switch (type) {
    case ScalarType::Float: return "Float";
    case ScalarType::Double: return "Double";
    case ScalarType::Long: return "Long";
    case ScalarType::Bool: return "Bool";
    default: return "other";
  }
}

void trace(const char* kernel, ScalarType type) {
  std::fprintf(stderr, "etsb-trace: %s %s\n", kernel, dtype_name(type));
}

bool same_shape_as(const Tensor& out, const Tensor& like) {
  return ::executorch::runtime::resize_tensor(out, like.sizes()) == Error::Ok;
}

// Element i of a tensor that is either full size or holds one element (a
// 0-dim tensor from a Python scalar): what this model's broadcasts need.
template <typename T>
T at(const Tensor& t, ssize_t i) {
  return t.const_data_ptr<T>()[t.numel() == 1 ? 0 : i];
}

// A Scalar read as T; the runtime passes integral Scalars as Int.
template <typename T>
T scalar_as(const Scalar& value) {
  if (value.isBoolean()) return static_cast<T>(value.to<bool>());
  if (value.isFloatingPoint()) return static_cast<T>(value.to<double>());
  return static_cast<T>(value.to<int64_t>());
}

// out = a OP b over one dtype T, broadcasting one-element operands.
template <typename T, typename Op>
void binary(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  T* result = out.mutable_data_ptr<T>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = op(at<T>(a, i), at<T>(b, i));
}

// Checks shared by add and mul: one dtype throughout, out shaped like the larger input.
bool binary_ok(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  const Tensor& big = self.numel() >= other.numel() ? self : other;
  const Tensor& small = self.numel() >= other.numel() ? other : self;
  if (self.scalar_type() != out.scalar_type() || other.scalar_type() != out.scalar_type() ||
      (small.numel() != 1 && small.numel() != big.numel()) || !same_shape_as(out, big)) {
    ctx.fail(Error::InvalidArgument);
    return false;
  }
  return true;
}

Tensor& add_any(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                Tensor& out) {
  if (!binary_ok(ctx, self, other, out)) return out;
  switch (out.scalar_type()) {
    case ScalarType::Float: {
      const float a = scalar_as<float>(alpha);
      binary<float>(self, other, out, [a](float x, float y) { return x + a * y; });
      break;
    }
    case ScalarType::Long: {
      const int64_t a = scalar_as<int64_t>(alpha);
      binary<int64_t>(self, other, out, [a](int64_t x, int64_t y) { return x + a * y; });
      break;
    }
    default:
      ctx.fail(Error::InvalidArgument);
  }
  return out;
}

}  // namespace

// The default add.out kernel: Float and Long.
Tensor& add_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                Tensor& out) {
  trace("add_out", out.scalar_type());
  return add_any(ctx, self, other, alpha, out);
}

// The Float-specialised add.out kernel: registered only under the all-Float,
// contiguous 2-D key, so it refuses anything else outright.
Tensor& add_out_float(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, const Scalar& alpha,
                      Tensor& out) {
  trace("add_out_float", out.scalar_type());
  ET_KERNEL_CHECK(ctx, self.scalar_type() == ScalarType::Float && other.scalar_type() == ScalarType::Float &&
                           out.scalar_type() == ScalarType::Float && self.numel() == other.numel(),
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, same_shape_as(out, self), InvalidArgument, out);
  const float a = scalar_as<float>(alpha);
  const float* x = self.const_data_ptr<float>();
  const float* y = other.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = x[i] + a * y[i];
  return out;
}

Tensor& mul_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& other, Tensor& out) {
  if (!binary_ok(ctx, self, other, out)) return out;
  switch (out.scalar_type()) {
    case ScalarType::Float:
      binary<float>(self, other, out, [](float x, float y) { return x * y; });
      break;
    case ScalarType::Long:
      binary<int64_t>(self, other, out, [](int64_t x, int64_t y) { return x * y; });
      break;
    default:
      ctx.fail(Error::InvalidArgument);
  }
  return out;
}

Tensor& gt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.scalar_type() == ScalarType::Float && out.scalar_type() == ScalarType::Bool,
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, same_shape_as(out, self), InvalidArgument, out);
  const float threshold = scalar_as<float>(other);
  const float* x = self.const_data_ptr<float>();
  bool* result = out.mutable_data_ptr<bool>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = x[i] > threshold;
  return out;
}

Tensor& neg_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.scalar_type() == ScalarType::Float && out.scalar_type() == ScalarType::Float,
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, same_shape_as(out, self), InvalidArgument, out);
  const float* x = self.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = -x[i];
  return out;
}

Tensor& where_self_out(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self, const Tensor& other,
                       Tensor& out) {
  ET_KERNEL_CHECK(ctx, condition.scalar_type() == ScalarType::Bool && self.scalar_type() == ScalarType::Float &&
                           other.scalar_type() == ScalarType::Float && out.scalar_type() == ScalarType::Float &&
                           condition.numel() == self.numel() && other.numel() == self.numel(),
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, same_shape_as(out, self), InvalidArgument, out);
  const bool* c = condition.const_data_ptr<bool>();
  const float* x = self.const_data_ptr<float>();
  const float* y = other.const_data_ptr<float>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = c[i] ? x[i] : y[i];
  return out;
}

// Sum of a 2-D Float tensor over its last dimension, into Float or Double.
Tensor& sum_intlist_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                        bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  ET_KERNEL_CHECK(ctx, self.dim() == 2 && self.scalar_type() == ScalarType::Float && !keepdim, InvalidArgument,
                  out);
  ET_KERNEL_CHECK(ctx, dim.has_value() && dim->size() == 1 && ((*dim)[0] == 1 || (*dim)[0] == -1),
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, !dtype.has_value() || *dtype == out.scalar_type(), InvalidArgument, out);
  const ssize_t rows = self.size(0), cols = self.size(1);
  ::executorch::aten::SizesType sizes[1] = {static_cast<::executorch::aten::SizesType>(rows)};
  ET_KERNEL_CHECK(ctx, ::executorch::runtime::resize_tensor(out, {sizes, 1}) == Error::Ok, InvalidArgument, out);
  const float* x = self.const_data_ptr<float>();
  for (ssize_t r = 0; r < rows; ++r) {
    double total = 0;
    for (ssize_t c = 0; c < cols; ++c) total += static_cast<double>(x[r * cols + c]);
    if (out.scalar_type() == ScalarType::Double) {
      out.mutable_data_ptr<double>()[r] = total;
    } else if (out.scalar_type() == ScalarType::Float) {
      out.mutable_data_ptr<float>()[r] = static_cast<float>(total);
    } else {
      ctx.fail(Error::InvalidArgument);
      return out;
    }
  }
  return out;
}

// A dtype conversion (Long to Float here), keeping the contiguous dim order.
Tensor& to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                              std::optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  (void)non_blocking;
  if (dim_order.has_value()) {
    for (size_t i = 0; i < dim_order->size(); ++i) {
      ET_KERNEL_CHECK(ctx, (*dim_order)[i] == static_cast<int64_t>(i), InvalidArgument, out);
    }
  }
  ET_KERNEL_CHECK(ctx, self.scalar_type() == ScalarType::Long && out.scalar_type() == ScalarType::Float,
                  InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, same_shape_as(out, self), InvalidArgument, out);
  const int64_t* x = self.const_data_ptr<int64_t>();
  float* result = out.mutable_data_ptr<float>();
  for (ssize_t i = 0; i < out.numel(); ++i) result[i] = static_cast<float>(x[i]);
  return out;
}

}  // namespace native
}  // namespace test
