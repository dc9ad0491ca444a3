// aten::topk.values: the k largest (or smallest) elements along a dim and
// their positions.
#include "util/copy_util.h"
#include "util/math_util.h"

#include <tuple>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "topk.values";  // the switch name

/// Whether a ranks before b: larger (or smaller) first, NaN above every
/// number as in ATen's ordering.
template <typename T>
bool ranks_before(T a, T b, bool largest) {
  const bool a_nan = k::is_nan(a), b_nan = k::is_nan(b);
  if (a_nan || b_nan) return largest ? (a_nan && !b_nan) : (b_nan && !a_nan);
  return largest ? a > b : a < b;
}

/// Top k of one slice of n elements read with `stride`, kept sorted in the
/// output slices themselves (values and indices, written with `stride`): each
/// element enters by insertion after the equal ones already kept, so ties
/// keep the lower index first. O(n k) time, no scratch memory.
template <typename CTYPE>
void top_k_slice(const CTYPE* in, int64_t n, int64_t stride, int64_t top, bool largest, CTYPE* values,
                 int64_t* indices) {
  using CT = std::conditional_t<std::is_arithmetic_v<CTYPE>, CTYPE, float>;  // Half, BFloat16: float
  int64_t kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    const CTYPE v = in[i * stride];
    const CT cv = static_cast<CT>(v);
    int64_t at = kept;  // where v goes: after every kept element that ranks before it or ties
    while (at > 0 && ranks_before(cv, static_cast<CT>(values[(at - 1) * stride]), largest)) --at;
    if (at >= top) continue;
    for (int64_t j = (kept < top ? kept : top - 1); j > at; --j) {
      values[j * stride] = values[(j - 1) * stride];
      indices[j * stride] = indices[(j - 1) * stride];
    }
    values[at * stride] = v;
    indices[at * stride] = i;
    if (kept < top) ++kept;
  }
}

}  // namespace

/// values, indices = the `top` (ATen's k) elements of self ranking first along `dim`
/// (largest or smallest; NaN ranks above every number), in rank order with
/// ties by position (`sorted` = false is served the same order, one ATen
/// allows). self any real, Half or BFloat16 dtype, values the same, indices
/// Long; top in [0, size of dim]; both resized to self's shape with top at dim.
std::tuple<Tensor&, Tensor&> topk_values(KernelRuntimeContext& ctx, const Tensor& self, int64_t top, int64_t dim,
                                         bool largest, bool sorted, Tensor& values, Tensor& indices) {
  (void)sorted;
  std::tuple<Tensor&, Tensor&> result(values, indices);
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, result,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  const int64_t size = self.dim() == 0 ? 1 : self.sizes()[d];
  ET_KERNEL_CHECK_MSG(ctx, top >= 0 && top <= size, InvalidArgument, result,
                      "%s: k = %" PRId64 " out of range for a dim of size %" PRId64, kName, top, size);
  ET_KERNEL_CHECK_MSG(ctx,
                      ::executorch::runtime::isRealHBF16Type(self.scalar_type()) &&
                          values.scalar_type() == self.scalar_type() && indices.scalar_type() == ScalarType::Long,
                      InvalidArgument, result, "%s: values must have self's (real, Half or BFloat16) dtype, "
                      "indices Long", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(values) && k::is_contiguous(indices),
                  InvalidArgument, result);
  k::Shape shape = k::shape_of(self);
  if (self.dim() > 0) shape.sizes[d] = static_cast<SizesType>(top);
  ET_KERNEL_CHECK(ctx, k::resize_to(values, shape) && k::resize_to(indices, shape), InvalidArgument, result);
  if (top == 0 || self.numel() == 0) return result;
  const int64_t inner = self.dim() == 0 ? 1 : k::size_product(self.sizes(), static_cast<size_t>(d) + 1, self.dim());
  const int64_t outer = self.numel() / (size * inner);
  ET_SWITCH_REALHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* v = values.mutable_data_ptr<CTYPE>();
    int64_t* ix = indices.mutable_data_ptr<int64_t>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        top_k_slice(in + o * size * inner + i, size, inner, top, largest, v + o * top * inner + i,
                    ix + o * top * inner + i);
      }
    }
  });
  return result;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
