// aten::any.out, any.dims_out and any.all_out: whether any element is
// non-zero, along dims or over the whole tensor.
#include "util/reduce_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kDimName[] = "any.out";  // the switch names, one per overload
constexpr char kDimsName[] = "any.dims_out";
constexpr char kAllName[] = "any.all_out";

/// Reduces self over `dims` (none: all) into out (Bool, or Byte as ATen gives
/// for a Byte self) with logical or; any real, Bool, Half or BFloat16 self.
template <const char* Name>
Tensor& any_over(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<ArrayRef<int64_t>>& dims,
                 bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Bool || out.scalar_type() == ScalarType::Byte,
                      InvalidArgument, out, "%s: out must be Bool or Byte", Name);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dims, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", Name);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  if (out.numel() == 0) return out;
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE, [&]() {
    const auto fold = [](auto acc, CTYPE x) { return static_cast<decltype(acc)>(acc || x != static_cast<CTYPE>(0)); };
    if (out.scalar_type() == ScalarType::Bool) {
      k::reduce_fold(plan, self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<bool>(), false, fold);
    } else {
      k::reduce_fold(plan, self.const_data_ptr<CTYPE>(), out.mutable_data_ptr<uint8_t>(), uint8_t{0}, fold);
    }
  });
  return out;
}

}  // namespace

/// out = whether any element along `dim` is non-zero (keepdim keeps it as
/// size 1).
Tensor& any_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  const int64_t dims[1] = {dim};
  return any_over<kDimName>(ctx, self, ArrayRef<int64_t>(dims, 1), keepdim, out);
}

/// out = whether any element along the listed dims is non-zero (none or an
/// empty list: all dims).
Tensor& any_dims_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                     bool keepdim, Tensor& out) {
  return any_over<kDimsName>(ctx, self, dim, keepdim, out);
}

/// out (0-dim) = whether any element of self is non-zero.
Tensor& any_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return any_over<kAllName>(ctx, self, std::nullopt, false, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
