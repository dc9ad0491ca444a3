// aten::roll.out: self's elements shifted circularly along dims.
#include "util/view_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "roll.out";
}  // namespace

/// out[..., (i + shift) mod n, ...] = self[..., i, ...] along each of `dims`
/// by the matching entry of `shifts` (a dim named twice shifts by the sum);
/// with no dims, self is rolled as one flat sequence by shifts[0]. Each
/// rolled dim is two strided boxes (the part that wraps and the part that
/// does not), so the copy is 2^k box copies for k rolled dims. Any dtype,
/// copied by width; out has self's dtype, contiguous, resized.
Tensor& roll_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> shifts, ArrayRef<int64_t> dims,
                 Tensor& out) {
  const bool flat = dims.size() == 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && shifts.size() > 0 && (flat ? shifts.size() == 1 : shifts.size() == dims.size()),
                      InvalidArgument, out, "%s: %zu shifts for %zu dims", kName, shifts.size(), dims.size());
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self), InvalidArgument, out,
                      "%s: self must be contiguous, out of its dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(out) && k::resize_to(out, self.sizes()), InvalidArgument, out,
                      "%s: out must be contiguous and take self's shape", kName);
  k::View src = k::view_of(self);
  if (flat) {  // one dim of all the elements
    src.ndim = 1;
    src.sizes[0] = self.numel();
    src.strides[0] = 1;
  }
  if (self.numel() == 0) return out;  // nothing moves (ExecuTorch checks no dims then)
  int64_t shift[k::kMaxDim] = {0};
  for (size_t i = 0; i < shifts.size(); ++i) {
    int64_t d = 0;
    ET_KERNEL_CHECK_MSG(ctx, flat || k::normalize_dim(dims[i], self.dim(), &d), InvalidArgument, out,
                        "%s: dim %" PRId64 " out of range", kName, dims[i]);
    const int64_t n = src.sizes[d];
    shift[d] = ((shift[d] + shifts[i] % n) % n + n) % n;
  }
  const k::View dst = src;  // out has self's (contiguous) layout
  size_t rolled[k::kMaxDim];
  size_t count = 0;
  for (size_t d = 0; d < src.ndim; ++d) {
    if (shift[d] != 0) rolled[count++] = d;
  }
  for (uint32_t mask = 0; mask < (1u << count); ++mask) {
    k::View from = src;
    k::View to = dst;
    for (size_t j = 0; j < count; ++j) {
      const size_t d = rolled[j];
      const int64_t n = src.sizes[d];
      const int64_t s = shift[d];
      if ((mask >> j) & 1u) {  // the tail of self wraps to the front of out
        k::view_narrow(&from, d, n - s, s);
        k::view_narrow(&to, d, 0, s);
      } else {
        k::view_narrow(&from, d, 0, n - s);
        k::view_narrow(&to, d, s, n - s);
      }
    }
    if (!k::copy_box<kName>(ctx, self, from, out, to)) return out;
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
