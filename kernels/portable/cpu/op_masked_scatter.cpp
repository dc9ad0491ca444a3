// aten::masked_scatter.out: out = self, with src's elements in order where
// the (broadcast) mask is true.
#include "util/copy_util.h"
#include "util/masked_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "masked_scatter.out";
}  // namespace

/// out = self where mask is false; where it is true, src's elements taken
/// one after another in out's order. self and the Bool mask broadcast and out
/// is resized to their shape; src (any shape) has self's dtype and at least
/// as many elements as the mask has true ones (else the call fails). Any
/// real, Bool, Half or BFloat16 dtype, moved by width.
Tensor& masked_scatter_out(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& mask, const Tensor& src,
                           Tensor& out) {
  k::Shape shape;
  if (!k::masked_shape(ctx, kName, self, mask, out, &shape)) return out;
  ET_KERNEL_CHECK_MSG(ctx, src.scalar_type() == self.scalar_type() && k::is_contiguous(src), InvalidArgument, out,
                      "%s: src must be contiguous with self's dtype", kName);
  // Count first, so that a short src fails the call before out is written.
  const bool* m = mask.const_data_ptr<bool>();
  int64_t wanted = 0;
  k::for_each_binary(self, mask, shape, [&](int64_t, int64_t, int64_t im) { wanted += m[im] ? 1 : 0; });
  ET_KERNEL_CHECK_MSG(ctx, wanted <= src.numel(), InvalidArgument, out,
                      "%s: the mask selects %" PRId64 " elements, src has %zd", kName, wanted,
                      static_cast<ssize_t>(src.numel()));
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  k::with_element_word(out.scalar_type(), [&](auto word) {
    using W = decltype(word);
    const W* a = self.const_data_ptr<W>();
    const W* s = src.const_data_ptr<W>();
    W* o = out.mutable_data_ptr<W>();
    int64_t next = 0;
    k::for_each_binary(self, mask, shape,
                       [&](int64_t i, int64_t ia, int64_t im) { o[i] = m[im] ? s[next++] : a[ia]; });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
