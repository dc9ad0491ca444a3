// aten::arange.start_out and aten::arange.out: out = start, start + step, ...
// up to (not including) end.
#include "util/copy_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

// The switch names: each overload its own, so that a dtype-selective build
// keeps the dtypes of the overloads it selects.
constexpr char kStartName[] = "arange.start_out";
constexpr char kEndName[] = "arange.out";

/// Fills out (1-D) with start + i * step for i below ceil((end - start) /
/// step), as ATen does: the values computed in double for floating outs and
/// in int64_t when start, end and step are all integers.
template <const char* Name>
Tensor& arange_fill(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end,
                    const Scalar& step, Tensor& out) {
  const double b = k::scalar_to<double>(start);
  const double e = k::scalar_to<double>(end);
  const double s = k::scalar_to<double>(step);
  ET_KERNEL_CHECK_MSG(ctx, std::isfinite(b) && std::isfinite(e) && std::isfinite(s), InvalidArgument, out,
                      "%s: start, end and step must be finite", Name);
  ET_KERNEL_CHECK_MSG(ctx, s != 0 && ((s > 0 && e >= b) || (s < 0 && e <= b)), InvalidArgument, out,
                      "%s: step %g does not lead from %g to %g", Name, s, b, e);
  const double count = std::ceil((e - b) / s);
  ET_KERNEL_CHECK_MSG(ctx, count <= INT32_MAX, InvalidArgument, out, "%s: %g elements is too many", Name, count);
  const int64_t n = static_cast<int64_t>(count);
  const ::executorch::aten::SizesType size[1] = {static_cast<::executorch::aten::SizesType>(n)};
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, {size, 1}), InvalidArgument, out, "%s: cannot resize out to %" PRId64,
                      Name, n);
  const bool integral = !start.isFloatingPoint() && !end.isFloatingPoint() && !step.isFloatingPoint();
  ET_SWITCH_REALHBF16_TYPES(out.scalar_type(), ctx, Name, CTYPE, [&]() {
    CTYPE* data = out.mutable_data_ptr<CTYPE>();
    if (integral) {
      const int64_t first = k::scalar_to<int64_t>(start);
      const int64_t delta = k::scalar_to<int64_t>(step);
      for (int64_t i = 0; i < n; ++i) data[i] = static_cast<CTYPE>(first + i * delta);
    } else {
      for (int64_t i = 0; i < n; ++i) data[i] = static_cast<CTYPE>(b + static_cast<double>(i) * s);
    }
  });
  return out;
}

}  // namespace

/// out = [start, start + step, ...) below end (above it for a negative step),
/// in out's dtype (real, Half or BFloat16); out is resized to 1-D.
Tensor& arange_start_out(KernelRuntimeContext& ctx, const Scalar& start, const Scalar& end, const Scalar& step,
                         Tensor& out) {
  return arange_fill<kStartName>(ctx, start, end, step, out);
}

/// out = [0, 1, ..., end), as arange.start_out with start 0 and step 1.
Tensor& arange_out(KernelRuntimeContext& ctx, const Scalar& end, Tensor& out) {
  return arange_fill<kEndName>(ctx, Scalar(static_cast<int64_t>(0)), end, Scalar(static_cast<int64_t>(1)), out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
