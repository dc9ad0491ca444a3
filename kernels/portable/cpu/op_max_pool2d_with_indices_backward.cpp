// aten::max_pool2d_with_indices_backward.grad_input: the gradient of
// max_pool2d_with_indices with respect to its input.
#include "util/pool_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "max_pool2d_with_indices_backward.grad_input";  // the switch name
}  // namespace

/// grad_input = zeros of input's shape, then every grad_output element added
/// at the position its index (from max_pool2d_with_indices: flat within its
/// [H, W] plane) names. The pooling parameters must give grad_output's and
/// indices' shape; input 3-D or 4-D, contiguous, of one floating dtype with
/// grad_output and grad_input (Half and BFloat16 summed in float); indices
/// Long, each inside the plane.
Tensor& max_pool2d_with_indices_backward_out(KernelRuntimeContext& ctx, const Tensor& grad_output,
                                             const Tensor& input, ArrayRef<int64_t> kernel_size,
                                             ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                                             ArrayRef<int64_t> dilation, bool ceil_mode, const Tensor& indices,
                                             Tensor& grad_input) {
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_floating(dtype) && grad_output.scalar_type() == dtype &&
                          grad_input.scalar_type() == dtype && indices.scalar_type() == ScalarType::Long,
                      InvalidArgument, grad_input,
                      "%s: input, grad_output and grad_input of one floating dtype, indices Long", kName);
  k::Window win[2];
  k::Shape pooled;
  if (!k::make_pool_windows(ctx, kName, input, kernel_size, stride, padding, dilation, ceil_mode, win, &pooled)) {
    return grad_input;
  }
  bool shapes_ok = static_cast<size_t>(grad_output.dim()) == pooled.ndim && k::same_sizes(grad_output, indices);
  for (size_t d = 0; shapes_ok && d < pooled.ndim; ++d) shapes_ok = grad_output.sizes()[d] == pooled.sizes[d];
  ET_KERNEL_CHECK_MSG(ctx, shapes_ok, InvalidArgument, grad_input,
                      "%s: grad_output and indices must have the pooling's output shape", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(grad_output) && k::is_contiguous(indices) && k::is_contiguous(grad_input),
                      InvalidArgument, grad_input, "%s: grad_output, indices and grad_input must be contiguous", kName);
  const int64_t plane = win[0].in * win[1].in, pooled_plane = win[0].out * win[1].out;
  const int64_t* idx = indices.const_data_ptr<int64_t>();
  bool indices_ok = true;
  for (int64_t i = 0; i < indices.numel(); ++i) indices_ok = indices_ok && idx[i] >= 0 && idx[i] < plane;
  ET_KERNEL_CHECK_MSG(ctx, indices_ok, InvalidArgument, grad_input, "%s: an index lies outside its plane", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(grad_input, input.sizes()), InvalidArgument, grad_input,
                      "%s: cannot resize grad_input", kName);
  const int64_t planes = plane > 0 ? input.numel() / plane : 0;
  ET_SWITCH_FLOATHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* go = grad_output.const_data_ptr<CTYPE>();
    CTYPE* gi = grad_input.mutable_data_ptr<CTYPE>();
    for (int64_t p = 0; p < planes; ++p) {
      CTYPE* dst = gi + p * plane;
      for (int64_t i = 0; i < plane; ++i) dst[i] = static_cast<CTYPE>(0);
      // Sums in CT, element by element, so that Half and BFloat16 round once per addition as ATen's do.
      for (int64_t o = 0; o < pooled_plane; ++o) {
        CTYPE& target = dst[idx[p * pooled_plane + o]];
        target = static_cast<CTYPE>(static_cast<CT>(target) + static_cast<CT>(go[p * pooled_plane + o]));
      }
    }
  });
  return grad_input;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
