// aten::gt.Scalar_out: out = self > other, with a Scalar `other`.
#include "util/elementwise_util.h"

#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "gt.Scalar_out";
}  // namespace

namespace {

/// Compares self's elements (C type T) with the scalar in the type ATen
/// would: T itself for floating tensors (x > 0.1f, not x > 0.1), double for an
/// integral tensor against a floating scalar, int64_t otherwise (so that an
/// int8 tensor against 300 does not wrap the scalar).
template <typename T, typename Store>
void compare_gt(const Tensor& self, const Scalar& other, const Store& store) {
  const T* in = self.const_data_ptr<T>();
  const int64_t n = self.numel();
  if constexpr (std::is_floating_point<T>::value) {
    const T s = k::scalar_to<T>(other);
    store(in, n, [s](T x) { return x > s; });
  } else if (other.isFloatingPoint()) {
    const double s = k::scalar_to<double>(other);
    store(in, n, [s](T x) { return static_cast<double>(x) > s; });
  } else {
    const int64_t s = k::scalar_to<int64_t>(other);
    store(in, n, [s](T x) { return static_cast<int64_t>(x) > s; });
  }
}

}  // namespace

/// out = self > other elementwise, for real and Bool self. out is resized to
/// self's shape and has self's dim order; a Bool out takes the typed fast
/// path, any other real out gets 1 / 0 in its own dtype.
Tensor& gt_scalar_out(KernelRuntimeContext& ctx, const Tensor& self, const Scalar& other, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_real_or_bool(self.scalar_type()) && k::is_realhbbf16(out.scalar_type()),
                      InvalidArgument, out, "gt.Scalar_out: unsupported dtype");
  ET_KERNEL_CHECK(ctx, k::same_dim_order(self, out), InvalidArgument, out);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (out.scalar_type() == ScalarType::Bool) {
    bool* result = out.mutable_data_ptr<bool>();
    ET_SWITCH_REALB_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
      compare_gt<CTYPE>(self, other, [result](const CTYPE* in, int64_t n, const auto& fn) {
        k::map_unary(in, result, n, fn);
      });
    });
    return out;
  }
  const k::StoreFn<bool> store = k::storer_for<bool, kName>(out.scalar_type(), ctx);
  if (store == nullptr) return out;  // ctx already failed
  void* result = out.mutable_data_ptr();
  ET_SWITCH_REALB_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    compare_gt<CTYPE>(self, other, [&](const CTYPE* in, int64_t n, const auto& fn) {
      for (int64_t i = 0; i < n; ++i) store(result, i, fn(in[i]));
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
