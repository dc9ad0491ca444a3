// aten::copy.out and aten::copy_: src broadcast to self's shape, in self's dtype.
#include "util/broadcast_util.h"
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "copy.out";  // the switch name
}  // namespace

/// out = src broadcast to self's shape and converted to out's dtype (self's
/// values are not read: copy_ overwrites them). src must broadcast to self;
/// any real, Bool, Half or BFloat16 dtypes; contiguous; out is resized to
/// self's shape. non_blocking must be false: a portable kernel copies now
/// (ExecuTorch's contract, which its kernel suite checks).
Tensor& copy_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, bool non_blocking, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !non_blocking, InvalidArgument, out, "%s: non_blocking copies are not supported", kName);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == self.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(src) && k::is_contiguous(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, src.dim() <= self.dim(), InvalidArgument, out, "%s: src has more dims than self", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  const size_t rank = static_cast<size_t>(self.dim());
  const size_t lead = rank - static_cast<size_t>(src.dim());
  int64_t src_strides[k::kMaxDim];
  k::contiguous_strides_of(src, src_strides);
  int64_t sizes[k::kMaxDim];
  int64_t strides[k::kMaxDim];
  for (size_t d = 0; d < rank; ++d) {
    sizes[d] = self.sizes()[d];
    if (d < lead) {
      strides[d] = 0;
      continue;
    }
    const int64_t have = src.sizes()[d - lead];
    ET_KERNEL_CHECK_MSG(ctx, have == sizes[d] || have == 1, InvalidArgument, out,
                        "%s: src does not broadcast to self's shape", kName);
    strides[d] = have == sizes[d] ? src_strides[d - lead] : 0;
  }
  if (out.numel() == 0) return out;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, rank, &plan);
  k::copy_or_convert<kName>(ctx, src.scalar_type(), src.const_data_ptr(), 0, out.scalar_type(),
                            out.mutable_data_ptr(), 0, plan);
  return out;
}

/// self = src broadcast to self's shape, in place (copy_out with self as out):
/// how an exported program writes a mutated buffer back.
Tensor& copy_(KernelRuntimeContext& ctx, Tensor& self, const Tensor& src, bool non_blocking) {
  return copy_out(ctx, self, src, non_blocking, self);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
