// aten::_cdist_forward.out: the p-norm distances between the rows of two
// batches of matrices.
#include "util/distance_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "_cdist_forward.out";  // the switch name

/// The batch dims of x1 and x2 (all but the last two) broadcast into
/// `shape` (NumPy rules); false if they do not broadcast.
bool batch_shape(const Tensor& x1, const Tensor& x2, k::Shape* shape) {
  const int64_t b1 = x1.dim() - 2, b2 = x2.dim() - 2;
  const int64_t rank = b1 > b2 ? b1 : b2;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t s1 = d - (rank - b1) >= 0 ? x1.size(d - (rank - b1)) : 1;
    const int64_t s2 = d - (rank - b2) >= 0 ? x2.size(d - (rank - b2)) : 1;
    if (s1 != s2 && s1 != 1 && s2 != 1) return false;
    if (!shape->push(s1 == 1 ? s2 : s1)) return false;
  }
  return true;
}

/// The offset (in matrices) of the batch entry `index` of `shape` in x,
/// whose batch dims broadcast to shape (size-1 dims repeat).
int64_t batch_offset(const Tensor& x, const k::Shape& shape, int64_t index) {
  const int64_t own = x.dim() - 2;
  int64_t offset = 0, stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.ndim) - 1; d >= 0; --d) {
    const int64_t coord = index % shape.sizes[d];
    index /= shape.sizes[d];
    const int64_t xd = d - (static_cast<int64_t>(shape.ndim) - own);
    if (xd < 0) continue;
    if (x.size(xd) != 1) offset += coord * stride;
    stride *= x.size(xd);
  }
  return offset;
}

}  // namespace

/// out[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p, for x1 [..., P, M] and
/// x2 [..., R, M] whose batch dims broadcast; out is [batch..., P, R]. All
/// three of one floating dtype (Half and BFloat16 in float), contiguous;
/// p >= 0 (inf allowed); compute_mode, absent or 0 to 2, only chooses how
/// ATen computes p = 2 and does not change the result here.
Tensor& _cdist_forward_out(KernelRuntimeContext& ctx, const Tensor& x1, const Tensor& x2, double p,
                           std::optional<int64_t> compute_mode, Tensor& out) {
  const auto dtype = x1.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(dtype) && x2.scalar_type() == dtype && out.scalar_type() == dtype,
                      InvalidArgument, out, "%s: x1, x2 and out must share a floating dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, x1.dim() >= 2 && x2.dim() >= 2 && x1.size(x1.dim() - 1) == x2.size(x2.dim() - 1),
                      InvalidArgument, out, "%s: x1 and x2 must be [..., P, M] and [..., R, M]", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(x1) && k::is_contiguous(x2) && k::is_contiguous(out), InvalidArgument,
                      out, "%s: x1, x2 and out must be contiguous", kName);
  ET_KERNEL_CHECK_MSG(ctx, p >= 0, InvalidArgument, out, "%s: p must be non-negative, got %f", kName, p);
  ET_KERNEL_CHECK_MSG(ctx, !compute_mode.has_value() || (*compute_mode >= 0 && *compute_mode <= 2), InvalidArgument,
                      out, "%s: compute_mode must be 0, 1 or 2", kName);
  k::Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, batch_shape(x1, x2, &shape), InvalidArgument, out,
                      "%s: the batch dims of x1 and x2 do not broadcast", kName);
  const k::Shape batch = shape;
  const int64_t rows1 = x1.size(x1.dim() - 2), rows2 = x2.size(x2.dim() - 2), cols = x1.size(x1.dim() - 1);
  ET_KERNEL_CHECK_MSG(ctx, shape.push(rows1) && shape.push(rows2) && k::resize_to(out, shape), InvalidArgument, out,
                      "%s: cannot resize out", kName);
  const int64_t batches = batch.numel();
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    CTYPE* y = out.mutable_data_ptr<CTYPE>();
    for (int64_t b = 0; b < batches; ++b) {
      const CTYPE* a = x1.const_data_ptr<CTYPE>() + batch_offset(x1, batch, b) * rows1 * cols;
      const CTYPE* c = x2.const_data_ptr<CTYPE>() + batch_offset(x2, batch, b) * rows2 * cols;
      for (int64_t i = 0; i < rows1; ++i) {
        for (int64_t j = 0; j < rows2; ++j) {
          *y++ = static_cast<CTYPE>(k::p_distance<CT>(a + i * cols, c + j * cols, cols, p));
        }
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
