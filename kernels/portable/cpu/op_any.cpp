// aten::any.out, any.dims_out and any.all_out: whether any element is
// non-zero, along dims or over the whole tensor.
#include "util/copy_util.h"
#include "util/reduce_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kDimName[] = "any.out";  // the switch names, one per overload
constexpr char kDimsName[] = "any.dims_out";
constexpr char kAllName[] = "any.all_out";

/// out[o] = whether any element of self reducing into o is non-zero, for
/// tensors in any (matching) dim order: self is walked in logical order and
/// each element ORed into out's bytes `result` at out's strides, 0 along the
/// `reduced` dims (out has self's rank: keepdim, or an empty dim list).
template <typename In>
void any_strided(const Tensor& self, const bool* reduced, const Tensor& out, uint8_t* result) {
  const size_t rank = static_cast<size_t>(self.dim());
  int64_t in_strides[k::kMaxDim];
  int64_t out_strides[k::kMaxDim];
  k::strides_of(self, in_strides);
  k::strides_of(out, out_strides);
  for (size_t d = 0; d < rank; ++d) out_strides[d] = reduced[d] ? 0 : out_strides[d];
  const In* in = self.const_data_ptr<In>();
  for (ssize_t o = 0; o < out.numel(); ++o) result[o] = 0;
  int64_t at[k::kMaxDim] = {0};
  int64_t from = 0;
  int64_t to = 0;
  for (ssize_t i = 0; i < self.numel(); ++i) {
    result[to] = static_cast<uint8_t>(result[to] || in[from] != static_cast<In>(0));
    for (size_t d = rank; d-- > 0;) {
      from += in_strides[d];
      to += out_strides[d];
      if (++at[d] < self.sizes()[d]) break;
      from -= in_strides[d] * self.sizes()[d];
      to -= out_strides[d] * self.sizes()[d];
      at[d] = 0;
    }
  }
}

/// Marks the dims of self that `dims` reduces (validated by make_reduce_plan):
/// none listed reduces all, an empty list none.
void mark_reduced(const Tensor& self, const std::optional<ArrayRef<int64_t>>& dims, bool* reduced) {
  for (ssize_t d = 0; d < self.dim(); ++d) reduced[d] = !dims.has_value();
  if (!dims.has_value()) return;
  for (const int64_t dim : *dims) {
    int64_t d = 0;
    if (self.dim() > 0 && k::normalize_dim(dim, self.dim(), &d)) reduced[d] = true;
  }
}

/// The fold of any: acc, or x non-zero.
template <typename In>
struct AnyFold {
  template <typename Out>
  Out operator()(Out acc, In x) const {
    return static_cast<Out>(acc || x != static_cast<In>(0));
  }
};

/// any over self of C type In into out (Bool or Byte): the strided walk for
/// other dim orders or an empty dim list (`walk`), else the plan. One copy
/// per dtype, shared by the three overloads.
template <typename In>
ET_NOINLINE void any_of(const Tensor& self, const k::ReducePlan& plan, const bool* reduced, bool walk,
                        const Tensor& out) {
  // A Bool out is written as bytes too: true and false are the bytes 1 and 0.
  uint8_t* result = static_cast<uint8_t*>(out.mutable_data_ptr());
  if (walk) {
    any_strided<In>(self, reduced, out, result);
  } else {
    k::reduce_fold(plan, self.const_data_ptr<In>(), result, uint8_t{0}, AnyFold<In>{});
  }
}

/// Reduces self over `dims` (none: all; an empty list: none, as ATen's
/// any.dims) into out (Bool, or Byte as ATen gives for a Byte self) with
/// logical or; any real, Bool, Half or BFloat16 self. Contiguous tensors take
/// the reduction plan; other dim orders (out's matching self's) the strided
/// walk.
template <const char* Name>
Tensor& any_over(KernelRuntimeContext& ctx, const Tensor& self, const std::optional<ArrayRef<int64_t>>& dims,
                 bool keepdim, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, k::is_realhbbf16(self.scalar_type()), InvalidArgument, out, "%s: unsupported dtype",
                      Name);
  ET_KERNEL_CHECK_MSG(ctx, out.scalar_type() == ScalarType::Bool || out.scalar_type() == ScalarType::Byte,
                      InvalidArgument, out, "%s: out must be Bool or Byte", Name);
  const bool contiguous = k::is_contiguous(self) && k::is_contiguous(out);
  ET_KERNEL_CHECK_MSG(ctx, contiguous || (k::valid_dim_order(self) && k::same_dim_order(self, out)),
                      InvalidArgument, out, "%s: self and out must share one dim order", Name);
  k::ReducePlan plan;
  ET_KERNEL_CHECK_MSG(ctx, k::make_reduce_plan(self, dims, keepdim, &plan), InvalidArgument, out,
                      "%s: invalid dim list", Name);
  const bool none = dims.has_value() && dims->size() == 0;
  ET_KERNEL_CHECK(ctx, k::resize_to(out, none ? k::shape_of(self) : plan.out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, contiguous || out.dim() == self.dim(), InvalidArgument, out,
                      "%s: a tensor that is not contiguous needs keepdim", Name);
  if (out.numel() == 0) return out;
  bool reduced[k::kMaxDim];
  mark_reduced(self, dims, reduced);
  ET_SWITCH_REALHBBF16_TYPES(self.scalar_type(), ctx, Name, CTYPE,
                             [&]() { any_of<CTYPE>(self, plan, reduced, !contiguous || none, out); });
  return out;
}

}  // namespace

/// out = whether any element along `dim` is non-zero (keepdim keeps it as
/// size 1).
Tensor& any_out(KernelRuntimeContext& ctx, const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  const int64_t dims[1] = {dim};
  return any_over<kDimName>(ctx, self, ArrayRef<int64_t>(dims, 1), keepdim, out);
}

/// out = whether any element along the listed dims is non-zero (none: all
/// dims; an empty list: no dim, out[i] = self[i] != 0).
Tensor& any_dims_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<ArrayRef<int64_t>> dim,
                     bool keepdim, Tensor& out) {
  return any_over<kDimsName>(ctx, self, dim, keepdim, out);
}

/// out (0-dim) = whether any element of self is non-zero.
Tensor& any_all_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return any_over<kAllName>(ctx, self, std::nullopt, false, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
