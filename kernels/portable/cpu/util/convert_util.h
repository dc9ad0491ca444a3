// Dtype conversions of whole tensors in memory order (_to_copy,
// _to_dim_order_copy): typed loops where Float is on one side, otherwise a
// chunk at a time through an exact widening, so that the code grows with the
// number of dtypes rather than with the number of dtype pairs.
#pragma once

#include "elementwise_util.h"
#include "kernel_util.h"

#include <cstring>
#include <type_traits>

namespace etsb {
namespace kernels {

/// Elements per chunk of a widened conversion (convert_widened): 2 KiB of
/// stack for the widened values.
constexpr int64_t kConvertChunk = 256;

template <typename W>
using WidenFn = void (*)(const void*, int64_t, int64_t, W*);
template <typename W>
using NarrowFn = void (*)(const W*, int64_t, void*, int64_t);

/// buf[j] = src[first + j] (of C type In) as W, for j < n.
template <typename W, typename In>
void widen_chunk(const void* src, int64_t first, int64_t n, W* buf) {
  map_unary(static_cast<const In*>(src) + first, buf, n, [](In x) { return static_cast<W>(x); });
}

/// dst[first + j] (of C type Out) = buf[j] as Out, for j < n.
template <typename W, typename Out>
void narrow_chunk(const W* buf, int64_t n, void* dst, int64_t first) {
  map_unary(buf, static_cast<Out*>(dst) + first, n, [](W x) { return static_cast<Out>(x); });
}

/// dst[i] = src[i] converted, for i < n, a chunk at a time: widened exactly
/// to W (int64_t for integral and Bool sources, double for floating ones),
/// then converted to dst's type, which gives what a direct conversion gives.
/// A chunk is read whole before it is written, so dst may alias src element
/// for element.
template <typename W>
ET_NOINLINE void convert_widened(WidenFn<W> widen, NarrowFn<W> narrow, const void* src, void* dst, int64_t n) {
  W buf[kConvertChunk];
  for (int64_t i = 0; i < n; i += kConvertChunk) {
    const int64_t len = n - i < kConvertChunk ? n - i : kConvertChunk;
    widen(src, i, len, buf);
    narrow(buf, len, dst, i);
  }
}

/// convert_widened of self into out through W, the widening and narrowing
/// chosen by ET_SWITCHes named `Name` on their dtypes.
template <typename W, const char* Name>
inline void convert_through(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& out) {
  WidenFn<W> widen = nullptr;
  NarrowFn<W> narrow = nullptr;
  if (std::is_same<W, double>::value) {
    ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, Name, IN, [&]() { widen = &widen_chunk<W, IN>; });
  } else {
    ET_SWITCH_INT_TYPES_AND(Bool, self.scalar_type(), ctx, Name, IN, [&]() { widen = &widen_chunk<W, IN>; });
  }
  ET_SWITCH_REALHBBF16_TYPES(out.scalar_type(), ctx, Name, OUT, [&]() { narrow = &narrow_chunk<W, OUT>; });
  if (widen == nullptr || narrow == nullptr) return;  // ctx already failed
  convert_widened(widen, narrow, self.const_data_ptr(), out.mutable_data_ptr(), self.numel());
}

/// out = self converted element by element in memory order (out already has
/// self's shape and dim order): self itself when the dtypes agree; a typed
/// loop when either side is Float (the conversions models run: weights to
/// float and back); otherwise through a widened chunk (convert_through: one
/// loop per dtype and side rather than per pair). Real, Bool, Half and
/// BFloat16 dtypes, from ET_SWITCHes that a dtype-selective build trims.
/// `Name` is the calling operator's switch name.
template <const char* Name>
inline void convert_in_order(KernelRuntimeContext& ctx, const Tensor& self, const Tensor& out) {
  const int64_t n = self.numel();
  if (n == 0) return;
  const ScalarType in_type = self.scalar_type();
  const ScalarType out_type = out.scalar_type();
  if (in_type == out_type) {
    if (self.const_data_ptr() != out.mutable_data_ptr()) {
      std::memmove(out.mutable_data_ptr(), self.const_data_ptr(), self.nbytes());
    }
    return;
  }
  constexpr bool kFloat = may_take_dtype(Name, ScalarType::Float);
  if (kFloat && out_type == ScalarType::Float) {
    ET_SWITCH_REALHBBF16_TYPES(in_type, ctx, Name, IN, [&]() {
      map_unary(self.const_data_ptr<IN>(), out.mutable_data_ptr<float>(), n,
                [](IN x) { return static_cast<float>(x); });
    });
  } else if (kFloat && in_type == ScalarType::Float) {
    ET_SWITCH_REALHBBF16_TYPES(out_type, ctx, Name, OUT, [&]() {
      map_unary(self.const_data_ptr<float>(), out.mutable_data_ptr<OUT>(), n,
                [](float x) { return static_cast<OUT>(x); });
    });
  } else if (is_floating(in_type)) {
    convert_through<double, Name>(ctx, self, out);
  } else {
    convert_through<int64_t, Name>(ctx, self, out);
  }
}

}  // namespace kernels
}  // namespace etsb
