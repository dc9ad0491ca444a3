// aten::tril.out: the lower triangle of each matrix of self, the rest zero.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "tril.out";
}  // namespace

/// out[..., i, j] = self[..., i, j] where j - i <= diagonal, else 0, over
/// the last two dims of self (rank >= 2). Each row is a leading run kept
/// and a trailing run zeroed, so the kernel works on bytes: zero bits are
/// zero in every real, Bool, Half and BFloat16 dtype (the ones it takes).
/// out has self's dtype; both contiguous; out is resized.
Tensor& tril_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t diagonal, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.dim() >= 2 && static_cast<size_t>(self.dim()) <= k::kMaxDim, InvalidArgument, out,
                      "%s: self must have 2 to %zu dims", kName, k::kMaxDim);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_realhbbf16(self.scalar_type()),
                      InvalidArgument, out, "%s: unsupported dtype, or out's differs from self's", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.numel() == 0) return out;
  const size_t rank = static_cast<size_t>(self.dim());
  const int64_t rows = self.sizes()[rank - 2];
  const int64_t cols = self.sizes()[rank - 1];
  const int64_t matrices = k::size_product(self.sizes(), 0, rank - 2);
  const size_t elem = self.element_size();
  const char* src = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  for (int64_t r = 0; r < matrices * rows; ++r) {
    const int64_t i = r % rows;
    // Columns 0 .. i + diagonal are kept: clamp the count into [0, cols].
    const int64_t bound = diagonal > cols ? cols : (diagonal < -rows ? -rows : diagonal);
    int64_t keep = i + bound + 1;
    keep = keep < 0 ? 0 : (keep > cols ? cols : keep);
    const size_t row = static_cast<size_t>(r * cols) * elem;
    if (keep > 0 && src != dst) std::memmove(dst + row, src + row, static_cast<size_t>(keep) * elem);
    std::memset(dst + row + static_cast<size_t>(keep) * elem, 0, static_cast<size_t>(cols - keep) * elem);
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
