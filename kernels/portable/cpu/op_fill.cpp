// aten::fill.Scalar_out and fill.Tensor_out: out = self's shape, every
// element one value (a Scalar, or the value of a 0-dim tensor).
#include "util/copy_util.h"
#include "util/scalar_fits.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "fill.Scalar_out";  // the switch names
constexpr char kTensorName[] = "fill.Tensor_out";

/// out = self's shape filled with `value`: out must have self's dtype (any
/// real, Bool, Half or BFloat16) and `value` fit it (see scalar_fits: a
/// negative integer wraps into Byte).
template <const char* Name>
Tensor& fill_like(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& value, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", Name);
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(value, out.scalar_type(), k::NegativeToUnsigned::kWraps),
                      InvalidArgument, out, "%s: value is out of range for %s", Name,
                      ::executorch::runtime::toString(out.scalar_type()));
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out, "%s: cannot resize out", Name);
  k::fill_scalar<Name>(ctx, out, value);
  return out;
}
}  // namespace

/// out = self's shape, every element `value` (see fill_like).
Tensor& fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& value, Tensor& out) {
  return fill_like<kName>(ctx, self, value, out);
}

/// out = self's shape, every element the value of the 0-dim tensor `value`
/// (any real, Bool, Half or BFloat16 dtype), converted to out's dtype (see
/// fill_like).
Tensor& fill_tensor_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& value, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, value.dim() == 0, InvalidArgument, out, "%s: value must be a 0-dim tensor", kTensorName);
  Scalar scalar(false);
  bool read = false;
  ET_SWITCH_REALHBBF16_TYPES(value.scalar_type(), ctx, kTensorName, CTYPE, [&]() {
    const CTYPE v = value.const_data_ptr<CTYPE>()[0];
    if constexpr (std::is_same<CTYPE, bool>::value) {
      scalar = Scalar(v);
    } else if constexpr (std::is_integral<CTYPE>::value) {
      scalar = Scalar(static_cast<int64_t>(v));
    } else {
      scalar = Scalar(static_cast<double>(v));
    }
    read = true;
  });
  if (!read) return out;  // ctx already failed
  return fill_like<kTensorName>(ctx, self, scalar, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
