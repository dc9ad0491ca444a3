// aten::index_put.out: out = self with out[indices] = values (or += values),
// and aten::index_put_: the same in place.
#include "util/advanced_index.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kName[] = "index_put.out";  // the switch name

/// values' stride along each dim of the indexing result `shape` (0 where
/// values repeats, broadcast); false if values does not broadcast to it.
bool broadcast_strides(const Tensor& values, const k::Shape& shape, int64_t* strides) {
  if (static_cast<size_t>(values.dim()) > shape.ndim) return false;
  int64_t own[k::kMaxDim];
  k::contiguous_strides_of(values, own);
  const size_t lead = shape.ndim - static_cast<size_t>(values.dim());
  for (size_t d = 0; d < shape.ndim; ++d) {
    const int64_t have = d < lead ? 1 : values.sizes()[d - lead];
    if (have != shape.sizes[d] && have != 1) return false;
    strides[d] = have == 1 ? 0 : own[d - lead];
  }
  return true;
}

/// Where element `flat` of the result (of `shape`) reads values.
int64_t values_offset(int64_t flat, const k::Shape& shape, const int64_t* strides) {
  int64_t offset = 0;
  for (size_t d = shape.ndim; d-- > 0;) {
    offset += (flat % shape.sizes[d]) * strides[d];
    flat /= shape.sizes[d];
  }
  return offset;
}

/// x + y, wrapping for integers and an or for Bool, as ATen sums them.
template <typename T>
T accumulated(T x, T y) {
  if constexpr (std::is_same<T, bool>::value) {
    return x || y;
  } else {
    return k::wrapping_add(x, y);
  }
}

}  // namespace

/// out = self, then out[indices] = values, indexed as index.Tensor_out indexes
/// (util/advanced_index.h: Long, Int or mask indices, None, negative indices);
/// values broadcast to the indexing result's shape. With accumulate, values
/// are added instead (a position indexed twice gets both); without, the last
/// write wins. Real, Bool, Half or BFloat16, self, values and out alike;
/// contiguous; out is resized to self's shape. An index out of range fails
/// the call (out then holds a partial write).
Tensor& index_put_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                      const Tensor& values, bool accumulate, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && self.scalar_type() == values.scalar_type(),
                      InvalidArgument, out, "%s: values and out must have self's dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_contiguous(self) && k::is_contiguous(values) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: self, values and out must be contiguous", kName);
  k::IndexPlan p;
  k::Shape shape;
  if (!k::plan_indexing(ctx, kName, self, indices, &p, &shape)) return out;
  int64_t strides[k::kMaxDim];
  ET_KERNEL_CHECK_MSG(ctx, broadcast_strides(values, shape, strides), InvalidArgument, out,
                      "%s: values do not broadcast to the indexed shape", kName);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const int64_t block = k::size_product(self.sizes(), p.tail_from, self.dim());
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    const CTYPE* from = values.const_data_ptr<CTYPE>();
    CTYPE* dst = out.mutable_data_ptr<CTYPE>();
    if (dst != in) std::memmove(dst, in, static_cast<size_t>(self.numel()) * sizeof(CTYPE));
    k::for_each_block(ctx, kName, self, p, [&](int64_t o, int64_t offset) {
      for (int64_t e = 0; e < block; ++e) {
        const CTYPE v = from[values_offset(o * block + e, shape, strides)];
        dst[offset + e] = accumulate ? accumulated(dst[offset + e], v) : v;
      }
    });
  });
  return out;
}

/// self[indices] = values (or += values) in place: index_put_out with self as
/// out, in the same dtypes and with the same checks.
Tensor& index_put_(KernelRuntimeContext& ctx, Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                   const Tensor& values, bool accumulate) {
  return index_put_out(ctx, self, indices, values, accumulate, self);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
