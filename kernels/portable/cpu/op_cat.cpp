// aten::cat.out: out = tensors joined along one dim.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "cat.out";  // the switch name

/// ATen skips 1-D tensors of size 0 whatever the other tensors' shapes (a
/// legacy rule kept for compatibility).
bool skipped(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

}  // namespace

/// out = the tensors joined along `dim` (negative counts from the end); all
/// but the skipped empty 1-D ones must agree on every other dim. Any real,
/// Bool, Half and BFloat16 dtypes: out must be able to hold the promoted
/// type of the inputs; inputs of out's dtype are moved by width, others
/// converted. Contiguous; out is resized.
Tensor& cat_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out, "%s: no tensors", kName);
  const Tensor* ref = nullptr;  // the first tensor that is not skipped
  ScalarType promoted = tensors[0].scalar_type();
  for (const Tensor& t : tensors) {
    ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(t.scalar_type()) && k::is_contiguous(t), InvalidArgument, out,
                        "%s: unsupported dtype or dim order", kName);
    promoted = ::executorch::runtime::promoteTypes(promoted, t.scalar_type());
    if (ref == nullptr && !skipped(t)) ref = &t;
  }
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(out.scalar_type()) && k::can_cast(promoted, out.scalar_type()) &&
                           k::is_contiguous(out),
                      InvalidArgument, out, "%s: out cannot hold the inputs' dtype", kName);
  if (ref == nullptr) {  // every input is an empty 1-D tensor
    const ::executorch::aten::SizesType zero[1] = {0};
    ET_KERNEL_CHECK(ctx, k::resize_to(out, {zero, 1}), InvalidArgument, out);
    return out;
  }
  const int64_t rank = ref->dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank > 0 && k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range for rank %" PRId64, kName, dim, rank);
  k::Shape shape = k::shape_of(*ref);
  int64_t total = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    bool fits = t.dim() == rank;
    for (int64_t j = 0; fits && j < rank; ++j) fits = j == d || t.sizes()[j] == shape.sizes[j];
    ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out, "%s: tensors differ in a dim other than %" PRId64, kName,
                        d);
    total += t.sizes()[d];
  }
  ET_KERNEL_CHECK_MSG(ctx, k::size_like(total, 0), InvalidArgument, out, "%s: result too large", kName);
  shape.sizes[d] = static_cast<::executorch::aten::SizesType>(total);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  int64_t out_strides[k::kMaxDim];
  k::contiguous_strides_of(out, out_strides);
  int64_t offset = 0;  // along dim, where the next tensor goes
  for (const Tensor& t : tensors) {
    if (skipped(t) || t.numel() == 0) {
      if (!skipped(t)) offset += t.sizes()[d];
      continue;
    }
    int64_t sizes[k::kMaxDim];
    int64_t strides[k::kMaxDim];
    for (int64_t j = 0; j < rank; ++j) sizes[j] = t.sizes()[j];
    k::contiguous_strides_of(t, strides);
    k::CopyPlan plan;
    k::make_copy_plan(sizes, strides, out_strides, static_cast<size_t>(rank), &plan);
    if (!k::copy_or_convert<kName>(ctx, t.scalar_type(), t.const_data_ptr(), 0, out.scalar_type(),
                                   out.mutable_data_ptr(), offset * out_strides[d], plan)) {
      return out;
    }
    offset += t.sizes()[d];
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
