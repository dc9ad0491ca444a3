// aten::convolution.out: 1-D and 2-D convolution, plain and transposed, NCHW
// in any dim order (e.g. channels-last).
#include "util/conv_direct.h"
#include "util/conv_taps_f32.h"
#include "util/conv_util.h"
#include "util/depthwise_f32.h"
#include "util/dot_f32.h"
#include "util/copy_util.h"
#include "util/matmul_util.h"

#include <optional>
#include <type_traits>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::SizesType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

/// Geometry of one spatial axis (pool_util.h's, shared with pooling).
using Axis = k::Window;

/// Sets `channels` whole output planes to their bias (fill_columns_with_bias).
template <typename T>
void fill_with_bias(T* out, const T* bias, int64_t first, int64_t channels, int64_t plane) {
  k::fill_columns_with_bias(out, bias, first, channels, plane, 0, plane);
}

/// Scratch memory from the runtime's temp allocator, or null when the
/// program runs without one (kDirectWithoutScratch says what runs then).
float* temp_floats(KernelRuntimeContext& ctx, int64_t count) {
  auto memory = ctx.allocate_temp(static_cast<size_t>(count) * sizeof(float), 64);
  return memory.ok() ? static_cast<float*>(memory.get()) : nullptr;
}

/// Whether to take the paths that pay for speed with code: depthwise's direct
/// kernels and the dot kernel for tiny planes. etsb's size configuration
/// (ETSB_KERNELS_ONE_PATH) leaves them out: im2col with gemm (which matrix
/// products link anyway) cover every shape. Without scratch memory, Float
/// runs the direct loops of conv_direct.h there (kDirectWithoutScratch: the deploy
/// runner has no temp allocator unless given temp_pool_bytes); elsewhere
/// runtimes come with one (etsb's runner, ExecuTorch's Module), and the rare
/// one without gathers (conv2d_gather, ~40x slower): 3.2 KB less code.
#if defined(ETSB_KERNELS_ONE_PATH)
constexpr bool kSpecialisedPaths = false, kDirectWithoutScratch = true;
#else
constexpr bool kSpecialisedPaths = true, kDirectWithoutScratch = false;
#endif

/// Whether gemm_f32 starts its sums at the bias (ETSB_GEMM_ROW_INIT; the size configuration writes it first).
constexpr bool kBiasInGemm = ETSB_GEMM_ROW_INIT;

/// Output columns of an im2col tile: a multiple of every build's register tile width (8, 16, 32 floats), so
/// that only the plane's last tile has a partial one.
constexpr int64_t kGemmColumns = 32;
/// Floats of im2col scratch to aim for (1 MB, a core's L2; refused, kShortBudget's 256 KB, the size configuration's):
/// output columns in tiles of this (>= kGemmColumns), and the padded copy's limit (at 256 KB, ResNet-18's 224 px
/// layers took 1.08x the time).
constexpr int64_t kShortBudget = 64 * 1024, kColumnBudget = kSpecialisedPaths ? 256 * 1024 : kShortBudget;
/// Output planes narrower than this (1x1 to 2x3) with at least kDotDepth products per output go to dot_f32: a
/// vector along the depth beats a vector of a few output columns (gemm_f32's partial tiles; 40-deep: 0.7x).
constexpr int64_t kDotColumns = 8;
constexpr int64_t kDotDepth = 32;

/// The work that decides a cut, in gemm_f32's multiply-adds: an output costs kOutputWork more (its bias,
/// gemm_f32's load and store of it: MobileNet-v2's 8-deep pointwise convolution of 48 x 1024 outputs took 19 us,
/// 64-deep ones ran at ~0.012 ns per multiply-add); dot_f32's count kDotWork each (~15 G per second on
/// MobileNet-v2's 2x2 planes, against gemm_f32's ~80).
constexpr int64_t kOutputWork = 24, kDotWork = 4;

/// Output channels of a piece of a pointwise convolution cut by channel (by_rows): AVX-512's register tile height.
constexpr int64_t kGemmRows = 8;

/// Depthwise convolution (one input channel per group) by the direct
/// kernels of depthwise_f32.h, cut by channel on the thread pool
/// (depthwise_f32_pieces). False (nothing written) when no scratch memory
/// is available.
bool conv2d_depthwise(KernelRuntimeContext& ctx, const float* in, const float* weight, const float* bias,
                      float* out, int64_t batch, int64_t in_ch, int64_t multiplier, const Axis& h, const Axis& w) {
  const int64_t pieces = k::depthwise_f32_pieces(in_ch, multiplier, h, w);
  const int64_t per_piece = k::depthwise_f32_piece_scratch(in_ch, multiplier, h, w);  // none for 3x3 stride 1 or 2
  float* scratch = per_piece > 0 ? temp_floats(ctx, per_piece * pieces) : nullptr;
  if (per_piece > 0 && scratch == nullptr) return false;
  for (int64_t b = 0; b < batch; ++b) {
    k::depthwise_f32_cut(in + b * in_ch * h.in * w.in, weight, bias, out + b * in_ch * multiplier * h.out * w.out,
                         in_ch, multiplier, h, w, scratch, pieces);
  }
  return true;
}

/// Float convolution as matrix products per image and group: out_g [OC_g, OH * OW] = bias + weight_g [OC_g,
/// C_g * KH * KW] x im2col(x_g) (the bias where gemm_f32's and dot_f32's sums start: kBiasInGemm), by gemm_f32 in
/// tiles of im2col within `budget` (from a padded copy of x_g if it fits, or that copy itself: taps; a pointwise
/// convolution, 1x1 with stride 1 and no padding, multiplies the input itself); a tiny output plane of deep
/// patches by dot_f32 against the patches as rows. Depthwise (one input channel per group, cut by channel) and a
/// few-channel 3x3 stride-2 stem run depthwise_f32.h's direct kernels (neither these nor dot_f32 in the size
/// configuration: kSpecialisedPaths). On the thread pool, the output's columns are cut into pieces of whole
/// kGemmColumns, each with its own im2col (dot_f32's output rows, after patch_rows cut by position; a pointwise
/// one of a small plane by channel: by_rows); a single tile is left to gemm_f32's own cut, after im2col_plane cut
/// by channel; several groups or images are cut whole instead. Every output takes the same code whatever the cut,
/// so results do not depend on the threads. False (nothing written) without scratch memory.
bool conv2d_gemm(KernelRuntimeContext& ctx, const float* in, const float* weight, const float* bias, float* out,
                 int64_t batch, int64_t in_ch, int64_t out_ch, int64_t groups, const Axis& h, const Axis& w,
                 int64_t budget, float* given = nullptr) {
  const int64_t in_per_group = in_ch / groups, out_per_group = out_ch / groups;
  const int64_t depth = in_per_group * h.kernel * w.kernel;
  const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out;
  if constexpr (kSpecialisedPaths) {
    if (in_per_group == 1 && groups > 1 && k::depthwise_f32_runs()) {
      return conv2d_depthwise(ctx, in, weight, bias, out, batch, in_ch, out_per_group, h, w);
    }
    if (groups == 1 && k::stem3x3_f32(in, weight, bias, out, batch, in_ch, out_ch, h, w)) return true;
  }
  const bool pointwise = h.kernel * w.kernel == 1 && h.stride * w.stride == 1 && h.pad + w.pad == 0;
  const bool dot = kSpecialisedPaths && out_plane < kDotColumns && depth >= kDotDepth && k::dot_f32_runs();
  // A plane's last 1 to 4 columns past whole 16-float vectors (7x7's 49th, 14x14's last 4) by dot_f32 against
  // their patches as rows: gemm_f32's partial vector costs a whole one (ResNet-18's 7x7: 0.77x the time, 14x14 0.92x).
  const int64_t tail = kSpecialisedPaths && !dot && out_plane > kGemmColumns && (out_plane - 1) % 16 < 4 &&
                       depth >= kDotDepth && k::dot_f32_runs() ? out_plane % 16 : 0;
  const int64_t cols = out_plane - tail;                           // gemm_f32's
  const int64_t units = (cols + kGemmColumns - 1) / kGemmColumns;  // column tiles, the last maybe partial
  const int64_t work = out_per_group * out_plane * (dot ? depth * kDotWork : depth + kOutputWork);
  // A pointwise convolution of more tiles of kGemmRows channels than of kGemmColumns columns (7x7 and 14x14
  // planes) is cut by channel, its tail in the same pieces: by columns 7x7's 48 split 32 to 16, and the tail took two
  // more trips to the pool.
  const int64_t row_tiles = kSpecialisedPaths ? (out_per_group + kGemmRows - 1) / kGemmRows : 0;
  const bool rows_first = kSpecialisedPaths && pointwise && !dot && row_tiles >= units;
  // Several groups or images are cut whole when the pool takes them (RegNet-Y's groups of 8 channels, each too
  // small to cut, ran on one thread): each piece calls this on one group of one image at a time (`given` its
  // scratch, null where it needs none), which runs as on one thread (serial), its scratch the same in every piece.
  // Not in the size configuration: there the loop below stays inlined.
  const int64_t convolutions = batch * groups;
  const int64_t group_pieces =
      kSpecialisedPaths && given == nullptr && convolutions > 1
          ? k::parallel_pieces(work * convolutions, k::kGemmTaskWork, convolutions)
          : 1;
  const bool serial = given != nullptr || group_pieces > 1;
  const int64_t pieces =
      serial ? 1 : k::parallel_pieces(work, k::kGemmTaskWork, dot ? out_per_group : rows_first ? row_tiles : units);
  const bool by_rows = rows_first && pieces > 1;
  int64_t tile = budget / depth - budget / depth % kGemmColumns;
  tile = dot || pointwise ? cols : (tile < kGemmColumns ? kGemmColumns : (tile > cols ? cols : tile));
  if (!dot && !by_rows && pieces > 1) {  // no tile wider than a piece's share of whole kGemmColumns
    const int64_t share = (units + pieces - 1) / pieces * kGemmColumns;
    if (tile > share) tile = share;
  }
  // One column tile of a product gemm_f32 cuts by itself (by rows), its patches made in pieces by channel
  // (im2col_plane): a plane of one tile, or at the full budget of too few to share evenly (14x14 in 7 tiles of 32: 4
  // and 3, 128 and 68 columns, 8 and 5 vectors; its patches are the whole plane's). The dot path cuts by rows too,
  // its patches by position.
  const bool few_units = kSpecialisedPaths && pieces > 1 && units < 4 * pieces && budget == kColumnBudget;
  const bool one_tile = !dot && !pointwise && (few_units || (!serial && pieces == 1 && tile == out_plane &&
                                                             work >= 2 * k::kGemmTaskWork &&
                                                             k::worth_the_pool(work / k::kGemmTaskWork)));
  const int64_t col_floats = pointwise && !dot ? 0 : depth * (one_tile ? out_plane : tile * (dot ? 1 : pieces));
  const int64_t patch_pieces = one_tile ? k::parallel_pieces(in_per_group, 1, in_per_group) : 1;
  const int64_t dot_pieces = dot        ? pieces
                             : tail > 0 ? k::parallel_pieces(out_per_group * tail * depth * kDotWork, k::kGemmTaskWork,
                                                             out_per_group)
                                        : 1;
  // A small input under a kernel wider than 1x1 is copied once padded (im2col_padded, or no im2col: taps); a
  // large one, or a strided 1x1, is read in place (im2col_columns).
  const int64_t padded_floats = k::padded_planes_floats(in_per_group, h, w);
  const bool padded = !dot && h.kernel * w.kernel > 1 && padded_floats <= budget;
  const bool taps = kSpecialisedPaths && padded && !one_tile && k::conv2d_taps_runs(h, w);  // conv_taps_f32.h
  const int64_t scratch = taps ? k::conv2d_taps_floats(in_per_group, h, w)
                               : col_floats + (padded ? padded_floats : 0) + tail * depth * (by_rows ? pieces : 1);
  float* col = scratch > 0 ? (given != nullptr ? given : temp_floats(ctx, scratch * group_pieces)) : nullptr;
  if (scratch > 0 && col == nullptr) return false;
  if (group_pieces > 1) {
    k::parallel_pieces_run(group_pieces, [&](int64_t p) {
      int64_t first = 0, last = 0;  // b * groups + g
      k::piece_bounds(convolutions, group_pieces, p, &first, &last);
      for (int64_t u = first; u < last; ++u) {
        const int64_t b = u / groups, g = u % groups;
        conv2d_gemm(ctx, in + (b * in_ch + g * in_per_group) * in_plane, weight + g * out_per_group * depth,
                    bias != nullptr ? bias + g * out_per_group : nullptr,
                    out + (b * out_ch + g * out_per_group) * out_plane, 1, in_per_group, out_per_group, 1, h, w,
                    budget, col != nullptr ? col + p * scratch : col);
      }
    });
    return true;
  }
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t g = 0; g < groups; ++g) {
      const float* x = in + (b * in_ch + g * in_per_group) * in_plane;
      const float* wg = weight + g * out_per_group * depth;
      float* o = out + (b * out_ch + g * out_per_group) * out_plane;
      const float* group_bias = bias != nullptr ? bias + g * out_per_group : nullptr;  // where its sums start
      if (kSpecialisedPaths && dot) {
        k::dot_columns(x, col, wg, group_bias, o, in_per_group, out_per_group, h, w, 0, dot_pieces);
        continue;
      }
      if (taps) {
        k::conv2d_taps(x, wg, group_bias, o, in_per_group, out_per_group, h, w, col, pieces, kGemmColumns);
        continue;
      }
      if (one_tile) {
        k::im2col_plane(x, col, padded ? col + col_floats : nullptr, in_per_group, h, w, patch_pieces);
        if (!kBiasInGemm) fill_with_bias(o, bias, g * out_per_group, out_per_group, out_plane);
        k::gemm_f32(out_per_group, cols, depth, wg, depth, 1, col, out_plane, o, out_plane, !kBiasInGemm,
                    kBiasInGemm ? group_bias : nullptr);
      } else {
        if (padded) k::pad_planes(x, col + col_floats, in_per_group, h, w);
        k::parallel_pieces_run(pieces, [&](int64_t p) {
          // whole kGemmColumns tiles [u0, u1), so that only the plane's last one is partial; channels [r0, r1)
          // (if constexpr: none of it in the size configuration's closure)
          int64_t u0 = 0, u1 = units, r0 = 0, r1 = out_per_group;
          if constexpr (kSpecialisedPaths) {
            if (by_rows) {  // whole kGemmRows tiles of channels
              k::piece_bounds(row_tiles, pieces, p, &r0, &r1);
              r0 *= kGemmRows;
              r1 = r1 * kGemmRows < out_per_group ? r1 * kGemmRows : out_per_group;
              if (r1 <= r0) return;
            }
          }
          if (!by_rows) k::piece_bounds(units, pieces, p, &u0, &u1);
          const int64_t lo = u0 * kGemmColumns, hi = u1 * kGemmColumns < cols ? u1 * kGemmColumns : cols;
          const float* rows_bias = kBiasInGemm && group_bias != nullptr ? group_bias + r0 : nullptr;
          float* piece_col = col != nullptr ? col + p * depth * tile : nullptr;
          if (!kBiasInGemm) k::fill_columns_with_bias(o, bias, g * out_per_group, out_per_group, out_plane, lo, hi);
          for (int64_t j0 = lo; j0 < hi; j0 += tile) {
            const int64_t width = hi - j0 < tile ? hi - j0 : tile;
            if (padded) {
              k::im2col_padded(col + col_floats, piece_col, in_per_group, h, w, j0, j0 + width);
            } else if (!pointwise) {
              k::im2col_columns(x, piece_col, in_per_group, h, w, j0, j0 + width);
            }
            k::gemm_f32(r1 - r0, width, depth, wg + r0 * depth, depth, 1, pointwise ? x + j0 : piece_col,
                        pointwise ? out_plane : width, o + r0 * out_plane + j0, out_plane,
                        /*accumulate=*/!kBiasInGemm, rows_bias);
          }
          if constexpr (kSpecialisedPaths) {
            if (by_rows && tail > 0) {  // the tail of its channels, its own patches past the rest
              k::dot_columns(x, col + scratch - (p + 1) * tail * depth, wg + r0 * depth, rows_bias,
                             o + r0 * out_plane, in_per_group, r1 - r0, h, w, cols, 1);
            }
          }
        });
      }
      if (kSpecialisedPaths && tail > 0 && !by_rows) {  // its patches after the rest of the scratch
        k::dot_columns(x, col + scratch - tail * depth, wg, group_bias, o, in_per_group, out_per_group, h, w, cols,
                       dot_pieces);
      }
    }
  }
  return true;
}

/// Float transposed convolution as matrix products: col [OC_g * KH * KW,
/// IH * IW] = weight_g^T x x_g, then each column entry is added to the
/// output position it maps to (col2im), after the bias. False (nothing
/// written) when no scratch memory is available.
bool conv2d_transposed_gemm(KernelRuntimeContext& ctx, const float* in, const float* weight, const float* bias,
                            float* out, int64_t batch, int64_t in_ch, int64_t out_ch, int64_t groups, const Axis& h,
                            const Axis& w) {
  const int64_t in_per_group = in_ch / groups, out_per_group = out_ch / groups;
  const int64_t taps = h.kernel * w.kernel;
  const int64_t rows = out_per_group * taps;
  const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out;
  float* col = temp_floats(ctx, rows * in_plane);
  if (col == nullptr) return false;
  for (int64_t b = 0; b < batch; ++b) {
    fill_with_bias(out + b * out_ch * out_plane, bias, 0, out_ch, out_plane);
    for (int64_t g = 0; g < groups; ++g) {
      // weight_g is [IC_g, OC_g * KH * KW] row-major: read transposed.
      k::gemm_f32(rows, in_plane, in_per_group, weight + g * in_per_group * rows, 1, rows,
                  in + (b * in_ch + g * in_per_group) * in_plane, in_plane, col, in_plane, /*accumulate=*/false);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t ocl = r / taps;
        const int64_t kh = (r % taps) / w.kernel;
        const int64_t kw = r % w.kernel;
        float* o = out + (b * out_ch + g * out_per_group + ocl) * out_plane;
        const float* src = col + r * in_plane;
        for (int64_t ih = 0; ih < h.in; ++ih) {
          const int64_t oh = ih * h.stride - h.pad + kh * h.dilation;
          if (oh < 0 || oh >= h.out) continue;
          for (int64_t iw = 0; iw < w.in; ++iw) {
            const int64_t ow = iw * w.stride - w.pad + kw * w.dilation;
            if (ow >= 0 && ow < w.out) o[oh * w.out + ow] += src[ih * w.in + iw];
          }
        }
      }
    }
  }
  return true;
}

/// The tensors of a call, whose strides only gathering reads.
struct Operands {
  const Tensor& input;
  const Tensor& weight;
  const Tensor& out;
};

/// s with the operands' strides, worked out only for gathering: the dense paths read none, and on a small layer
/// they took ~0.1 us of a call (the strides' stores reloaded whole: no store-to-load forwarding). One copy for
/// every dtype's gathering (noinline).
__attribute__((noinline)) k::ConvShape with_strides(k::ConvShape s, const Operands& t) {
  s.in = k::strides4_of(t.input);
  s.weight = k::strides4_of(t.weight);
  s.out = k::strides4_of(t.out);
  return s;
}

/// Runs the convolution in the way that suits T and the layout: Float with
/// every tensor dense as matrix products (depthwise too in the size
/// configuration; without scratch, see kDirectWithoutScratch); every other
/// dtype and layout by gathering (conv2d_gather: Double's direct loops
/// would cost 3.4 KB of code in every binary).
template <typename T>
void convolve(KernelRuntimeContext& ctx, bool all_dense, const T* x, const T* weight, const T* bias, T* y,
              const k::ConvShape& s, const Operands& operands) {
  if constexpr (std::is_same<T, float>::value) {
    if (all_dense) {
      const bool done =
          s.transposed ? conv2d_transposed_gemm(ctx, x, weight, bias, y, s.batch, s.in_ch, s.out_ch, s.groups, s.h, s.w)
                       : conv2d_gemm(ctx, x, weight, bias, y, s.batch, s.in_ch, s.out_ch, s.groups, s.h, s.w,
                                     kColumnBudget) ||
                             (kSpecialisedPaths && conv2d_gemm(ctx, x, weight, bias, y, s.batch, s.in_ch, s.out_ch,
                                                               s.groups, s.h, s.w, kShortBudget));
      if (done) return;
      if constexpr (kDirectWithoutScratch) {
        if (s.transposed) {
          k::conv2d_transposed_direct(x, weight, bias, y, s.batch, s.in_ch, s.out_ch, s.groups, s.h, s.w);
        } else {
          k::conv2d_direct(x, weight, bias, y, s.batch, s.in_ch, s.out_ch, s.groups, s.h, s.w);
        }
        return;
      }
    }
  }
  (void)ctx, (void)all_dense;
  k::conv2d_gather<T>(x, weight, bias, y, with_strides(s, operands));
}

}  // namespace

/// Convolution of input [N, C, H, W] (or [N, C, L] for 1-D) with weight
/// [OC, C / groups, KH, KW] and optional bias [OC]; transposed, weight is
/// [C, OC / groups, KH, KW] and output_padding adds to the output size (each
/// entry below stride or dilation). stride, padding, dilation and
/// output_padding take one value for all axes or one per axis. Tensors of
/// one dtype, in any dim order (out in input's: e.g. both channels-last).
/// With all of them laid out densely, Float as matrix products (scratch
/// memory from the runtime's temp allocator; without one, the direct loops
/// in the size configuration); Double, integers, Half, BFloat16, the other
/// layouts and Float without a temp allocator elsewhere gathered through
/// strides. out is resized to [N, OC, OH, OW].
Tensor& convolution_out(KernelRuntimeContext& ctx, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, ArrayRef<int64_t> stride, ArrayRef<int64_t> padding,
                        ArrayRef<int64_t> dilation, bool transposed, ArrayRef<int64_t> output_padding,
                        int64_t groups, Tensor& out) {
  const ssize_t rank = input.dim();
  ET_KERNEL_CHECK_MSG(ctx, (rank == 3 || rank == 4) && weight.dim() == rank, InvalidArgument, out,
                      "convolution.out: input and weight must both be 3-D or 4-D");
  const auto dtype = input.scalar_type();
  ET_KERNEL_CHECK(ctx, weight.scalar_type() == dtype && out.scalar_type() == dtype, InvalidArgument, out);
  ET_KERNEL_CHECK_MSG(ctx,
                      k::valid_dim_order(input) && k::valid_dim_order(weight) && k::same_dim_order(input, out),
                      InvalidArgument, out, "convolution.out: out must have the input's dim order");
  k::ConvShape s = {};  // its strides set only for gathering (with_strides)
  k::Shape shape;
  if (!k::make_conv_shape(ctx, "convolution.out", input, weight, stride, padding, dilation, transposed, output_padding,
                          groups, &s, &shape)) {
    return out;
  }
  if (bias.has_value()) {
    ET_KERNEL_CHECK_MSG(ctx, bias->dim() == 1 && bias->sizes()[0] == s.out_ch && bias->scalar_type() == dtype,
                        InvalidArgument, out, "convolution.out: bias must be [OC] of the input's dtype");
  }
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  if (out.numel() == 0) return out;
  const bool all_dense = k::dense(input) && k::dense(weight) && k::dense(out);
  ET_SWITCH_REALHBF16_TYPES(dtype, ctx, "convolution.out", CTYPE, [&]() {
    convolve<CTYPE>(ctx, all_dense, input.const_data_ptr<CTYPE>(), weight.const_data_ptr<CTYPE>(),
                    bias.has_value() ? bias->const_data_ptr<CTYPE>() : nullptr, out.mutable_data_ptr<CTYPE>(), s,
                    Operands{input, weight, out});
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
