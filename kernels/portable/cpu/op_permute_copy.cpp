// aten::permute_copy.out: out = self with its dims reordered, materialised.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "permute_copy.out";  // the switch name (the widths a dtype-selective build keeps)
}  // namespace

/// out[i0, i1, ...] = self[...] with out dim j being self dim dims[j]
/// (negative entries count from the end; dims must be a permutation). Any
/// dtype up to 8 bytes wide, copied by width; self may have any dim order,
/// out must be contiguous and is resized to the permuted shape.
Tensor& permute_copy_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> dims, Tensor& out) {
  const size_t rank = static_cast<size_t>(self.dim());
  ET_KERNEL_CHECK_MSG(ctx, dims.size() == rank, InvalidArgument, out,
                      "permute_copy.out: %zu dims given for a tensor of rank %zu", dims.size(), rank);
  ET_KERNEL_CHECK(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::is_contiguous(out), InvalidArgument, out);
  int64_t in_strides[k::kMaxDim];
  k::strides_of(self, in_strides);
  bool seen[k::kMaxDim] = {false};
  k::Shape shape;
  int64_t sizes[k::kMaxDim];
  int64_t strides[k::kMaxDim];
  for (size_t j = 0; j < rank; ++j) {
    int64_t d = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dims[j], rank, &d) && !seen[d], InvalidArgument, out,
                        "permute_copy.out: dims is not a permutation");
    seen[d] = true;
    sizes[j] = self.sizes()[d];
    strides[j] = in_strides[d];
    shape.push(sizes[j]);
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  k::CopyPlan plan;
  k::make_strided_plan(sizes, strides, rank, &plan);
  ET_KERNEL_CHECK(ctx, k::strided_move<kName>(self, out, plan), InvalidArgument, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
