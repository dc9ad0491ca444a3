// aten::clone.out, aten::detach_copy.out and aten::lift_fresh_copy.out: out =
// a copy of self (the three differ only in autograd, which a program has not).
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::MemoryFormat;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// out = self byte for byte: out must have self's dtype and dim order and is
/// resized to its shape. Any dtype. False with ctx failed (a log naming
/// `name`) otherwise.
bool same_layout_copy(KernelRuntimeContext& ctx, const char* name, const Tensor& self, const Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, false,
                      "%s: out must have self's dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, k::valid_dim_order(self) && k::same_dim_order(self, out), InvalidArgument, false,
                      "%s: out must have self's dim order", name);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, self.sizes()), InvalidArgument, false, "%s: cannot resize out", name);
  const void* src = self.const_data_ptr();
  void* dst = out.mutable_data_ptr();
  if (self.nbytes() != 0 && src != dst) std::memmove(dst, src, self.nbytes());
  return true;
}

}  // namespace

/// out = self. memory_format may only be absent or contiguous (ExecuTorch's
/// contract: a program's tensors keep their dim order through a clone).
Tensor& clone_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<MemoryFormat> memory_format,
                  Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !memory_format.has_value() || *memory_format == MemoryFormat::Contiguous,
                      InvalidArgument, out, "clone.out: only the contiguous memory format is supported");
  same_layout_copy(ctx, "clone.out", self, out);
  return out;
}

/// out = self.
Tensor& detach_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  same_layout_copy(ctx, "detach_copy.out", self, out);
  return out;
}

/// out = self.
Tensor& lift_fresh_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  same_layout_copy(ctx, "lift_fresh_copy.out", self, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
