// aten::_to_copy.out: out = self converted to out's dtype.
#include "util/convert_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::MemoryFormat;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
// The switch name, as ExecuTorch's kernel spells it for dtype-selective builds.
constexpr char kName[] = "to_copy";
}  // namespace

/// out = self converted to out's dtype (any real, Bool, Half or BFloat16 on
/// either side), resized to self's shape. As in ExecuTorch: only blocking
/// copies, memory_format absent or contiguous, self in the default dim
/// order and out in self's.
Tensor& to_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                    std::optional<MemoryFormat> memory_format, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !non_blocking, InvalidArgument, out, "_to_copy.out: only blocking copies are supported");
  ET_KERNEL_CHECK_MSG(ctx, !memory_format.has_value() || *memory_format == MemoryFormat::Contiguous,
                      InvalidArgument, out, "_to_copy.out: only the contiguous memory format is supported");
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()) && k::is_realhbbf16(out.scalar_type()),
                      InvalidArgument, out, "_to_copy.out: unsupported dtype");
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "_to_copy.out: self and out must be contiguous");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  k::convert_in_order<kName>(ctx, self, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
