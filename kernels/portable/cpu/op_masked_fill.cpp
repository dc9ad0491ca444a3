// aten::masked_fill.Scalar_out: out = mask ? value : self, the mask broadcast.
#include "util/copy_util.h"
#include "util/masked_util.h"
#include "util/scalar_fits.h"

#include <cstring>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "masked_fill.Scalar_out";  // the switch name
}  // namespace

/// out = value where mask is true, self elsewhere; self and the Bool mask
/// broadcast and out is resized to their shape. Any real, Bool, Half or
/// BFloat16 dtype, out the same; value converted to it once (it must fit,
/// a negative integer wrapping into Byte), then elements moved by width.
Tensor& masked_fill_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask,
                               const Scalar& value, Tensor& out) {
  k::Shape shape;
  if (!k::masked_shape(ctx, kName, self, mask, out, &shape)) return out;
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(value, out.scalar_type(), k::NegativeToUnsigned::kWraps), InvalidArgument,
                      out, "%s: value is out of range for %s", kName,
                      ::executorch::runtime::toString(out.scalar_type()));
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  uint64_t fill = 0;  // value's bytes in out's dtype
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE v = k::scalar_to<CTYPE>(value);
    std::memcpy(&fill, &v, sizeof(CTYPE));
  });
  const bool* m = mask.const_data_ptr<bool>();
  k::with_element_word(out.scalar_type(), [&](auto word) {
    using W = decltype(word);
    W v;
    std::memcpy(&v, &fill, sizeof(W));
    const W* a = self.const_data_ptr<W>();
    W* o = out.mutable_data_ptr<W>();
    k::for_each_binary(self, mask, shape, [&](int64_t i, int64_t ia, int64_t im) { o[i] = m[im] ? v : a[ia]; });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
