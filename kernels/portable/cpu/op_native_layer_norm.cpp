// aten::native_layer_norm.out: normalise over the trailing dims, with the
// per-row mean and reciprocal standard deviation as extra outputs.
#include "util/fast_math.h"
#include "util/kernel_util.h"

#include <cmath>
#include <optional>
#include <type_traits>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&, Tensor&>;

/// Whether an optional affine parameter is absent or holds exactly the
/// normalised shape in the input's dtype.
bool affine_ok(const std::optional<Tensor>& param, const Tensor& input, ArrayRef<int64_t> normalized_shape) {
  if (!param.has_value()) return true;
  const Tensor& p = *param;
  if (p.scalar_type() != input.scalar_type() || p.dim() != static_cast<ssize_t>(normalized_shape.size())) {
    return false;
  }
  for (size_t d = 0; d < normalized_shape.size(); ++d) {
    if (p.sizes()[d] != normalized_shape[d]) return false;
  }
  return k::is_contiguous(p);
}

/// Sum of f(x[j]) for j < n in CT, with eight partial sums so that the
/// compiler vectorises it.
template <typename CT, typename T, typename F>
inline CT sum_of(const T* x, int64_t n, const F& f) {
  CT part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int u = 0; u < 8; ++u) part[u] += f(static_cast<CT>(x[j + u]));
  }
  CT sum = 0;
  for (; j < n; ++j) sum += f(static_cast<CT>(x[j]));
  for (int u = 0; u < 8; ++u) sum += part[u];
  return sum;
}

/// Normalises `rows` rows of `n` values: mean and variance in two passes (the
/// second over deviations, which stays accurate when the mean is large), then
/// y = (x - mean) * rstd * weight + bias, computed in CT (float for Half and
/// BFloat16) and stored as T; every pass unrolled by eight and with the
/// weight / bias choice outside the loop, so that each vectorises.
template <typename T, typename CT = k::float_compute_t<T>>
void layer_norm(const T* x, const T* weight, const T* bias, double eps, int64_t rows, int64_t n, T* y, T* mean_out,
                T* rstd_out) {
  const CT inv_n = static_cast<CT>(1) / static_cast<CT>(n);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    if constexpr (std::is_same<T, float>::value) {  // the vectorised loops of fast_math.h
      const float mean = k::sum_f32(xr, n) * inv_n;
      const float rstd = 1.0f / std::sqrt(k::squares_f32(xr, n, mean) * inv_n + static_cast<float>(eps));
      mean_out[r] = mean;
      rstd_out[r] = rstd;
      if (weight != nullptr && bias != nullptr) {
        k::normalise_affine_f32(xr, yr, n, mean, rstd, weight, bias);
        continue;
      }
    }
    const CT mean = sum_of<CT>(xr, n, [](CT v) { return v; }) * inv_n;
    const CT sq = sum_of<CT>(xr, n, [mean](CT v) { return (v - mean) * (v - mean); });
    const CT rstd = static_cast<CT>(1) / std::sqrt(sq * inv_n + static_cast<CT>(eps));
    const auto normalise = [&](const auto& affine) {
      int64_t j = 0;
      for (; j + 8 <= n; j += 8) {
        CT v[8];
        for (int u = 0; u < 8; ++u) v[u] = affine(j + u, (static_cast<CT>(xr[j + u]) - mean) * rstd);
        for (int u = 0; u < 8; ++u) yr[j + u] = static_cast<T>(v[u]);
      }
      for (; j < n; ++j) yr[j] = static_cast<T>(affine(j, (static_cast<CT>(xr[j]) - mean) * rstd));
    };
    if (weight != nullptr && bias != nullptr) {
      normalise([&](int64_t j, CT v) { return v * static_cast<CT>(weight[j]) + static_cast<CT>(bias[j]); });
    } else if (weight != nullptr) {
      normalise([&](int64_t j, CT v) { return v * static_cast<CT>(weight[j]); });
    } else if (bias != nullptr) {
      normalise([&](int64_t j, CT v) { return v + static_cast<CT>(bias[j]); });
    } else {
      normalise([](int64_t, CT v) { return v; });
    }
    mean_out[r] = static_cast<T>(mean);
    rstd_out[r] = static_cast<T>(rstd);
  }
}

}  // namespace

/// Layer normalisation of `input` over its trailing dims matching
/// `normalized_shape`, for Float, Double, Half and BFloat16 (computed in
/// float). weight and bias are optional and, when given, have the normalised
/// shape. out0 takes the input's shape; out1
/// (mean) and out2 (rstd) take the input's shape with the normalised dims set
/// to 1. All tensors share the input's dtype and are contiguous.
std::tuple<Tensor&, Tensor&, Tensor&> native_layer_norm_out(
    KernelRuntimeContext& ctx, const Tensor& input, ArrayRef<int64_t> normalized_shape,
    const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps, Tensor& out0,
    Tensor& out1, Tensor& out2) {
  Outputs outs(out0, out1, out2);
  const size_t rank = static_cast<size_t>(input.dim());
  const size_t norm_rank = normalized_shape.size();
  ET_KERNEL_CHECK_MSG(ctx, norm_rank >= 1 && norm_rank <= rank, InvalidArgument, outs,
                      "native_layer_norm.out: normalized_shape must name 1 to input.dim() dims");
  const size_t axis = rank - norm_rank;
  for (size_t d = 0; d < norm_rank; ++d) {
    ET_KERNEL_CHECK_MSG(ctx, input.sizes()[axis + d] == normalized_shape[d], InvalidArgument, outs,
                        "native_layer_norm.out: normalized_shape does not match the input's trailing dims");
  }
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK(ctx,
                  out0.scalar_type() == dtype && out1.scalar_type() == dtype && out2.scalar_type() == dtype,
                  InvalidArgument, outs);
  ET_KERNEL_CHECK(ctx, affine_ok(weight, input, normalized_shape) && affine_ok(bias, input, normalized_shape),
                  InvalidArgument, outs);
  ET_KERNEL_CHECK(ctx,
                  k::is_contiguous(input) && k::is_contiguous(out0) && k::is_contiguous(out1) &&
                      k::is_contiguous(out2),
                  InvalidArgument, outs);
  k::Shape stats = k::shape_of(input);
  for (size_t d = axis; d < rank; ++d) stats.sizes[d] = 1;
  ET_KERNEL_CHECK(ctx, k::resize_to(out0, input.sizes()), InvalidArgument, outs);
  ET_KERNEL_CHECK(ctx, k::resize_to(out1, stats) && k::resize_to(out2, stats), InvalidArgument, outs);

  const int64_t rows = k::size_product(input.sizes(), 0, axis);
  const int64_t n = k::size_product(input.sizes(), axis, rank);
  if (rows == 0 || n == 0) return outs;
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, "native_layer_norm.out", CTYPE, [&]() {
    layer_norm<CTYPE>(input.const_data_ptr<CTYPE>(), weight ? weight->const_data_ptr<CTYPE>() : nullptr,
                      bias ? bias->const_data_ptr<CTYPE>() : nullptr, eps, rows, n,
                      out0.mutable_data_ptr<CTYPE>(), out1.mutable_data_ptr<CTYPE>(),
                      out2.mutable_data_ptr<CTYPE>());
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
