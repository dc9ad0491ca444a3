// aten::rand.out and aten::randn.out: tensors of uniform and standard normal
// random values, from the library's deterministic stream (util/random_util.h
// states the contract).
#include "util/copy_util.h"
#include "util/random_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kRand[] = "rand.out";    // the switch names
constexpr char kRandn[] = "randn.out";
}  // namespace

/// out resized to `size` and filled with uniform values of [0, 1), each exact
/// in out's floating dtype (Half and BFloat16 included).
Tensor& rand_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  if (!k::resize_to_size_list<kRand>(ctx, size, out)) return out;
  ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kRand, CTYPE, [&]() {
    CTYPE* data = out.mutable_data_ptr<CTYPE>();
    const uint64_t first = k::reserve_draws(static_cast<uint64_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) data[i] = k::uniform_draw<CTYPE>(first + i);
  });
  return out;
}

/// out resized to `size` and filled with standard normal values (mean 0,
/// variance 1) in out's floating dtype.
Tensor& randn_out(KernelRuntimeContext& ctx, ArrayRef<int64_t> size, Tensor& out) {
  if (!k::resize_to_size_list<kRandn>(ctx, size, out)) return out;
  ET_SWITCH_FLOATHBF16_TYPES(out.scalar_type(), ctx, kRandn, CTYPE, [&]() {
    CTYPE* data = out.mutable_data_ptr<CTYPE>();
    const uint64_t first = k::reserve_draws(static_cast<uint64_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) data[i] = static_cast<CTYPE>(k::normal_draw(first + i));
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
