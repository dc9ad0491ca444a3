// aten::nonzero.out: out = the coordinates of self's nonzero elements, one
// row each, in order.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "nonzero.out";  // the switch name
}  // namespace

/// out = a Long [count, rank] tensor whose rows are the coordinates of the
/// elements of self that are not zero (NaN counts), in self's order; out is
/// resized to it (its size depends on the data: a dynamic or bounded out
/// must have room). self any real, Bool, Half or BFloat16 dtype, contiguous.
Tensor& nonzero_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Long && out.dim() == 2, InvalidArgument, out,
                      "%s: out must be a 2-D Long tensor", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && k::is_contiguous(self), InvalidArgument, out,
                      "%s: self must be a contiguous real, Bool, Half or BFloat16 tensor", kName);
  const int64_t n = self.numel();
  const int64_t rank = self.dim();
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += static_cast<double>(in[i]) != 0.0 ? 1 : 0;
    const SizesType size[2] = {static_cast<SizesType>(count), static_cast<SizesType>(rank)};
    ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, {size, 2}), InvalidArgument, ,
                        "%s: out cannot hold %" PRId64 " rows", kName, count);
    int64_t* o = out.mutable_data_ptr<int64_t>();
    int64_t at[k::kMaxDim] = {0};  // the coordinates of element i
    for (int64_t i = 0; i < n; ++i) {
      if (static_cast<double>(in[i]) != 0.0) {
        for (int64_t j = 0; j < rank; ++j) *o++ = at[j];
      }
      for (int64_t j = rank; j-- > 0;) {
        if (++at[j] < self.sizes()[j]) break;
        at[j] = 0;
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
