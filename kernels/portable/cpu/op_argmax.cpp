// aten::argmax.out: the index of the maximum along a dim (or of the whole
// tensor, flattened).
#include "util/math_util.h"
#include "util/reduce_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "argmax.out";  // the switch name
}  // namespace

/// out (Long) = the index along `dim` of the largest element (the first one
/// on ties; the first NaN if any, as in ATen); without dim, the flat index in
/// the whole tensor. Real, Half and BFloat16 dtypes; contiguous; a reduction over zero elements
/// fails the call.
Tensor& argmax_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                   Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Long, InvalidArgument, out, "%s: out must be Long",
                      kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::Shape shape;
  k::DimView view;
  if (dim.has_value()) {
    int64_t d = 0;
    ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(*dim, self.dim(), &d), InvalidArgument, out,
                        "%s: dim %" PRId64 " out of range", kName, *dim);
    view = k::view_around(self, d);
    for (ssize_t j = 0; j < self.dim(); ++j) {
      if (j != d) shape.push(self.sizes()[j]);
      else if (keepdim) shape.push(1);
    }
  } else {
    view.n = self.numel();
    for (ssize_t j = 0; keepdim && j < self.dim(); ++j) shape.push(1);
  }
  ET_KERNEL_CHECK_MSG(ctx, view.n > 0 || shape.numel() == 0, InvalidArgument, out,
                      "%s: cannot reduce over zero elements", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  int64_t* result = out.mutable_data_ptr<int64_t>();
  ET_SWITCH_REALHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    for (int64_t o = 0; o < view.outer; ++o) {
      for (int64_t i = 0; i < view.inner; ++i) {
        const CTYPE* x = in + o * view.n * view.inner + i;
        int64_t best = 0;
        for (int64_t j = 1; j < view.n && !k::is_nan(x[best * view.inner]); ++j) {
          const CTYPE v = x[j * view.inner];
          if (k::is_nan(v) || v > x[best * view.inner]) best = j;
        }
        result[o * view.inner + i] = best;
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
