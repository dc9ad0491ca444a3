// aten::full_like.out: out = a tensor shaped like self, filled with one value.
#include "util/copy_util.h"
#include "util/scalar_fits.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::MemoryFormat;
using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "full_like.out";  // the switch name
}  // namespace

/// out = self's shape, every element fill_value converted to out's dtype (any
/// real, Bool, Half or BFloat16 dtype, which fill_value must fit as in
/// full.out; self's values and dtype are not read).
/// memory_format may be absent or Preserve/Contiguous: every element is set
/// alike, so the layout does not matter. out is resized.
Tensor& full_like_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& fill_value,
                      std::optional<MemoryFormat> memory_format, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx,
                      !memory_format.has_value() || *memory_format == MemoryFormat::Preserve ||
                          *memory_format == MemoryFormat::Contiguous,
                      InvalidArgument, out, "%s: unsupported memory format", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(fill_value, out.scalar_type(), k::NegativeToUnsigned::kWraps),
                      InvalidArgument, out, "%s: fill_value is out of range for %s", kName,
                      ::executorch::runtime::toString(out.scalar_type()));
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  k::fill_scalar<kName>(ctx, out, fill_value);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
