// aten::repeat_interleave.Tensor_out: each index i repeated repeats[i] times.
#include "util/kernel_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "repeat_interleave.Tensor_out";
}  // namespace

/// out = [0] * repeats[0] + [1] * repeats[1] + ... for a 1-D Int or Long
/// `repeats` of non-negative counts; out has repeats' dtype and is resized
/// to their sum, which output_size (when given) must equal.
Tensor& repeat_interleave_Tensor_out(KernelRuntimeContext& ctx, const Tensor& repeats,
                                     std::optional<int64_t> output_size, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, repeats.dim() == 1 && k::is_contiguous(repeats), InvalidArgument, out,
                      "%s: repeats must be 1-D", kName);
  ET_KERNEL_CHECK_MSG(ctx, repeats.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have repeats' dtype", kName);
  ET_SWITCH_TWO_TYPES(Int, Long, repeats.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* counts = repeats.const_data_ptr<CTYPE>();
    const int64_t n = repeats.numel();
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      ET_KERNEL_CHECK_MSG(ctx, counts[i] >= 0 && counts[i] <= INT32_MAX - total, InvalidArgument, ,
                          "%s: repeat %" PRId64 " negative or too large", kName, static_cast<int64_t>(counts[i]));
      total += counts[i];
    }
    ET_KERNEL_CHECK_MSG(ctx, !output_size.has_value() || *output_size == total, InvalidArgument, ,
                        "%s: output_size %" PRId64 " is not the repeats' sum %" PRId64, kName,
                        output_size.value_or(0), total);
    const ::executorch::aten::SizesType size[1] = {static_cast<::executorch::aten::SizesType>(total)};
    ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(out) && k::resize_to(out, {size, 1}), InvalidArgument, ,
                        "%s: out cannot take %" PRId64 " elements", kName, total);
    CTYPE* dst = out.mutable_data_ptr<CTYPE>();
    for (int64_t i = 0; i < n; ++i) {
      for (CTYPE r = 0; r < counts[i]; ++r) *dst++ = static_cast<CTYPE>(i);
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
