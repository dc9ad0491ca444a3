// aten::glu.out: the gated linear unit, a * sigmoid(b) for the two halves a
// and b of self along a dim.
#include "util/reduce_util.h"

#include <cmath>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "glu.out";  // the switch name
}  // namespace

/// out = a * sigmoid(b), where a and b are the first and second halves of
/// self along `dim` (which must have an even size; out has half of it).
/// Floating dtypes (self and out may differ), computed in float (double for
/// Double); contiguous.
Tensor& glu_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && k::is_floating(out.scalar_type()), InvalidArgument,
                      out, "%s: self and out must be floating", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out,
                      "%s: self and out must be contiguous", kName);
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, self.dim() > 0 && k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range (self must have a dim)", kName, dim);
  const k::DimView view = k::view_around(self, d);
  ET_KERNEL_CHECK_MSG(ctx, view.n % 2 == 0, InvalidArgument, out, "%s: dim %" PRId64 " has an odd size", kName, d);
  k::Shape shape = k::shape_of(self);
  shape.sizes[d] /= 2;
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, shape), InvalidArgument, out, "%s: cannot resize out", kName);
  const int64_t half = view.n / 2;
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kName, IN, [&]() {
    ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kName, OUT, [&]() {
      using CT = k::float_compute_t<IN>;
      const IN* in = self.const_data_ptr<IN>();
      OUT* result = out.mutable_data_ptr<OUT>();
      for (int64_t o = 0; o < view.outer; ++o) {
        const IN* first = in + o * view.n * view.inner;
        const IN* second = first + half * view.inner;
        OUT* row = result + o * half * view.inner;
        for (int64_t j = 0; j < half * view.inner; ++j) {
          const CT gate = CT(1) / (CT(1) + std::exp(-static_cast<CT>(second[j])));
          row[j] = static_cast<OUT>(static_cast<CT>(first[j]) * gate);
        }
      }
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
