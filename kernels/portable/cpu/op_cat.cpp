// aten::cat.out: out = tensors joined along one dim.
#include "util/complex_util.h"
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

/// Whether t has `rank` dims, all but `d` sized as in `shape`.
bool fits(const Tensor& t, const k::Shape& shape, int64_t rank, int64_t d) {
  bool ok = t.dim() == rank;
  for (int64_t j = 0; ok && j < rank; ++j) ok = j == d || t.sizes()[j] == shape.sizes[j];
  return ok;
}

/// The tensor whose shape the others follow: the first non-empty one, else
/// the first that is not skipped; null when all are skipped.
const Tensor* reference(ArrayRef<Tensor> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors) {
    if (t.numel() > 0) return &t;
    if (first == nullptr && !skipped(t)) first = &t;
  }
  return first;
}

/// Whether every tensor has a dtype cat takes and the default dim order, and
/// out can hold them: real, Bool, Half and BFloat16 dtypes promoted into out;
/// complex ones only all of out's dtype.
bool dtypes_ok(ArrayRef<Tensor> tensors, const Tensor& out) {
  const ScalarType out_type = out.scalar_type();
  const bool complex = k::is_complex(out_type);
  ScalarType promoted = tensors[0].scalar_type();
  for (const Tensor& t : tensors) {
    if (!k::is_contiguous(t)) return false;
    if (complex ? t.scalar_type() != out_type : !k::is_realhbbf16(t.scalar_type())) return false;
    if (!complex) promoted = ::executorch::runtime::promoteTypes(promoted, t.scalar_type());
  }
  return k::is_contiguous(out) && (complex || (k::is_realhbbf16(out_type) && k::can_cast(promoted, out_type)));
}

/// Copies each contributing tensor into its slab of out (of shape `shape`);
/// stops with ctx failed on a dtype it cannot convert.
void copy_slabs(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, const k::Shape& shape, int64_t d, Tensor& out) {
  const int64_t rank = static_cast<int64_t>(shape.ndim);
  int64_t out_strides[k::kMaxDim];
  k::contiguous_strides_of(out, out_strides);
  int64_t offset = 0;  // along dim, where the next tensor goes
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) {
      if (fits(t, shape, rank, d)) offset += t.sizes()[d];  // an empty slab (size 0 along dim unless skipped)
      continue;
    }
    int64_t sizes[k::kMaxDim];
    int64_t strides[k::kMaxDim];
    for (int64_t j = 0; j < rank; ++j) sizes[j] = t.sizes()[j];
    k::contiguous_strides_of(t, strides);
    k::CopyPlan plan;
    k::make_copy_plan(sizes, strides, out_strides, static_cast<size_t>(rank), &plan);
    const int64_t at = offset * out_strides[d];
    if (k::is_complex(out.scalar_type())) {
      k::complex_move_walk<kName>(ctx, out.scalar_type(), t.const_data_ptr(), 0, out.mutable_data_ptr(), at, plan);
    } else if (!k::copy_or_convert<kName>(ctx, t.scalar_type(), t.const_data_ptr(), 0, out.scalar_type(),
                                          out.mutable_data_ptr(), at, plan)) {
      return;
    }
    offset += t.sizes()[d];
  }
}

}  // namespace

/// out = the tensors joined along `dim` (negative counts from the end); all
/// must agree on every other dim, but for empty ones that do not (ATen's
/// skipped 1-D ones, and any other empty shape, which ExecuTorch ignores).
/// Any real, Bool, Half and BFloat16 dtypes: out must be able to hold the
/// promoted type of the inputs; inputs of out's dtype are moved by width,
/// others converted. Complex dtypes: all alike. Contiguous; out is resized.
Tensor& cat_out(KernelRuntimeContext& ctx, ArrayRef<Tensor> tensors, int64_t dim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, tensors.size() > 0, InvalidArgument, out, "%s: no tensors", kName);
  ET_KERNEL_CHECK_MSG(ctx, dtypes_ok(tensors, out), InvalidArgument, out,
                      "%s: unsupported dtype or dim order, or out cannot hold the inputs' dtype", kName);
  const Tensor* ref = reference(tensors);
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
    const bool ok = fits(t, shape, rank, d);
    ET_KERNEL_CHECK_MSG(ctx, ok || t.numel() == 0, InvalidArgument, out,
                        "%s: tensors differ in a dim other than %" PRId64, kName, d);
    if (ok) total += t.sizes()[d];
  }
  ET_KERNEL_CHECK_MSG(ctx, k::size_like(total, 0), InvalidArgument, out, "%s: result too large", kName);
  shape.sizes[d] = static_cast<::executorch::aten::SizesType>(total);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  copy_slabs(ctx, tensors, shape, d, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
