// aten::masked_select.out: out = the 1-D list of self's elements where the
// (broadcast) mask is true.
#include "util/copy_util.h"
#include "util/masked_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "masked_select.out";
}  // namespace

/// out = self's elements where mask is true, in the order of self and mask
/// broadcast together; out is resized to [count] (its size depends on the
/// data: a dynamic or bounded out must have room). Any real, Bool, Half or
/// BFloat16 dtype, out the same, moved by width.
Tensor& masked_select_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask, Tensor& out) {
  k::Shape shape;
  if (!k::masked_shape(ctx, kName, self, mask, out, &shape)) return out;
  const bool* m = mask.const_data_ptr<bool>();
  int64_t count = 0;
  k::for_each_binary(self, mask, shape, [&](int64_t, int64_t, int64_t im) { count += m[im] ? 1 : 0; });
  const SizesType size[1] = {static_cast<SizesType>(count)};
  ET_KERNEL_CHECK_MSG(ctx, out.dim() == 1 && k::resize_to(out, {size, 1}), InvalidArgument, out,
                      "%s: out cannot hold %" PRId64 " elements", kName, count);
  k::with_element_word(out.scalar_type(), [&](auto word) {
    using W = decltype(word);
    const W* a = self.const_data_ptr<W>();
    W* o = out.mutable_data_ptr<W>();
    int64_t next = 0;
    k::for_each_binary(self, mask, shape, [&](int64_t, int64_t ia, int64_t im) {
      if (m[im]) o[next++] = a[ia];
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
