// Boolean masks broadcast against a tensor (masked_fill, masked_scatter,
// masked_select): the shared checks and the broadcast shape they walk.
#pragma once

#include "broadcast_util.h"

namespace etsb {
namespace kernels {

using ::executorch::runtime::KernelRuntimeContext;

/// Checks a masked operator's self, mask and out (mask Bool; self any real,
/// Bool, Half or BFloat16 dtype, out the same; all contiguous) and gives the
/// broadcast shape of self and mask. False with ctx failed and a log line
/// naming `name` otherwise.
inline bool masked_shape(KernelRuntimeContext& ctx, const char* name, const Tensor& self, const Tensor& mask,
                         const Tensor& out, Shape* shape) {
  ET_KERNEL_CHECK_MSG(ctx, mask.scalar_type() == ScalarType::Bool, InvalidArgument, false,
                      "%s: mask must be Bool", name);
  ET_KERNEL_CHECK_MSG(ctx, is_realhbbf16(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, false, "%s: out must have self's (real, Bool, Half or BFloat16) dtype", name);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(self) && is_contiguous(mask) && is_contiguous(out), InvalidArgument, false,
                      "%s: self, mask and out must be contiguous", name);
  ET_KERNEL_CHECK_MSG(ctx, broadcast_shape(self, mask, shape), InvalidArgument, false,
                      "%s: self and mask do not broadcast", name);
  return true;
}

}  // namespace kernels
}  // namespace etsb
