// aten::zeros.out and ones.out: out = a tensor of a given shape filled with
// 0, or with 1.
#include "util/copy_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kZerosName[] = "zeros.out";  // the switch names
constexpr char kOnesName[] = "ones.out";
}  // namespace

/// out = `size`-shaped zeros of out's dtype (any real, Bool, Half or
/// BFloat16 dtype); out is resized.
Tensor& zeros_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  if (!k::resize_to_size_list<kZerosName>(ctx, size, out)) return out;
  k::fill_scalar<kZerosName>(ctx, out, Scalar(static_cast<int64_t>(0)));
  return out;
}

/// out = `size`-shaped ones of out's dtype (Bool: true), as zeros_out.
Tensor& ones_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  if (!k::resize_to_size_list<kOnesName>(ctx, size, out)) return out;
  k::fill_scalar<kOnesName>(ctx, out, Scalar(static_cast<int64_t>(1)));
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
