// Complex dtypes (ComplexHalf, ComplexFloat, ComplexDouble) for the kernels
// that take them (mul, bmm, cat, sum, abs, _to_dim_order_copy; add through
// complex_binary_through): compute types, conversions, a same-dtype binary
// engine and a typed move.
//
// Complex values are computed in complex<float> (ComplexHalf, ComplexFloat)
// or complex<double> (ComplexDouble) and rounded once, as the real kernels
// compute Half in float. Every complex path runs under an
// ET_SWITCH_COMPLEXH_TYPES named after its operator, so a dtype-selective
// build drops it wherever no selected call uses a complex dtype.
#pragma once

#include "binary_op_util.h"
#include "copy_util.h"
#include "elementwise_util.h"
#include "kernel_util.h"

#include <type_traits>
#include <utility>

namespace etsb {
namespace kernels {

inline bool is_complex(ScalarType t) { return ::executorch::runtime::isComplexType(t); }

/// The type complex values of C type C are computed in: complex<double> for
/// ComplexDouble, complex<float> otherwise.
template <typename C>
using complex_compute_t =
    typename std::conditional<std::is_same<C, ::executorch::aten::complex<double>>::value,
                              ::executorch::aten::complex<double>, ::executorch::aten::complex<float>>::type;

/// The type of the real and imaginary parts of complex type C (Half for ComplexHalf).
template <typename C>
using complex_part_t = decltype(std::declval<const C&>().real());

/// z converted part by part to complex type To (ComplexHalf has no implicit
/// conversions from the others but complex<float>).
template <typename To, typename From>
inline To complex_cast(const From& z) {
  using Part = complex_part_t<To>;
  return To(static_cast<Part>(z.real()), static_cast<Part>(z.imag()));
}

/// A real value x of any real C type as complex type To (imaginary part 0).
template <typename To, typename Real>
inline To real_to_complex(Real x) {
  using Part = complex_part_t<To>;
  return To(static_cast<Part>(static_cast<double>(x)), Part(0));
}

/// Whether any of the tensors has a complex dtype.
inline bool any_complex(const Tensor& a, const Tensor& b, const Tensor& out) {
  return is_complex(a.scalar_type()) || is_complex(b.scalar_type()) || is_complex(out.scalar_type());
}

/// Whether a, b and out share one complex dtype (else the call fails) and
/// out is resized to their broadcast shape: what every complex binary path
/// checks first.
inline bool complex_binary_ready(KernelRuntimeContext& ctx, const char* name, const Tensor& a, const Tensor& b,
                                 Tensor& out) {
  const ScalarType t = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, is_complex(t) && a.scalar_type() == t && b.scalar_type() == t, InvalidArgument, false,
                      "%s: complex tensors and out must share one dtype", name);
  return prepare_binary_shape(ctx, name, a, b, out);
}

/// out = op(a, b) elementwise with broadcasting for a, b and out of one
/// complex dtype (mixing a complex dtype with another is refused, as
/// ExecuTorch's portable kernels do): op is called with two values of the
/// compute type and returns one. `Name` is the operator's switch name.
template <const char* Name, typename Op>
inline Tensor& complex_binary_out(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                                  const Op& op) {
  if (!complex_binary_ready(ctx, Name, a, b, out)) return out;
  const ScalarType t = out.scalar_type();
  ET_SWITCH_COMPLEXH_TYPES(t, ctx, Name, CTYPE, [&]() {
    using CT = complex_compute_t<CTYPE>;
    binary_same_dtype<CTYPE, CTYPE>(a, b, out, [&op](CTYPE x, CTYPE y) {
      return complex_cast<CTYPE>(op(complex_cast<CT>(x), complex_cast<CT>(y)));
    });
  });
  return out;
}

/// complex_binary_out's results through binary_through's loop: each element
/// read into its compute type through a loader of its dtype, combined by op
/// and rounded once on store; one small loop per compute type (for
/// operators whose complex calls are not worth a vectorised loop per dtype).
template <const char* Name, typename Op>
inline Tensor& complex_binary_through(KernelRuntimeContext& ctx, const Tensor& a, const Tensor& b, Tensor& out,
                                      const Op& op) {
  if (!complex_binary_ready(ctx, Name, a, b, out)) return out;
  const ScalarType t = out.scalar_type();
  using ComplexFloat = ::executorch::aten::complex<float>;
  using ComplexDouble = ::executorch::aten::complex<double>;
  LoadFn<ComplexFloat> load = nullptr;
  StoreFn<ComplexFloat> store = nullptr;
  ET_SWITCH_COMPLEXH_TYPES(t, ctx, Name, CTYPE, [&]() {
    if constexpr (std::is_same<CTYPE, ComplexDouble>::value) {
      binary_through<ComplexDouble>(&load_as<ComplexDouble, CTYPE>, &load_as<ComplexDouble, CTYPE>,
                                    &store_as<ComplexDouble, CTYPE>, a, b, out, op);
    } else {
      load = [](const void* data, int64_t i) { return complex_cast<ComplexFloat>(static_cast<const CTYPE*>(data)[i]); };
      store = [](void* data, int64_t i, ComplexFloat v) { static_cast<CTYPE*>(data)[i] = complex_cast<CTYPE>(v); };
    }
  });
  if (load != nullptr) binary_through<ComplexFloat>(load, load, store, a, b, out, op);
  return out;
}

template <typename T>
::executorch::aten::complex<double> load_complex_as(const void* data, int64_t i) {
  return complex_cast<::executorch::aten::complex<double>>(static_cast<const T*>(data)[i]);
}
template <typename T>
void store_complex_as(void* data, int64_t i, ::executorch::aten::complex<double> value) {
  static_cast<T*>(data)[i] = complex_cast<T>(value);
}

/// The loader of complex `dtype` elements as complex<double>, or null with
/// ctx failed (as loader_for, for complex dtypes).
template <const char* Name>
inline LoadFn<::executorch::aten::complex<double>> complex_loader_for(ScalarType dtype, KernelRuntimeContext& ctx) {
  LoadFn<::executorch::aten::complex<double>> fn = nullptr;
  ET_SWITCH_COMPLEXH_TYPES(dtype, ctx, Name, T, [&]() { fn = &load_complex_as<T>; });
  return fn;
}

/// The storer of complex<double> values into complex `dtype` elements, as complex_loader_for.
template <const char* Name>
inline StoreFn<::executorch::aten::complex<double>> complex_storer_for(ScalarType dtype, KernelRuntimeContext& ctx) {
  StoreFn<::executorch::aten::complex<double>> fn = nullptr;
  ET_SWITCH_COMPLEXH_TYPES(dtype, ctx, Name, T, [&]() { fn = &store_complex_as<T>; });
  return fn;
}

/// Moves the plan's box of complex `dtype` elements from element `src_offset`
/// of src to element `dst_offset` of dst (copy_walk, typed: ComplexDouble is
/// wider than the words move_walk knows). `Name` is the operator's switch name.
template <const char* Name>
inline void complex_move_walk(KernelRuntimeContext& ctx, ScalarType dtype, const void* src, int64_t src_offset,
                              void* dst, int64_t dst_offset, const CopyPlan& plan) {
  ET_SWITCH_COMPLEXH_TYPES(dtype, ctx, Name, CTYPE, [&]() {
    copy_walk(static_cast<const CTYPE*>(src) + src_offset, static_cast<CTYPE*>(dst) + dst_offset, plan);
  });
}

}  // namespace kernels
}  // namespace etsb
