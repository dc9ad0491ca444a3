// The shared front half of the arithmetic binary kernels (add, sub, mul, div):
// dtype checks, ATen's result type, broadcasting and output resizing. Each
// kernel then runs its own ET_SWITCH (named after itself) for the same-dtype
// fast path, or binary_mixed for mixed dtypes.
#pragma once

#include "broadcast_util.h"
#include "elementwise_util.h"
#include "kernel_util.h"

namespace etsb {
namespace kernels {

/// Checks a, b and out of a binary elementwise op, resizes out to the
/// broadcast shape, and gives the ATen result dtype of (a, b). False with ctx
/// failed (and a log line naming `name`) on any problem.
inline bool prepare_binary(
    KernelRuntimeContext& ctx, const char* name, const Tensor& a, const Tensor& b, const Tensor& out,
    ScalarType* result) {
  const bool dtypes_ok =
      is_realhbbf16(a.scalar_type()) && is_realhbbf16(b.scalar_type()) && is_realhbbf16(out.scalar_type());
  ET_KERNEL_CHECK_MSG(ctx, dtypes_ok, InvalidArgument, false, "%s: unsupported dtype", name);
  *result = result_type(a, b);
  Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, broadcast_shape(a, b, &shape), InvalidArgument, false,
                      "%s: shapes do not broadcast", name);
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, shape), InvalidArgument, false,
                      "%s: cannot resize out to the broadcast shape", name);
  const Tensor* tensors[3] = {&a, &b, &out};
  ET_KERNEL_CHECK_MSG(ctx, elementwise_layout_ok(tensors, 3), InvalidArgument, false,
                      "%s: unsupported mix of dim orders", name);
  return true;
}

/// Whether a, b and out share one dtype that the typed fast path handles.
inline bool same_real_dtype(const Tensor& a, const Tensor& b, const Tensor& out) {
  const ScalarType t = out.scalar_type();
  return a.scalar_type() == t && b.scalar_type() == t && is_real_or_bool(t);
}

}  // namespace kernels
}  // namespace etsb
