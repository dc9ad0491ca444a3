// aten::mean.out and mean.dtype_out: the mean over a list of dims, or over
// every element.
#include "util/reduce_util.h"

#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "mean.out";  // the switch names
constexpr char kDtypeName[] = "mean.dtype_out";

/// The finish of a mean (reduce_sum_widened): the sum divided by the count.
template <typename Acc>
struct DivideBy {
  Acc count;
  Acc operator()(Acc acc) const { return acc / count; }
};

/// The body of both overloads (see mean_dim_out); `Name` is the calling
/// operator's switch name, so that a dtype-selective build keys each
/// overload's dtypes on its own name.
template <const char* Name>
Tensor& mean_over(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<ArrayRef<int64_t>>& dim,
                  bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  const ScalarType expected = dtype.has_value() ? *dtype : self.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == expected && k::is_floating(expected), InvalidArgument, out,
                      "%s: out has dtype %s, expected a floating %s", Name,
                      ::executorch::runtime::toString(out.scalar_type()),
                      ::executorch::runtime::toString(expected));
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", Name);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  const int64_t n = out.numel();
  if (n == 0) return out;
  // One loop per out dtype (shared by both overloads): self is read through
  // with_reader (typed when it has out's dtype, else widened exactly). Half
  // and BFloat16 are summed in float (double for a Double out) and rounded
  // once, by loops inside those dtypes' switch cases, so that a
  // dtype-selective build without them compiles none.
  if (k::is_reduced_float(out.scalar_type())) {
    ET_SWITCH_TWO_TYPES(Half, BFloat16, out.scalar_type(), ctx, Name, OUT, [&]() {
      const DivideBy<float> finish{static_cast<float>(plan.count)};
      k::with_reader<Name, OUT, float>(ctx, self, [&](const auto& read) {
        k::reduce_sum_widened<float>(plan, read, out.mutable_data_ptr<OUT>(), finish);
      });
    });
    return out;
  }
  if (k::is_reduced_float(self.scalar_type())) {
    ET_SWITCH_FLOAT_TYPES(out.scalar_type(), ctx, Name, OUT, [&]() {
      const DivideBy<OUT> finish{static_cast<OUT>(plan.count)};
      k::with_reduced_float_reader<Name, OUT>(ctx, self, [&](const auto& read) {
        k::reduce_sum_widened<OUT>(plan, read, out.mutable_data_ptr<OUT>(), finish);
      });
    });
    return out;
  }
  ET_SWITCH_FLOAT_TYPES(out.scalar_type(), ctx, Name, OUT, [&]() {
    OUT* result = out.mutable_data_ptr<OUT>();
    k::with_reader<Name, OUT, OUT>(ctx, self, [&](const auto& read) { k::reduce_sum(plan, read, result); });
    const OUT count = static_cast<OUT>(plan.count);
    for (int64_t i = 0; i < n; ++i) result[i] /= count;
  });
  return out;
}
}  // namespace

/// Mean of self over `dim` (negative dims allowed; none or empty means all
/// dims), keeping reduced dims as size 1 when `keepdim` (Half and BFloat16
/// summed in float). The output dtype is
/// `dtype` when given, else self's; it must be Float or Double (ATen has no
/// integral mean) and out must have it; out is resized. Elements are summed in
/// the output dtype, then divided by their count. Input: real and Bool dtypes.
Tensor& mean_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                     bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  return mean_over<kName>(ctx, self, dim, keepdim, dtype, out);
}

/// The mean of every element of self, as a 0-dim out: mean.out over all
/// dims without keepdim (same dtype rules).
Tensor& mean_dtype_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ScalarType> dtype, Tensor& out) {
  return mean_over<kDtypeName>(ctx, self, std::nullopt, false, dtype, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
