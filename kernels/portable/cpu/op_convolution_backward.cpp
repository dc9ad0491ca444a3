// aten::convolution_backward.out: the gradients of convolution.out with
// respect to its input, weight and bias.
#include "util/conv_util.h"

#include <optional>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&, Tensor&>;
constexpr char kName[] = "convolution_backward.out";  // the switch name

/// Whether t has exactly the sizes of `shape`.
bool has_shape(const Tensor& t, const k::Shape& shape) {
  if (static_cast<size_t>(t.dim()) != shape.ndim) return false;
  for (size_t d = 0; d < shape.ndim; ++d) {
    if (t.sizes()[d] != shape.sizes[d]) return false;
  }
  return true;
}

}  // namespace

/// For the convolution of input by weight with these parameters (1-D or 2-D,
/// plain or transposed, as convolution.out takes them) whose output gradient
/// is grad_output: grad_input (input's shape), grad_weight (weight's) and
/// grad_bias ([OC]), each computed only where output_mask says so (the others
/// are left untouched). bias_sizes only says whether there was a bias.
/// Real dtypes (Half and BFloat16 summed in float, integers wrapping, as
/// ATen's dilated convolutions take them), all alike, contiguous.
Outputs convolution_backward_out(KernelRuntimeContext& ctx, const Tensor& grad_output, const Tensor& input,
                                 const Tensor& weight, std::optional<ArrayRef<int64_t>> bias_sizes,
                                 ArrayRef<int64_t> stride, ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
                                 bool transposed, ArrayRef<int64_t> output_padding, int64_t groups,
                                 ArrayRef<bool> output_mask, Tensor& grad_input, Tensor& grad_weight,
                                 Tensor& grad_bias) {
  (void)bias_sizes;
  Outputs outs(grad_input, grad_weight, grad_bias);
  ET_KERNEL_CHECK_MSG(ctx, output_mask.size() == 3, InvalidArgument, outs, "%s: output_mask needs 3 values", kName);
  const auto dtype = input.scalar_type();
  const bool dtypes_ok = ::executorch::runtime::isRealHBF16Type(dtype) && weight.scalar_type() == dtype &&
                         grad_output.scalar_type() == dtype && (!output_mask[0] || grad_input.scalar_type() == dtype) &&
                         (!output_mask[1] || grad_weight.scalar_type() == dtype) &&
                         (!output_mask[2] || grad_bias.scalar_type() == dtype);
  ET_KERNEL_CHECK_MSG(ctx, dtypes_ok, InvalidArgument, outs, "%s: tensors must share one real dtype", kName);
  const bool contiguous = k::is_contiguous(input) && k::is_contiguous(weight) && k::is_contiguous(grad_output) &&
                          (!output_mask[0] || k::is_contiguous(grad_input)) &&
                          (!output_mask[1] || k::is_contiguous(grad_weight));
  ET_KERNEL_CHECK_MSG(ctx, contiguous, InvalidArgument, outs, "%s: tensors must be contiguous", kName);
  k::ConvShape s;
  k::Shape shape;
  if (!k::make_conv_shape(ctx, kName, input, weight, stride, padding, dilation, transposed, output_padding, groups, &s,
                          &shape)) {
    return outs;
  }
  ET_KERNEL_CHECK_MSG(ctx, has_shape(grad_output, shape), InvalidArgument, outs,
                      "%s: grad_output does not have the convolution's output shape", kName);
  const SizesType channels[1] = {static_cast<SizesType>(s.out_ch)};
  ET_KERNEL_CHECK_MSG(ctx,
                      (!output_mask[0] || k::resize_to(grad_input, input.sizes())) &&
                          (!output_mask[1] || k::resize_to(grad_weight, weight.sizes())) &&
                          (!output_mask[2] || k::resize_to(grad_bias, {channels, 1})),
                      InvalidArgument, outs, "%s: cannot resize the gradients", kName);
  s.in = k::strides4_of(input);
  s.weight = k::strides4_of(weight);
  s.out = k::strides4_of(grad_output);
  ET_SWITCH_REALHBF16_TYPES(dtype, ctx, kName, CTYPE, [&]() {
    k::conv2d_backward_gather<CTYPE>(grad_output.const_data_ptr<CTYPE>(), input.const_data_ptr<CTYPE>(),
                                     weight.const_data_ptr<CTYPE>(),
                                     output_mask[0] ? grad_input.mutable_data_ptr<CTYPE>() : nullptr,
                                     output_mask[1] ? grad_weight.mutable_data_ptr<CTYPE>() : nullptr,
                                     output_mask[2] ? grad_bias.mutable_data_ptr<CTYPE>() : nullptr, s);
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
