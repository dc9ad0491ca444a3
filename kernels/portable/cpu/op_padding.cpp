// aten::reflection_pad{1,2,3}d.out and aten::replication_pad{1,2,3}d.out:
// out = self padded over its last 1, 2 or 3 dims by mirroring or by
// repeating the edge (util/pad_util.h).
#include "util/pad_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

/// Reflection padding of the last dim: padding = [left, right].
Tensor& reflection_pad1d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding, Tensor& out) {
  return k::pad_out(ctx, "reflection_pad1d.out", 1, self, padding, k::PadMode::kReflect, out);
}

/// Reflection padding of the last two dims: [left, right, top, bottom].
Tensor& reflection_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding, Tensor& out) {
  return k::pad_out(ctx, "reflection_pad2d.out", 2, self, padding, k::PadMode::kReflect, out);
}

/// Reflection padding of the last three dims: [left, right, top, bottom,
/// front, back].
Tensor& reflection_pad3d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding, Tensor& out) {
  return k::pad_out(ctx, "reflection_pad3d.out", 3, self, padding, k::PadMode::kReflect, out);
}

/// Replication padding of the last dim: padding = [left, right].
Tensor& replication_pad1d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding,
                              Tensor& out) {
  return k::pad_out(ctx, "replication_pad1d.out", 1, self, padding, k::PadMode::kReplicate, out);
}

/// Replication padding of the last two dims: [left, right, top, bottom].
Tensor& replication_pad2d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding,
                              Tensor& out) {
  return k::pad_out(ctx, "replication_pad2d.out", 2, self, padding, k::PadMode::kReplicate, out);
}

/// Replication padding of the last three dims: [left, right, top, bottom,
/// front, back].
Tensor& replication_pad3d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> padding,
                              Tensor& out) {
  return k::pad_out(ctx, "replication_pad3d.out", 3, self, padding, k::PadMode::kReplicate, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
