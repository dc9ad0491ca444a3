// aten::argmin.out: the index of the minimum along a dim (or of the whole
// tensor, flattened).
#include "util/minmax_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "argmin.out";  // the switch name
}  // namespace

/// out (Long) = the index along `dim` of the smallest element (the first one
/// on ties; the first NaN if any, as in ATen); without dim, the flat index in
/// the whole tensor. Real, Half and BFloat16 dtypes; contiguous; a reduction
/// over zero elements fails the call (see arg_extreme_out).
Tensor& argmin_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                   Tensor& out) {
  return k::arg_extreme_out<kName, false>(ctx, self, dim, keepdim, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
