// aten::empty.out: out = a tensor of a given shape, its contents unspecified.
#include "util/copy_util.h"

#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::MemoryFormat;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "empty.out";  // the name in log lines
}  // namespace

/// out resized to `size`, of any dtype; its elements are left as they are
/// (empty's contract: unspecified). memory_format may be absent, Preserve or
/// Contiguous (out's own layout is kept).
Tensor& empty_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, std::optional<MemoryFormat> memory_format,
                  Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx,
                      !memory_format.has_value() || *memory_format == MemoryFormat::Preserve ||
                          *memory_format == MemoryFormat::Contiguous,
                      InvalidArgument, out, "%s: unsupported memory format", kName);
  k::resize_to_size_list<kName>(ctx, size, out);
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
