// aten::select_scatter.out: out = self with the slice at `index` along one
// dim replaced by src (which has that dim removed).
#include "util/copy_util.h"
#include "util/index_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "select_scatter.out";  // the switch name
}  // namespace

/// out = self, except out.select(dim, index) = src (a negative index counts
/// from the end). src has self's shape without `dim`, in any real, Bool,
/// Half or BFloat16 dtype (converted to self's where it differs); out has
/// self's dtype and is resized to its shape; all contiguous.
Tensor& select_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& src, int64_t dim,
                           int64_t index, Tensor& out) {
  const int64_t rank = self.dim();
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, rank > 0 && k::normalize_dim(dim, rank, &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range for rank %" PRId64, kName, dim, rank);
  int64_t at = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::wrap_index(index, self.sizes()[d], &at), InvalidArgument, out,
                      "%s: index %" PRId64 " out of range for size %zd", kName, index,
                      static_cast<ssize_t>(self.sizes()[d]));
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_realhbbf16(self.scalar_type()) && k::is_realhbbf16(src.scalar_type()) &&
                          out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "%s: out must have self's dtype (real, Bool, Half or BFloat16)", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(src) && k::is_contiguous(out), InvalidArgument,
                  out);
  bool fits = src.dim() == rank - 1;
  for (int64_t j = 0; fits && j < rank - 1; ++j) fits = src.sizes()[j] == self.sizes()[j < d ? j : j + 1];
  ET_KERNEL_CHECK_MSG(ctx, fits, InvalidArgument, out, "%s: src does not have the selected slice's shape", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.nbytes() != 0 && self.const_data_ptr() != out.const_data_ptr()) {
    std::memmove(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  if (src.numel() == 0) return out;
  // The slice is a box of self's shape with dim d of size 1; src walks it
  // with stride 0 along d.
  int64_t sizes[k::kMaxDim];
  int64_t src_strides[k::kMaxDim];
  int64_t dst_strides[k::kMaxDim];
  k::contiguous_strides_of(out, dst_strides);
  int64_t running = 1;
  for (int64_t j = rank; j-- > 0;) {
    sizes[j] = j == d ? 1 : self.sizes()[j];
    src_strides[j] = j == d ? 0 : running;
    running *= sizes[j];
  }
  k::CopyPlan plan;
  k::make_copy_plan(sizes, src_strides, dst_strides, static_cast<size_t>(rank), &plan);
  k::copy_or_convert<kName>(ctx, src.scalar_type(), src.const_data_ptr(), 0, out.scalar_type(),
                            out.mutable_data_ptr(), at * dst_strides[d], plan);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
