// aten::index.Tensor_out: advanced indexing, out = self[indices].
#include "util/advanced_index.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "index.Tensor_out";
}  // namespace

/// out = self[indices], NumPy's advanced indexing: indices[i] (Long or Int;
/// None leaves dim i whole) index self's dim i; a boolean mask (Bool or
/// Byte, of at least one dim) indexes as many dims as it has, matching them
/// in size, by the coordinates of its true elements. The index tensors
/// broadcast together to a shape B (a mask counting as 1-D), placed in the
/// result as k::plan_result says. Negative indices count from the end; one out
/// of range fails the call. Any self dtype, copied by width; contiguous; out
/// is resized.
Tensor& index_Tensor_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                         Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && k::is_contiguous(self) && k::is_contiguous(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype", kName);
  k::IndexPlan p;
  k::Shape shape;
  if (!k::plan_indexing(ctx, kName, self, indices, &p, &shape)) return out;
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const size_t width = self.element_size();
  const size_t block = static_cast<size_t>(k::size_product(self.sizes(), p.tail_from, self.dim())) * width;
  const char* in = static_cast<const char*>(self.const_data_ptr());
  char* dst = static_cast<char*>(out.mutable_data_ptr());
  k::for_each_block(ctx, kName, self, p, [&](int64_t o, int64_t offset) {
    if (block != 0) std::memmove(dst + o * block, in + offset * width, block);
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
