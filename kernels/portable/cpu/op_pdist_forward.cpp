// aten::_pdist_forward.out: the p-norm distances between the rows of a matrix.
#include "util/distance_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "_pdist_forward.out";  // the switch name
}  // namespace

/// out[k] = ||self[i] - self[j]||_p for every pair i < j of self's N rows, in
/// row-major order of the pairs (out has N(N-1)/2 elements). self is [N, M]
/// and contiguous; self and out of one floating dtype (Half and BFloat16 in
/// float); p >= 0 (p = inf allowed).
Tensor& _pdist_forward_out(KernelRuntimeContext& ctx, const Tensor& self, double p, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "%s: self and out must share a floating dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, self.dim() == 2 && k::is_contiguous(self), InvalidArgument, out,
                      "%s: self must be a contiguous matrix", kName);
  ET_KERNEL_CHECK_MSG(ctx, p >= 0, InvalidArgument, out, "%s: p must be non-negative, got %f", kName, p);
  const int64_t rows = self.size(0);
  const int64_t cols = self.size(1);
  const SizesType pairs[1] = {static_cast<SizesType>(rows * (rows - 1) / 2)};
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, {pairs, 1}), InvalidArgument, out, "%s: cannot resize out", kName);
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* x = self.const_data_ptr<CTYPE>();
    CTYPE* y = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = i + 1; j < rows; ++j) {
        *y++ = static_cast<CTYPE>(k::p_distance<CT>(x + i * cols, x + j * cols, cols, p));
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
