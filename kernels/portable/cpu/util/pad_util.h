// Reflection and replication padding over the last 1, 2 or 3 dims
// (reflection_pad1d/2d/3d, replication_pad1d/2d/3d): one engine, the modes
// differing only in where an output position outside self reads from.
#pragma once

#include "copy_util.h"

namespace etsb {
namespace kernels {

using ::executorch::aten::ArrayRef;
using ::executorch::runtime::KernelRuntimeContext;

/// Where a padded position reads from: mirrored about the edge element
/// (reflect: a b c -> c b a b c b a) or the edge element repeated (replicate:
/// a a a b c c c).
enum class PadMode { kReflect, kReplicate };

/// The position in a dim of `size` read by position `i` (which may lie
/// outside [0, size)); the checks of pad_out keep the result in range.
inline int64_t pad_source(int64_t i, int64_t size, PadMode mode) {
  if (mode == PadMode::kReplicate) return i < 0 ? 0 : (i >= size ? size - 1 : i);
  if (i < 0) return -i;
  return i >= size ? 2 * (size - 1) - i : i;
}

/// The padded walk, elements moved as words W: `outer` blocks (the dims
/// before the padded ones), each an n-dim box of out read from self's box.
template <typename W>
inline void pad_walk(const W* in, W* out, int64_t outer, int64_t n, const int64_t* in_sizes,
                     const int64_t* out_sizes, const int64_t* before, PadMode mode) {
  int64_t in_block = 1, out_block = 1, rows = 1;
  for (int64_t j = 0; j < n; ++j) {
    in_block *= in_sizes[j];
    out_block *= out_sizes[j];
    if (j + 1 < n) rows *= out_sizes[j];
  }
  const int64_t width = out_sizes[n - 1], in_width = in_sizes[n - 1], left = before[n - 1];
  for (int64_t b = 0; b < outer; ++b) {
    const W* src = in + b * in_block;
    W* dst = out + b * out_block;
    int64_t at[3] = {0, 0, 0};  // the output row's coordinates in the outer padded dims
    for (int64_t r = 0; r < rows; ++r) {
      int64_t row = 0;  // the source row's offset
      for (int64_t j = 0; j + 1 < n; ++j) row = row * in_sizes[j] + pad_source(at[j] - before[j], in_sizes[j], mode);
      const W* from = src + row * in_width;
      for (int64_t x = 0; x < width; ++x) dst[r * width + x] = from[pad_source(x - left, in_width, mode)];
      for (int64_t j = n - 1; j-- > 0;) {
        if (++at[j] < out_sizes[j]) break;
        at[j] = 0;
      }
    }
  }
}

/// out = self padded over its last n dims (n in 1..3; self has n + 1 or
/// n + 2 dims) by padding = [before, after] per dim, last dim first, in
/// `mode`. Reflection needs each pad below the dim's size; both modes need
/// the padded dims non-empty where out is not. Any dtype of width 1, 2, 4
/// or 8, out the same; contiguous; out is resized.
inline Tensor& pad_out(KernelRuntimeContext& ctx, const char* name, int64_t n, const Tensor& self,
                       ArrayRef<int64_t> padding, PadMode mode, Tensor& out) {
  const int64_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, static_cast<int64_t>(padding.size()) == 2 * n && (rank == n + 1 || rank == n + 2),
                      InvalidArgument, out, "%s: needs %" PRId64 " pads and a tensor of rank %" PRId64 " or %" PRId64,
                      name, 2 * n, n + 1, n + 2);
  ET_KERNEL_CHECK_MSG(ctx, self.scalar_type() == out.scalar_type() && is_contiguous(self) && is_contiguous(out),
                      InvalidArgument, out, "%s: out must be contiguous with self's dtype", name);
  Shape shape = shape_of(self);
  int64_t in_sizes[3], out_sizes[3], before[3];
  for (int64_t j = 0; j < n; ++j) {
    const int64_t d = rank - n + j;
    const size_t pair = static_cast<size_t>(2 * (n - 1 - j));  // pads count from the last dim
    const int64_t lo = padding[pair], hi = padding[pair + 1], in = self.sizes()[d];
    const bool small = size_like(lo < 0 ? -lo : lo, 0) && size_like(hi < 0 ? -hi : hi, 0);
    ET_KERNEL_CHECK_MSG(ctx, small && in + lo + hi >= 0, InvalidArgument, out,
                        "%s: padding [%" PRId64 ", %" PRId64 "] does not fit dim %" PRId64 " of size %" PRId64, name,
                        lo, hi, d, in);
    ET_KERNEL_CHECK_MSG(ctx, mode != PadMode::kReflect || (lo < in && hi < in), InvalidArgument, out,
                        "%s: reflection padding must be below the dim's size %" PRId64, name, in);
    in_sizes[j] = in;
    out_sizes[j] = in + lo + hi;
    before[j] = lo;
    shape.sizes[d] = static_cast<SizesType>(out_sizes[j]);
  }
  ET_KERNEL_CHECK(ctx, resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  for (int64_t j = 0; j < n; ++j) {
    ET_KERNEL_CHECK_MSG(ctx, in_sizes[j] > 0, InvalidArgument, out, "%s: cannot pad an empty dim", name);
  }
  const int64_t outer = size_product(self.sizes(), 0, static_cast<size_t>(rank - n));
  const bool moved = with_element_word(self.scalar_type(), [&](auto word) {
    using W = decltype(word);
    pad_walk(self.const_data_ptr<W>(), out.mutable_data_ptr<W>(), outer, n, in_sizes, out_sizes, before, mode);
  });
  ET_KERNEL_CHECK_MSG(ctx, moved, InvalidArgument, out, "%s: unsupported dtype", name);
  return out;
}

}  // namespace kernels
}  // namespace etsb
