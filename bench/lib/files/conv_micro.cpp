// A microbenchmark of etsb's Float convolution alone (bench_conv.py compiles
// it against one kernel tree, op_convolution.cpp included whole): each layer
// shape given on the command line is run through convolution_out on the
// calling thread (no pool linked) with the runtime's temp allocator, as a
// program's instruction runs, and its median time over the repetitions is
// printed with the layer's GFLOP/s. The inputs are deterministic, and a
// checksum of each output is printed so that two trees can be compared.
//
// Usage: conv_micro REPS SHAPE...   SHAPE = C,H,W,OC,K,STRIDE,PAD,GROUPS
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "executorch/kernels/portable/cpu/op_convolution.cpp"

using executorch::aten::ArrayRef;
using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::MemoryAllocator;
using executorch::runtime::etensor::TensorImpl;

namespace {

using Sizes = std::vector<TensorImpl::SizesType>;

std::vector<TensorImpl::DimOrderType> order_of(const Sizes& sizes) {
  std::vector<TensorImpl::DimOrderType> order(sizes.size());
  for (size_t d = 0; d < sizes.size(); ++d) order[d] = static_cast<TensorImpl::DimOrderType>(d);
  return order;
}

std::vector<TensorImpl::StridesType> strides_of(const Sizes& sizes) {
  std::vector<TensorImpl::StridesType> strides(sizes.size());
  TensorImpl::StridesType stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= sizes[d];
  }
  return strides;
}

std::vector<float> values_of(const Sizes& sizes, unsigned seed) {
  size_t n = 1;
  for (auto s : sizes) n *= static_cast<size_t>(s);
  std::vector<float> data(n);
  for (size_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    data[i] = static_cast<float>((seed >> 9) % 2001) / 1000.0f - 1.0f;
  }
  return data;
}

/// A dense, contiguous Float tensor of deterministic values in [-1, 1].
struct Dense {
  Sizes sizes;
  std::vector<TensorImpl::DimOrderType> order;
  std::vector<TensorImpl::StridesType> strides;
  std::vector<float> data;
  TensorImpl impl;
  Dense(Sizes shape, unsigned seed)
      : sizes(shape), order(order_of(shape)), strides(strides_of(shape)), data(values_of(shape, seed)),
        impl(ScalarType::Float, static_cast<ssize_t>(sizes.size()), sizes.data(), data.data(), order.data(),
             strides.data()) {}
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s REPS C,H,W,OC,K,STRIDE,PAD,GROUPS...\n", argv[0]);
    return 2;
  }
  const int reps = std::atoi(argv[1]);
  alignas(4096) static unsigned char scratch[64 << 20];
  MemoryAllocator temp(sizeof scratch, scratch);
  for (int a = 2; a < argc; ++a) {
    long c, h, w, oc, kk, st, pad, groups;
    if (std::sscanf(argv[a], "%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld", &c, &h, &w, &oc, &kk, &st, &pad, &groups) != 8) {
      std::fprintf(stderr, "bad shape %s\n", argv[a]);
      return 2;
    }
    const long oh = (h + 2 * pad - kk) / st + 1, ow = (w + 2 * pad - kk) / st + 1;
    Dense x({1, (int)c, (int)h, (int)w}, 1), wt({(int)oc, (int)(c / groups), (int)kk, (int)kk}, 2), b({(int)oc}, 3),
        y({1, (int)oc, (int)oh, (int)ow}, 4);
    Tensor xt(&x.impl), wtt(&wt.impl), bt(&b.impl), yt(&y.impl);
    const int64_t stride[2] = {st, st}, padding[2] = {pad, pad}, dilation[2] = {1, 1}, outpad[2] = {0, 0};
    std::optional<Tensor> bias(bt);
    std::vector<double> times;
    // Enough calls per timed sample to take ~20 us, so the clock's cost does not count.
    const double flops = 2.0 * oc * oh * ow * (c / groups) * kk * kk;
    const int inner = std::max(1, static_cast<int>(20000.0 / (flops / 50.0 + 200.0)));
    for (int r = -3; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < inner; ++i) {
        temp.reset();
        KernelRuntimeContext ctx(nullptr, &temp);
        torch::executor::native::convolution_out(ctx, xt, wtt, bias, ArrayRef<int64_t>(stride, 2),
                                                 ArrayRef<int64_t>(padding, 2), ArrayRef<int64_t>(dilation, 2), false,
                                                 ArrayRef<int64_t>(outpad, 2), groups, yt);
        if (ctx.failure_state() != executorch::runtime::Error::Ok) {
          std::fprintf(stderr, "convolution failed on %s\n", argv[a]);
          return 1;
        }
      }
      const auto t1 = std::chrono::steady_clock::now();
      if (r >= 0) times.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / inner);
    }
    std::sort(times.begin(), times.end());
    double sum = 0;
    for (float v : y.data) sum += v;
    const double us = times[times.size() / 2];
    std::printf("%s us=%.3f min=%.3f gflops=%.1f sum=%.6g\n", argv[a], us, times[0], flops / us / 1e3, sum);
  }
  return 0;
}
