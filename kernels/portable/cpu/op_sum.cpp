// aten::sum.IntList_out: sum over a list of dims.
#include "util/complex_util.h"
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

constexpr char kName[] = "sum.IntList_out";  // the switch name

/// out = the sums of a complex self (out of its dtype), in its compute type.
void sum_complex(KernelRuntimeContext& ctx, const k::ReducePlan& plan, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, , "%s: out must have self's dtype",
                      kName);
  ET_SWITCH_COMPLEXH_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    using Acc = k::complex_compute_t<CTYPE>;
    k::reduce_sum_widened<Acc>(plan, k::TypedReader<CTYPE, Acc>{self.const_data_ptr<CTYPE>()},
                               out.mutable_data_ptr<CTYPE>(), k::KeepSum{});
  });
}

/// out = the sums of a real self: elements converted to out's dtype and added
/// in it (Half and BFloat16 on either side: in float, or double for a Double
/// out, rounded once).
void sum_real(KernelRuntimeContext& ctx, const k::ReducePlan& plan, const Tensor& self, Tensor& out) {
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(in_type) && k::is_realhbbf16(out_type), InvalidArgument, ,
                      "%s: unsupported dtype", kName);
  // One loop per out dtype: self is read through with_reader (typed when it
  // has out's dtype, else widened exactly and converted per element). The
  // Half and BFloat16 loops sit inside those dtypes' switch cases, so that a
  // dtype-selective build without them compiles none.
  if (k::is_reduced_float(out_type)) {
    ET_SWITCH_TWO_TYPES(Half, BFloat16, out_type, ctx, kName, OUT, [&]() {
      k::with_reader<kName, OUT, float>(ctx, self, [&](const auto& read) {
        k::reduce_sum_widened<float>(plan, read, out.mutable_data_ptr<OUT>(), k::KeepSum{});
      });
    });
    return;
  }
  if (k::is_reduced_float(in_type) && k::is_floating(out_type)) {
    ET_SWITCH_FLOAT_TYPES(out_type, ctx, kName, OUT, [&]() {
      k::with_reduced_float_reader<kName, OUT>(ctx, self, [&](const auto& read) {
        k::reduce_sum_widened<OUT>(plan, read, out.mutable_data_ptr<OUT>(), k::KeepSum{});
      });
    });
    return;
  }
  ET_SWITCH_REALB_TYPES(out_type, ctx, kName, OUT, [&]() {
    k::with_reader<kName, OUT, OUT>(ctx, self,
                                    [&](const auto& read) { k::reduce_sum(plan, read, out.mutable_data_ptr<OUT>()); });
  });
}

}  // namespace

/// Sums self over `dim` (negative dims allowed; none or empty means all dims),
/// keeping reduced dims as size 1 when `keepdim`. out must have `dtype` when
/// given; otherwise out's dtype is the one summed in, whatever it is (as in
/// ATen, whose default for a fresh out is self's dtype, Long for integral and
/// Bool). Elements are converted to the output dtype before adding, so
/// sum(dtype=Double) of a Float tensor adds doubles, and a Bool out tells
/// whether any element is nonzero. Real, Bool, Half and BFloat16 dtypes on
/// either side (Half and BFloat16 summed in float); a complex self sums into
/// out of its dtype.
Tensor& sum_dim_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                    bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || out.scalar_type() == *dtype, InvalidArgument, out,
                      "%s: out has dtype %s, dtype is %s", kName, ::executorch::runtime::toString(out.scalar_type()),
                      ::executorch::runtime::toString(*dtype));
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dim, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, plan.out), InvalidArgument, out);
  if (out.numel() == 0) return out;
  if (k::is_complex(self.scalar_type())) {
    sum_complex(ctx, plan, self, out);
  } else {
    sum_real(ctx, plan, self, out);
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
