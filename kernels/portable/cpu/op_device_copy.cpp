// et_copy::_h2d_copy.out and et_copy::_d2h_copy.out: the host-to-device and
// device-to-host transfers ExecuTorch's device pass inserts at the edges of a
// delegate whose memory is planned on an accelerator.
//
// The device side (out for _h2d_copy, self for _d2h_copy) says where the
// bytes go: on a device (its TensorImpl's device type, as the runtime plans
// it), the copy goes through the DeviceAllocator registered for that device
// type (NotFound when none is), the other side having to be on the CPU, as
// ExecuTorch's contract says. A program whose tensors are all on the host
// (what tracing the ops on a CPU gives) gets a plain byte copy, where
// ExecuTorch's kernel refuses: the transfer's meaning when there is no device.
#include "util/copy_util.h"

#include <executorch/runtime/core/device_allocator.h>

#include <cstring>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

constexpr char kH2d[] = "_h2d_copy.out";
constexpr char kD2h[] = "_d2h_copy.out";

using ::executorch::runtime::DeviceAllocator;
using ::executorch::runtime::etensor::DeviceType;

DeviceType device_of(const Tensor& t) { return t.unsafeGetTensorImpl()->device_type(); }

/// out = self: same dtype and dim order, out resized to self's shape; through
/// `device`'s allocator when that tensor (self or out) is on a device, the
/// other then having to be on the host; a byte copy when both are on the host.
/// `name` names the operator in log lines.
Tensor& transfer(KernelRuntimeContext& ctx, const char* name, const Tensor& self, Tensor& out, const Tensor& device,
                 const Tensor& host, bool to_device) {
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: out must have self's dtype", name);
  ET_KERNEL_CHECK(ctx, k::valid_dim_order(self) && k::valid_dim_order(out), InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx, k::same_dim_order(self, out), InvalidArgument, out,
                      "%s: out must have self's dim order", name);
  const DeviceType type = device_of(device);
  ET_KERNEL_CHECK_MSG(ctx, type == DeviceType::CPU || device_of(host) == DeviceType::CPU, InvalidArgument, out,
                      "%s: the %s tensor must be on the CPU", name, to_device ? "source" : "destination");
  ET_KERNEL_CHECK_MSG(ctx, k::resize_to(out, self.sizes()), InvalidArgument, out,
                      "%s: cannot resize out to self's shape", name);
  const size_t bytes = self.nbytes();
  if (type == DeviceType::CPU) {
    if (bytes > 0) std::memcpy(out.mutable_data_ptr(), self.const_data_ptr(), bytes);
    return out;
  }
  DeviceAllocator* allocator = ::executorch::runtime::get_device_allocator(type);
  ET_KERNEL_CHECK_MSG(ctx, allocator != nullptr, NotFound, out, "%s: no device allocator registered for device type %d",
                      name, static_cast<int>(type));
  const auto index = device.unsafeGetTensorImpl()->device_index();
  void* to = out.mutable_data_ptr();
  const void* from = self.const_data_ptr();
  const Error copied = to_device ? allocator->copy_host_to_device(to, from, bytes, index)
                                 : allocator->copy_device_to_host(to, from, bytes, index);
  ET_KERNEL_CHECK_MSG(ctx, copied == Error::Ok, Internal, out, "%s: the device allocator's copy failed", name);
  return out;
}

}  // namespace

/// Host to device: out (on the device) = a copy of self (any dtype; see the file comment).
Tensor& _h2d_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return transfer(ctx, kH2d, self, out, out, self, /*to_device=*/true);
}

/// Device to host: out (on the host) = a copy of self (on the device; any dtype; see the file comment).
Tensor& _d2h_copy_out(KernelRuntimeContext& ctx, const Tensor& self, Tensor& out) {
  return transfer(ctx, kD2h, self, out, self, out, /*to_device=*/false);
}

}  // namespace native
}  // namespace executor
}  // namespace torch
