// aten::sum.IntList_out: sum over a list of dims.
#include "util/reduce_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// Sums self over `dim` (negative dims allowed; none or empty means all dims),
/// keeping reduced dims as size 1 when `keepdim`. The output dtype is `dtype`
/// when given, else self's (Long for integral and Bool inputs, as in ATen);
/// out must have it and is resized. Elements are converted to the output
/// dtype before adding, so sum(dtype=Double) of a Float tensor adds doubles.
/// Input: real and Bool dtypes; output: Int, Long, Float or Double (the
/// dtypes sums are taken in: each output dtype multiplies the instantiations
/// by the input dtypes, so the rare narrow ones are left out). Half and
/// BFloat16 on either side are summed in float and rounded once.
Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                    bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  const ScalarType in_type = self.scalar_type();
  const ScalarType expected =
      dtype.has_value() ? *dtype : (k::is_floating(in_type) ? in_type : ScalarType::Long);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == expected, InvalidArgument, out,
                      "sum.IntList_out: out has dtype %s, expected %s",
                      ::executorch::runtime::toString(out.scalar_type()),
                      ::executorch::runtime::toString(expected));
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "sum.IntList_out: invalid dim list");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  if (out.numel() == 0) return out;
  if (k::is_reduced_float(in_type) || k::is_reduced_float(out.scalar_type())) {
    // Half and BFloat16 are summed in float (double for a Double out) and rounded once.
    ET_SWITCH_REALHBBF16_TYPES(in_type, ctx, "sum.IntList_out", IN, [&]() {
      ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, "sum.IntList_out", OUT, [&]() {
        k::reduce_sum_widened<k::float_compute_t<OUT>>(plan, self.const_data_ptr<IN>(), out.mutable_data_ptr<OUT>(),
                                                       [](auto acc) { return acc; });
      });
    });
    return out;
  }
  ET_SWITCH_REALB_TYPES(in_type, ctx, "sum.IntList_out", IN, [&]() {
    ET_SWITCH_FLOAT_TYPES_AND2(Int, Long, out.scalar_type(), ctx, "sum.IntList_out", OUT, [&]() {
      k::reduce_sum(plan, self.const_data_ptr<IN>(), out.mutable_data_ptr<OUT>());
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
