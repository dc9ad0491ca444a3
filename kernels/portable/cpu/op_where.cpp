// aten::where.self_out: out = condition ? self : other, with broadcasting.
#include "util/binary_op_util.h"
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
/// The switch name (dtype-selective builds key on it).
constexpr char kName[] = "where.self_out";
}  // namespace

/// out = condition ? self : other elementwise, broadcasting all three.
/// condition is Bool (or Byte, read as nonzero); self and other any real,
/// Bool, Half or BFloat16 dtypes with ATen promotion; out is resized to the
/// broadcast shape and must hold the promoted dtype. Equal dtypes select raw
/// elements by width (no per-dtype code); mixed dtypes convert per element.
Tensor& where_out(KernelRuntimeContext& ctx, const Tensor& condition, const Tensor& self, const Tensor& other,
                  Tensor& out) {
  const ScalarType ct = condition.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, ct == ScalarType::Bool || ct == ScalarType::Byte, InvalidArgument, out,
                      "where.self_out: condition must be Bool");
  ET_KERNEL_CHECK_MSG(ctx,
                      k::is_realhbbf16(self.scalar_type()) && k::is_realhbbf16(other.scalar_type()) &&
                          k::is_realhbbf16(out.scalar_type()),
                      InvalidArgument, out, "where.self_out: unsupported dtype");
  const ScalarType result = k::result_type(self, other);
  ET_KERNEL_CHECK(ctx, k::can_cast(result, out.scalar_type()), InvalidArgument, out);
  k::Shape shape;
  ET_KERNEL_CHECK_MSG(ctx, k::broadcast_shape(condition, self, other, &shape), InvalidArgument, out,
                      "where.self_out: shapes do not broadcast");
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const Tensor* tensors[4] = {&condition, &self, &other, &out};
  ET_KERNEL_CHECK(ctx, k::elementwise_layout_ok(tensors, 4), InvalidArgument, out);

  const uint8_t* c = condition.const_data_ptr<uint8_t>();
  if (self.scalar_type() == out.scalar_type() && other.scalar_type() == out.scalar_type()) {
    const bool handled = k::with_element_word(out.scalar_type(), [&](auto word) {
      using W = decltype(word);
      const W* a = self.const_data_ptr<W>();
      const W* b = other.const_data_ptr<W>();
      W* o = out.mutable_data_ptr<W>();
      k::for_each_ternary(condition, self, other, out,
                     [&](int64_t i, int64_t ic, int64_t ia, int64_t ib) { o[i] = c[ic] ? a[ia] : b[ib]; });
    });
    ET_KERNEL_CHECK(ctx, handled, InvalidArgument, out);
    return out;
  }
  // The condition is read as bool; only self, other and out (tensors 1 to 3) may mix.
  k::with_compute_type<kName, 1>(ctx, result, [&](auto tag) {
    using CT = decltype(tag);
    const k::LoadFn<CT> la = k::loader_for<CT, kName>(self.scalar_type(), ctx);
    const k::LoadFn<CT> lb = k::loader_for<CT, kName>(other.scalar_type(), ctx);
    const k::StoreFn<CT> st = k::storer_for<CT, kName>(out.scalar_type(), ctx);
    if (la == nullptr || lb == nullptr || st == nullptr) return;  // ctx already failed
    const void* a = self.const_data_ptr();
    const void* b = other.const_data_ptr();
    void* o = out.mutable_data_ptr();
    k::for_each_ternary(condition, self, other, out, [&](int64_t i, int64_t ic, int64_t ia, int64_t ib) {
      st(o, i, c[ic] ? la(a, ia) : lb(b, ib));
    });
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
