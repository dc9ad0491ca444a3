// Untyped element access for the slow paths of several dtypes at once: a
// loop written over `const void*` and a WidenedIo<Acc> is built once per
// sum type Acc (the integers in uint64_t, Half and BFloat16 in float), not
// once per dtype, each dtype adding only its two small access functions.
// Used by convolution's gathering loop, addmm's non-Float products and max
// pooling's non-Float windows.
#pragma once

#include <cstdint>
#include <type_traits>

namespace etsb {
namespace kernels {

/// A value widened for summing in Acc (integers through int64_t, so that
/// negative values wrap correctly into uint64_t).
template <typename Acc, typename T>
inline Acc acc_of(T v) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<Acc>(static_cast<int64_t>(v));
  } else {
    return static_cast<Acc>(v);
  }
}

/// The sum type of T's slow paths: uint64_t for integers (overflow wraps,
/// as ATen's does, without undefined behaviour), float for Half and
/// BFloat16 (rounded once at the end), T itself for Float and Double.
template <typename T>
using widened_t = typename std::conditional<
    std::is_integral<T>::value, uint64_t,
    typename std::conditional<std::is_same<T, double>::value, double, float>::type>::type;

/// Element i of an untyped T array as CT, and CT value stored into element
/// i: the per-dtype access functions of every mixed-dtype loop (WidenedIo
/// here, the elementwise engine's and the reductions' loaders).
template <typename CT>
using LoadFn = CT (*)(const void*, int64_t);
template <typename CT>
using StoreFn = void (*)(void*, int64_t, CT);

template <typename CT, typename T>
CT load_as(const void* data, int64_t i) {
  return static_cast<CT>(static_cast<const T*>(data)[i]);
}
template <typename CT, typename T>
void store_as(void* data, int64_t i, CT value) {
  static_cast<T*>(data)[i] = static_cast<T>(value);
}

/// Element i of an array read widened to Acc, and v rounded (floating) or
/// wrapped (integers) into element i: a pair of functions per dtype.
template <typename Acc>
struct WidenedIo {
  LoadFn<Acc> load;
  StoreFn<Acc> store;
};

/// T's WidenedIo, in widened_t<T> or another Acc that holds every T value
/// (int64_t where integers are compared, not summed).
template <typename T, typename Acc = widened_t<T>>
inline const WidenedIo<Acc>& widened_io() {
  static constexpr WidenedIo<Acc> io{&load_as<Acc, T>, &store_as<Acc, T>};
  return io;
}

/// The same access inlined, for a dtype whose sum type is itself (Float,
/// Double on their own loops).
template <typename T>
struct SameIo {
  static T load(const void* data, int64_t i) { return static_cast<const T*>(data)[i]; }
  static void store(void* data, int64_t i, T v) { static_cast<T*>(data)[i] = v; }
};

}  // namespace kernels
}  // namespace etsb
