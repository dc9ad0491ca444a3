// dim_order_ops::_to_dim_order_copy.out: copy with a dtype conversion and/or a
// change of dim order (memory layout).
#include "util/complex_util.h"
#include "util/convert_util.h"
#include "util/copy_util.h"
#include "util/elementwise_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

// The switch name: the operator without its namespace, as gen-op-variants
// spells it for dtype-selective builds.
constexpr char kName[] = "_to_dim_order_copy.out";

using Complex = ::executorch::aten::complex<double>;

bool dtype_ok(ScalarType t) { return k::is_realhbbf16(t) || k::is_complex(t); }

/// out = store(load(self)) element by element, walking out's memory in order
/// while following self's layout: `load(offset)` reads self's element at an
/// offset, `store(i, value)` writes out's i-th element in memory.
template <typename Load, typename Store>
void convert_in_out_order(const Tensor& self, const Tensor& out, const Load& load, const Store& store) {
  const auto order = out.dim_order();
  int64_t self_strides[k::kMaxDim];
  k::strides_of(self, self_strides);
  int64_t index[k::kMaxDim] = {0};
  int64_t offset = 0;
  const int64_t n = self.numel();
  for (int64_t i = 0; i < n; ++i) {
    store(i, load(offset));
    for (size_t j = order.size(); j-- > 0;) {
      const size_t d = order[j];
      offset += self_strides[d];
      if (++index[d] < self.sizes()[d]) break;
      offset -= self_strides[d] * self.sizes()[d];
      index[d] = 0;
    }
  }
}

/// A conversion between real dtypes and a change of layout: through int64_t
/// when both sides are integral (exact), through double otherwise.
void convert_real(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const auto convert = [&](auto tag) {
    using CT = decltype(tag);
    const k::LoadFn<CT> load = k::loader_for<CT, kName>(self.scalar_type(), ctx);
    const k::StoreFn<CT> store = k::storer_for<CT, kName>(out.scalar_type(), ctx);
    if (load == nullptr || store == nullptr) return;
    const void* src = self.const_data_ptr();
    void* dst = out.mutable_data_ptr();
    convert_in_out_order(
        self, out, [&](int64_t at) { return load(src, at); }, [&](int64_t i, CT v) { store(dst, i, v); });
  };
  if (!k::is_floating(self.scalar_type()) && !k::is_floating(out.scalar_type())) {
    convert(int64_t{});
  } else {
    convert(double{});
  }
}

/// A conversion with a complex dtype on either side, through complex<double>:
/// a real value gets imaginary part 0; a complex one into a real dtype keeps
/// its real part (ATen's to() does so, with a warning).
void convert_complex(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  const k::LoadFn<Complex> load_complex = k::is_complex(in_type) ? k::complex_loader_for<kName>(in_type, ctx) : nullptr;
  const k::LoadFn<double> load_real = k::is_complex(in_type) ? nullptr : k::loader_for<double, kName>(in_type, ctx);
  const k::StoreFn<Complex> store_complex =
      k::is_complex(out_type) ? k::complex_storer_for<kName>(out_type, ctx) : nullptr;
  const k::StoreFn<double> store_real = k::is_complex(out_type) ? nullptr : k::storer_for<double, kName>(out_type, ctx);
  if ((load_complex == nullptr && load_real == nullptr) || (store_complex == nullptr && store_real == nullptr)) {
    return;  // ctx already failed
  }
  const void* src = self.const_data_ptr();
  void* dst = out.mutable_data_ptr();
  convert_in_out_order(
      self, out,
      [&](int64_t at) { return load_complex != nullptr ? load_complex(src, at) : Complex(load_real(src, at), 0.0); },
      [&](int64_t i, Complex v) { store_complex != nullptr ? store_complex(dst, i, v) : store_real(dst, i, v.real()); });
}

}  // namespace

/// out = self converted to out's dtype, laid out in `dim_order` (self's dim
/// order when none is given; out must already carry that order). Any of the
/// real, Bool, Half, BFloat16 and complex dtypes on either side; out is
/// resized to self's shape. Only blocking copies (non_blocking false), as in
/// ExecuTorch. Same dtype: a copy by element width (complex ones typed);
/// same layout: one typed conversion loop per (input, output) real dtype
/// pair, from nested ET_SWITCHes that a dtype-selective build trims; both
/// differing, or a complex dtype involved: a per-element conversion.
Tensor& _to_dim_order_copy_out(KernelRuntimeContext& ctx, const Tensor& self, bool non_blocking,
                              std::optional<ArrayRef<int64_t>> dim_order, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, !non_blocking, InvalidArgument, out, "%s: only blocking copies are supported", kName);
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, dtype_ok(in_type) && dtype_ok(out_type), InvalidArgument, out, "%s: unsupported dtype",
                      kName);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::valid_dim_order(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, k::dim_order_matches(self, dim_order, out), InvalidArgument, out,
                      "%s: out does not have the requested dim order", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  const int64_t n = self.numel();
  if (n == 0) return out;
  if (in_type == out_type) {
    k::CopyPlan plan;
    k::plan_in_out_order(self, out, &plan);
    if (k::is_complex(in_type)) {
      k::complex_move_walk<kName>(ctx, in_type, self.const_data_ptr(), 0, out.mutable_data_ptr(), 0, plan);
    } else {
      k::strided_move(self, out, plan);
    }
  } else if (k::is_complex(in_type) || k::is_complex(out_type)) {
    convert_complex(ctx, self, out);
  } else if (k::same_dim_order(self, out)) {
    k::convert_in_order<kName>(ctx, self, out);
  } else {
    convert_real(ctx, self, out);
  }
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
