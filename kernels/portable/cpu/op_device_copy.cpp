// et_copy::_h2d_copy.out and et_copy::_d2h_copy.out: the host-to-device and
// device-to-host transfers ExecuTorch's device pass inserts at the edges of a
// delegate whose memory is planned on an accelerator.
//
// etsb's portable library is a CPU library: it registers no device
// allocator, so both tensors live in host memory and either transfer is a
// byte copy (what the ops mean when traced, and what ExecuTorch's own kernels
// reduce to when the allocator's memory is the host's). Programs that plan
// memory on a real device need that device's kernels, not these.
#include "util/copy_util.h"

#include <cstring>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kH2d[] = "_h2d_copy.out";
constexpr char kD2h[] = "_d2h_copy.out";

/// out = self byte for byte: same dtype and dim order, out resized to self's
/// shape. `name` names the operator in log lines.
Tensor& host_copy(KernelRuntimeContext& ctx, const char* name, const Tensor& self, Tensor& out) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", name);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::valid_dim_order(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, k::same_dim_order(self, out), InvalidArgument, out,
                      "%s: out must have self's dim order", name);
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out,
                      "%s: cannot resize out to self's shape", name);
  if (self.nbytes() > 0) {
    std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
  }
  return out;
}

}  // namespace

/// Host to device: out = a copy of self (any dtype; see the file comment).
Tensor& _h2d_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return host_copy(ctx, kH2d, self, out);
}

/// Device to host: out = a copy of self (any dtype; see the file comment).
Tensor& _d2h_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return host_copy(ctx, kD2h, self, out);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
