// aten::prod.out and prod.int_out: the product of all elements, or along
// one dim.
#include "util/compare_util.h"
#include "util/reduce_util.h"

#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "prod.out";  // the switch names
constexpr char kIntName[] = "prod.int_out";

/// out[o] = the product of the input elements reducing into o, each read as
/// Out (out's dtype) first and multiplied in its category's widest type:
/// double for floating outs, int64_t (wrapping) for integral ones, and
/// logical and for Bool. An empty reduction gives 1. One copy per Out and
/// reader, shared by both overloads.
template <typename Out, typename Read>
ET_NOINLINE void multiply_into(const k::ReducePlan& plan, const Read& read, Out* result) {
  using Acc = typename std::conditional<
      k::is_float_like<Out>(), double,
      typename std::conditional<std::is_same<Out, bool>::value, bool, int64_t>::type>::type;
  k::for_each_output(plan, [&](int64_t o, int64_t first) {
    Acc acc = Acc(1);
    k::for_each_reduced(plan, first, [&](int64_t at) {
      const Acc x = static_cast<Acc>(read(at));
      if constexpr (std::is_same<Acc, bool>::value) {
        acc = acc && x;
      } else {
        acc = k::wrapping_mul(acc, x);
      }
    });
    result[o] = static_cast<Out>(acc);
  });
}

/// Checks dtype and layout, resizes out and multiplies (multiply_into).
/// Real, Bool, Half and BFloat16 dtypes on either side: one loop per out
/// dtype, self read through with_reader.
template <const char* Name>
Tensor& product(KernelRuntimeContext& ctx, const Tensor& self, const k::ReducePlan& plan,
                std::optional<ScalarType> dtype, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || out.scalar_type() == *dtype, InvalidArgument, out,
                      "%s: out must have the given dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", Name);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, plan.out), InvalidArgument, out, "%s: cannot resize out", Name);
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, Name, OUT, [&]() {
    OUT* result = out.mutable_data_ptr<OUT>();
    k::with_reader<Name, OUT, OUT>(ctx, self, [&](const auto& read) { multiply_into(plan, read, result); });
  });
  return out;
}
}  // namespace

/// out (0-dim) = the product of every element of self (1 if empty), in
/// out's dtype: `dtype` when given (out must have it), else out's own (ATen
/// picks Long for integral and Bool self). Real, Bool, Half and BFloat16
/// dtypes on either side.
Tensor& prod_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ScalarType> dtype, Tensor& out) {
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, {}, false, &plan), InvalidArgument, out,
                      "%s: cannot plan the reduction", kName);
  return product<kName>(ctx, self, plan, dtype, out);
}

/// out = the products along `dim` (1 where it is empty), keeping it as 1
/// with keepdim; dtypes as prod.out.
Tensor& prod_int_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim,
                     std::optional<ScalarType> dtype, Tensor& out) {
  const int64_t dims[1] = {dim};
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, ::executorch::aten::ArrayRef<int64_t>(dims, 1), keepdim, &plan),
                      InvalidArgument, out, "%s: dim %" PRId64 " out of range", kIntName, dim);
  return product<kIntName>(ctx, self, plan, dtype, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
