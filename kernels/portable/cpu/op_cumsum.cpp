// aten::cumsum.out: running sums along a dim.
#include "util/elementwise_util.h"
#include "util/reduce_util.h"

#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "cumsum.out";  // the switch name
}  // namespace

/// out[..., i, ...] = sum of self[..., :i + 1, ...] along `dim`, computed in
/// out's dtype: `dtype` when given, else self's, or Long for integral and
/// Bool self (ATen's promotion). Real, Bool, Half and BFloat16 inputs (the
/// last two summed in float); integers wrap; contiguous; out is resized to
/// self's shape.
Tensor& cumsum_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype,
                   Tensor& out) {
  const ScalarType in_type = self.scalar_type();
  const ScalarType expected =
      dtype.has_value() ? *dtype : (k::is_floating(in_type) ? in_type : ScalarType::Long);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == expected, InvalidArgument, out, "%s: out must be %s", kName,
                      ::executorch::runtime::toString(expected));
  int64_t d = 0;
  ET_KERNEL_CHECK_MSG(ctx, k::normalize_dim(dim, self.dim(), &d), InvalidArgument, out,
                      "%s: dim %" PRId64 " out of range", kName, dim);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (self.numel() == 0) return out;
  const k::DimView v = k::view_around(self, d);
  if (in_type == out.scalar_type() && (in_type == ScalarType::Half || in_type == ScalarType::BFloat16)) {
    // Reduced precision: each running sum kept in float, every prefix rounded once.
    ET_SWITCH_TWO_TYPES(Half, BFloat16, in_type, ctx, kName, CTYPE, [&]() {
      const CTYPE* x = self.const_data_ptr<CTYPE>();
      CTYPE* y = out.mutable_data_ptr<CTYPE>();
      for (int64_t o = 0; o < v.outer; ++o) {
        for (int64_t i = 0; i < v.inner; ++i) {
          float running = 0;
          for (int64_t j = 0; j < v.n; ++j) {
            const int64_t at = (o * v.n + j) * v.inner + i;
            running += static_cast<float>(x[at]);
            y[at] = static_cast<CTYPE>(running);
          }
        }
      }
    });
    return out;
  }
  if (in_type == out.scalar_type()) {
    ET_SWITCH_REAL_TYPES(in_type, ctx, kName, CTYPE, [&]() {
      const CTYPE* x = self.const_data_ptr<CTYPE>();
      CTYPE* y = out.mutable_data_ptr<CTYPE>();
      for (int64_t o = 0; o < v.outer; ++o) {
        const int64_t base = o * v.n * v.inner;
        for (int64_t i = 0; i < v.inner; ++i) y[base + i] = x[base + i];
        for (int64_t j = 1; j < v.n; ++j) {  // row j = row j - 1 + x's row j: contiguous rows
          const int64_t row = base + j * v.inner;
          for (int64_t i = 0; i < v.inner; ++i) y[row + i] = k::wrapping_add(y[row - v.inner + i], x[row + i]);
        }
      }
    });
    return out;
  }
  // Another output dtype: per element through double or int64_t.
  k::with_compute_type<kName>(ctx, out.scalar_type(), [&](auto tag) {
    using CT = typename std::conditional<std::is_same<decltype(tag), bool>::value, int64_t, decltype(tag)>::type;
    const k::LoadFn<CT> load = k::loader_for<CT, kName>(in_type, ctx);
    const k::StoreFn<CT> store = k::storer_for<CT, kName>(out.scalar_type(), ctx);
    if (load == nullptr || store == nullptr) return;
    const void* x = self.const_data_ptr();
    void* y = out.mutable_data_ptr();
    for (int64_t o = 0; o < v.outer; ++o) {
      for (int64_t i = 0; i < v.inner; ++i) {
        CT running = 0;
        for (int64_t j = 0; j < v.n; ++j) {
          const int64_t at = (o * v.n + j) * v.inner + i;
          running = k::wrapping_add(running, load(x, at));
          store(y, at, running);
        }
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
