// aten::scatter.src_out and aten::scatter.value_out: out = self, with
// out[index[i][j]][j] = src[i][j] (or the value) along dim 0; likewise along
// any dim. A position indexed twice keeps the last write.
#include "util/copy_util.h"
#include "util/scalar_fits.h"
#include "util/scatter_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kValueName[] = "scatter.value_out";  // the switch name
}  // namespace

/// out = self with src's elements written where index points along `dim`
/// (index: Long or Int, of self's rank, no larger than src, nor than self
/// but along dim; negative values count from the end). self, src and out
/// share any real, Bool, Half or BFloat16 dtype, moved by width; contiguous.
Tensor& scatter_src_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                        const Tensor& src, Tensor& out) {
  int64_t d = 0;
  if (!k::prepare_scatter(ctx, "scatter.src_out", self, dim, index, &src, out, &d)) return out;
  if (index.numel() == 0) return out;
  k::with_element_word(out.scalar_type(), [&](auto word) {
    using W = decltype(word);
    const W* s = src.const_data_ptr<W>();
    W* o = out.mutable_data_ptr<W>();
    k::walk_index_along(out, d, index, src, [&](int64_t, int64_t to, int64_t from) { o[to] = s[from]; });
  });
  return out;
}

/// As scatter_src_out, with one value written at every indexed position
/// (it must fit the dtype: no overflow, no negative into Byte).
Tensor& scatter_value_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                          const Scalar& value, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::scalar_fits(value, self.scalar_type()), InvalidArgument, out,
                      "%s: value is out of range for %s", kValueName,
                      ::executorch::runtime::toString(self.scalar_type()));
  int64_t d = 0;
  if (!k::prepare_scatter(ctx, kValueName, self, dim, index, nullptr, out, &d)) return out;
  if (index.numel() == 0) return out;
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, kValueName, CTYPE, [&]() {
    const CTYPE v = k::scalar_to<CTYPE>(value);
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    k::walk_index_along(out, d, index, index, [&](int64_t, int64_t to, int64_t) { o[to] = v; });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
