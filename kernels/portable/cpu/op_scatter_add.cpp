// aten::scatter_add.out: out = self, with out[index[i][j]][j] += src[i][j]
// along dim 0; likewise along any dim. Repeated positions add up.
#include "util/copy_util.h"
#include "util/scatter_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "scatter_add.out";  // the switch name
}  // namespace

/// out = self plus src's elements added where index points along `dim`
/// (index as scatter's). self, src and out share any real, Bool (or), Half
/// or BFloat16 dtype; each sum is computed in float for Half and BFloat16
/// and rounded, integers wrap on overflow, as ATen's CPU loop does.
Tensor& scatter_add_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, const Tensor& index,
                        const Tensor& src, Tensor& out) {
  int64_t d = 0;
  if (!k::prepare_scatter(ctx, kName, self, dim, index, &src, out, &d)) return out;
  if (index.numel() == 0) return out;
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* s = src.const_data_ptr<CTYPE>();
    CTYPE* o = out.mutable_data_ptr<CTYPE>();
    k::walk_index_along(out, d, index, src, [&](int64_t, int64_t to, int64_t from) {
      if constexpr (std::is_integral_v<CTYPE>) {
        o[to] = k::wrapping_add(o[to], s[from]);  // Bool: or
      } else {
        o[to] = static_cast<CTYPE>(static_cast<k::float_compute_t<CTYPE>>(o[to]) +
                                   static_cast<k::float_compute_t<CTYPE>>(s[from]));
      }
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
