// The engine of the quantized embedding kernels (embedding_byte, _4bit,
// _2bit): gather rows of an integer weight table by index and dequantize
// them with per-row (optionally per-group) scales and zero points.
//
// A row of `dim` values is stored as dim * bits / 8 bytes. For 8 bits a value
// is the byte itself (Byte or Char). For 4 and 2 bits the weight is Byte and
// a byte packs 8 / bits values, each stored with an offset of 2^(bits-1) (a
// 4-bit value v is the nibble v + 8): two 4-bit values, the first in the high
// nibble; four 2-bit values, the first in the lowest two bits (ExecuTorch's
// packings, which differ in order).
// Scales are [rows] or [rows, groups] (groups divide dim: value j of a row is
// in group j / (dim / groups)); zero points, when given, are shaped like the
// scales and of the scales' dtype.
#pragma once

#include "quant_util.h"

namespace etsb {
namespace quantized {

/// What the embedding kernels are called with.
struct EmbeddingArgs {
  const char* op;
  int bits;  // 8, 4 or 2
  const Tensor& weight;
  const Tensor& scales;
  const std::optional<Tensor>& zero_points;
  int64_t quant_min;
  int64_t quant_max;
  const Tensor& indices;
};

/// The number of values a row of the (packed) weight holds.
inline int64_t embedding_dim(const EmbeddingArgs& a) { return a.weight.size(1) * (8 / a.bits); }

/// Value j of a packed row of Bits-bit values, with the storage offset removed
/// (Bits is a template argument: no division or variable shift per value).
template <int Bits, typename W>
inline int32_t packed_value(const W* row, int64_t j) {
  if constexpr (Bits == 8) {
    return static_cast<int32_t>(row[j]);
  } else {
    constexpr int kPerByte = 8 / Bits;
    const uint8_t byte = static_cast<uint8_t>(row[j / kPerByte]);
    const int slot = static_cast<int>(j % kPerByte);
    // 4-bit: the first value in the high nibble; 2-bit: the first in the lowest bits.
    const int shift = Bits == 4 ? 4 * (1 - slot) : Bits * slot;
    return static_cast<int32_t>((byte >> shift) & ((1 << Bits) - 1)) - (1 << (Bits - 1));
  }
}

/// Checks the arguments (InvalidArgument through the context, naming the
/// operator and what is wrong) and resizes out to indices.shape + [dim].
inline bool embedding_args_ok(KernelRuntimeContext& ctx, const EmbeddingArgs& a, Tensor& out) {
  const char* op = a.op;
  const ScalarType wt = a.weight.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, a.weight.dim() == 2, InvalidArgument, false, "%s: weight must be 2-D", op);
  ET_KERNEL_CHECK_MSG(ctx, wt == ScalarType::Byte || (a.bits == 8 && wt == ScalarType::Char), InvalidArgument, false,
                      "%s: weight must be %s, not dtype %" PRId8, op, a.bits == 8 ? "Byte or Char" : "Byte",
                      static_cast<int8_t>(wt));
  ET_KERNEL_CHECK_MSG(ctx, a.scales.dim() == 1 || a.scales.dim() == 2, InvalidArgument, false,
                      "%s: weight_scales must be 1-D or 2-D", op);
  ET_KERNEL_CHECK_MSG(ctx, a.scales.size(0) == a.weight.size(0), InvalidArgument, false,
                      "%s: %zd scale rows for %zd weight rows", op, static_cast<ssize_t>(a.scales.size(0)),
                      static_cast<ssize_t>(a.weight.size(0)));
  const int64_t groups = a.scales.dim() == 2 ? a.scales.size(1) : 1;
  ET_KERNEL_CHECK_MSG(ctx, groups > 0 && embedding_dim(a) % groups == 0, InvalidArgument, false,
                      "%s: %" PRId64 " groups do not divide the embedding dim %" PRId64, op, groups,
                      embedding_dim(a));
  const ScalarType st = a.scales.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, st == ScalarType::Float || st == ScalarType::Half || st == ScalarType::BFloat16,
                      InvalidArgument, false, "%s: weight_scales must be Float, Half or BFloat16", op);
  if (a.zero_points.has_value()) {
    const Tensor& z = a.zero_points.value();
    bool same = z.dim() == a.scales.dim() && z.scalar_type() == st;
    for (ssize_t d = 0; same && d < z.dim(); ++d) same = z.size(d) == a.scales.size(d);
    ET_KERNEL_CHECK_MSG(ctx, same, InvalidArgument, false,
                        "%s: weight_zero_points must have the shape and dtype of weight_scales", op);
  }
  const ScalarType it = a.indices.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, it == ScalarType::Long || it == ScalarType::Int, InvalidArgument, false,
                      "%s: indices must be Long or Int", op);
  ET_KERNEL_CHECK_MSG(ctx, a.quant_min <= a.quant_max, InvalidArgument, false,
                      "%s: weight_quant_min %" PRId64 " is above weight_quant_max %" PRId64, op, a.quant_min,
                      a.quant_max);
  const ScalarType ot = out.scalar_type();
  ET_KERNEL_CHECK_MSG(ctx, ot == ScalarType::Float || ot == ScalarType::Half || ot == ScalarType::BFloat16,
                      InvalidArgument, false, "%s: out must be Float, Half or BFloat16", op);
  ET_KERNEL_CHECK_MSG(ctx, static_cast<size_t>(a.indices.dim()) < kMaxDim, InvalidArgument, false,
                      "%s: indices have too many dims", op);
  ET_KERNEL_CHECK_MSG(ctx, is_contiguous(a.weight) && is_contiguous(a.scales) && is_contiguous(a.indices),
                      InvalidArgument, false, "%s: weight, scales and indices must be contiguous", op);
  SizesType sizes[kMaxDim];
  const size_t rank = static_cast<size_t>(a.indices.dim());
  for (size_t d = 0; d < rank; ++d) sizes[d] = a.indices.size(d);
  sizes[rank] = static_cast<SizesType>(embedding_dim(a));
  ET_KERNEL_CHECK_MSG(ctx, resize_to(out, {sizes, rank + 1}) && is_contiguous(out), InvalidArgument, false,
                      "%s: out cannot take the shape indices.shape + [dim]", op);
  return true;
}

/// Gathers and dequantizes: out[i, j] = (w[idx[i], j] - zp[idx[i], g]) *
/// scale[idx[i], g], in float, converted to OUT, a group's scale and zero point
/// read once. An index outside the table fails through the context.
template <int Bits, typename W, typename P, typename OUT, typename I>
void embedding_rows(KernelRuntimeContext& ctx, const EmbeddingArgs& a, Tensor& out) {
  const int64_t rows = a.weight.size(0);
  const int64_t row_bytes = a.weight.size(1);
  const int64_t dim = embedding_dim(a);
  const int64_t groups = a.scales.dim() == 2 ? a.scales.size(1) : 1;
  const int64_t group_size = dim / groups;
  const W* table = a.weight.const_data_ptr<W>();
  const P* scales = a.scales.const_data_ptr<P>();
  const P* zeros = a.zero_points.has_value() ? a.zero_points.value().const_data_ptr<P>() : nullptr;
  const I* idx = a.indices.const_data_ptr<I>();
  OUT* y = out.mutable_data_ptr<OUT>();
  for (int64_t i = 0; i < a.indices.numel(); ++i, y += dim) {
    const int64_t row = static_cast<int64_t>(idx[i]);
    ET_KERNEL_CHECK_MSG(ctx, row >= 0 && row < rows, InvalidArgument, ,
                        "%s: index %" PRId64 " out of range [0, %" PRId64 ")", a.op, row, rows);
    const W* w = table + row * row_bytes;
    for (int64_t g = 0; g < groups; ++g) {
      const float scale = static_cast<float>(scales[row * groups + g]);
      const float zero = zeros != nullptr ? static_cast<float>(zeros[row * groups + g]) : 0.0f;
      for (int64_t j = g * group_size; j < (g + 1) * group_size; ++j) {
        y[j] = static_cast<OUT>((static_cast<float>(packed_value<Bits>(w, j)) - zero) * scale);
      }
    }
  }
}

/// Dispatches embedding_rows over the parameter, output and index dtypes (the
/// parameters' may differ from the output's).
template <int Bits, typename W>
void embedding_dispatch_params(KernelRuntimeContext& ctx, const EmbeddingArgs& a, Tensor& out) {
  const ScalarType it = a.indices.scalar_type();
  ET_SWITCH_THREE_TYPES(Float, Half, BFloat16, a.scales.scalar_type(), ctx, a.op, P, [&]() {
    ET_SWITCH_THREE_TYPES(Float, Half, BFloat16, out.scalar_type(), ctx, a.op, OUT, [&]() {
      if (it == ScalarType::Long) {
        embedding_rows<Bits, W, P, OUT, int64_t>(ctx, a, out);
      } else {
        embedding_rows<Bits, W, P, OUT, int32_t>(ctx, a, out);
      }
    });
  });
}

/// Packed (4- and 2-bit) tables are Byte only (embedding_args_ok refuses the
/// rest): only 8-bit ones compile a Char path too.
template <int Bits>
void embedding_dispatch(KernelRuntimeContext& ctx, const EmbeddingArgs& a, Tensor& out) {
  if constexpr (Bits == 8) {
    ET_SWITCH_TWO_TYPES(Byte, Char, a.weight.scalar_type(), ctx, a.op, W,
                        [&]() { embedding_dispatch_params<Bits, W>(ctx, a, out); });
  } else {
    embedding_dispatch_params<Bits, uint8_t>(ctx, a, out);
  }
}

/// The whole kernel: checks (out's dtype must be `dtype` when given, and the
/// scales' when `params_are_out` — the .out variants read the scales in the
/// output's dtype), then gathers.
template <int Bits>
Tensor& embedding_kernel(KernelRuntimeContext& ctx, const EmbeddingArgs& a, std::optional<ScalarType> dtype,
                         bool params_are_out, Tensor& out) {
  static_assert(Bits == 8 || Bits == 4 || Bits == 2, "8-, 4- or 2-bit tables");
  ET_KERNEL_CHECK_MSG(ctx, !dtype.has_value() || dtype.value() == out.scalar_type(), InvalidArgument, out,
                      "%s: out has dtype %" PRId8 ", the dtype argument says %" PRId8, a.op,
                      static_cast<int8_t>(out.scalar_type()), static_cast<int8_t>(dtype.value()));
  ET_KERNEL_CHECK_MSG(ctx, !params_are_out || a.scales.scalar_type() == out.scalar_type(), InvalidArgument, out,
                      "%s: weight_scales must have out's dtype (the .dtype_out variant takes others)", a.op);
  if (!embedding_args_ok(ctx, a, out)) return out;
  embedding_dispatch<Bits>(ctx, a, out);
  return out;
}

}  // namespace quantized
}  // namespace etsb
