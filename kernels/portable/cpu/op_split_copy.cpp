// aten::split_copy.Tensor_out: self cut along a dim into pieces of
// `split_size` (the last one may be smaller).
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "split_copy.Tensor_out";
}  // namespace

/// out[i] = self[i * split_size : (i + 1) * split_size] along `dim`: there
/// must be ceil(size / split_size) outputs (one, the whole dim, when
/// split_size >= size; split_size 0 only for an empty dim). Real, Bool,
/// Half or BFloat16; the outputs share one dtype, which may differ from
/// self's (values converted, as ExecuTorch's kernel does); contiguous,
/// resized.
void split_copy_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t split_size, int64_t dim,
                           ArrayRef<Tensor> out) {
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && k::normalize_dim(dim, self.dim(), &d), InvalidArgument, ,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  const int64_t size = self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, split_size > 0 || (split_size == 0 && size == 0), InvalidArgument, ,
                      "%s: split_size %" PRId64 " for a dim of %" PRId64, kName, split_size, size);
  const int64_t pieces = split_size >= size ? 1 : (size + split_size - 1) / split_size;
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(out.size()) == pieces, InvalidArgument, ,
                      "%s: %zu outputs for %" PRId64 " pieces", kName, out.size(), pieces);
  for (const Tensor& piece : out) {
    ET_KERNEL_CHECK_MSG(ctx, piece.scalar_type() == out[0].scalar_type() &&
                                 k::convertible(self.scalar_type(), piece.scalar_type()),
                        InvalidArgument, , "%s: unsupported or differing output dtypes", kName);
  }
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self), InvalidArgument, );
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    k::View v = k::view_of(self);
    k::view_narrow(&v, static_cast<size_t>(d), start, size - start < split_size ? size - start : split_size);
    if (!k::copy_view<kName>(ctx, self, v, out[static_cast<size_t>(i)])) return;
  }
}

}  // namespace native
}  // namespace executor
}  // namespace torch
