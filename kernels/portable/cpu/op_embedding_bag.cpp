// aten::_embedding_bag.out: sums, means or maxima of bags of embedding rows.
#include "util/index_util.h"
#include "util/unary_util.h"

#include <optional>
#include <tuple>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {

using Outputs = std::tuple<Tensor&, Tensor&, Tensor&, Tensor&>;
constexpr char kName[] = "_embedding_bag.out";  // the switch name
constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

/// Resizes a Long output to `sizes` where it can take that shape, and fills
/// it with `value`; false if it is not Long. An exported program plans these
/// outputs with the shapes of torch's meta function, which differ from its CPU
/// kernel's in some modes: a static out keeps its planned shape (the outputs
/// only serve the backward pass).
bool fill_long(const Tensor& out, std::initializer_list<int64_t> sizes, int64_t value) {
  if (out.scalar_type() != ScalarType::Long) return false;
  k::Shape shape;
  for (const int64_t s : sizes) shape.push(s);
  const bool resized = k::resize_to(out, shape);
  (void)resized;  // kept as planned otherwise (see above)
  int64_t* data = out.mutable_data_ptr<int64_t>();
  for (ssize_t i = 0; i < out.numel(); ++i) data[i] = value;
  return true;
}

/// Whether a Long output has exactly `sizes` (what fill_long tried to give it).
bool has_shape(const Tensor& t, std::initializer_list<int64_t> sizes) {
  if (static_cast<size_t>(t.dim()) != sizes.size()) return false;
  size_t d = 0;
  for (const int64_t s : sizes) {
    if (t.sizes()[d++] != s) return false;
  }
  return true;
}

}  // namespace

/// out0[b] = the sum (mode 0), mean (1) or elementwise maximum (2) of the
/// weight rows indices[offsets[b] : offsets[b + 1]] (the last bag runs to the
/// end of indices; with include_last_offset the last offset only closes the
/// list), skipping indices equal to padding_idx (negative: none), each row
/// scaled by per_sample_weights[i] if given (sum only); an empty bag gives
/// zeros. The other outputs are ATen's CPU ones, all Long: offset2bag (the
/// bag of each index; empty for a sum without padding_idx), bag_size (the
/// rows counted per bag; zeros for a sum) and max_indices (per bag and
/// column, the row that won, for max; bag_size for mean; zeros for sum).
/// weight [V, D] floating (Half and BFloat16 computing in float), indices and
/// offsets 1-D Long or Int; offsets start at 0 and never decrease; an index
/// outside [0, V) fails the call. scale_grad_by_freq and sparse only matter
/// for gradients and are ignored.
Outputs _embedding_bag_out(KernelRuntimeContext& ctx, const Tensor& weight, const Tensor& indices,
                           const Tensor& offsets, bool scale_grad_by_freq, int64_t mode, bool sparse,
                           const std::optional<Tensor>& per_sample_weights, bool include_last_offset,
                           int64_t padding_idx, Tensor& out0, Tensor& out1, Tensor& out2, Tensor& out3) {
  (void)scale_grad_by_freq;
  (void)sparse;
  Outputs outs(out0, out1, out2, out3);
  ET_KERNEL_CHECK_MSG(ctx, weight.dim() == 2 && k::is_floating(weight.scalar_type()) &&
                               out0.scalar_type() == weight.scalar_type(),
                      InvalidArgument, outs, "%s: weight must be a 2-D floating tensor, out0 of its dtype", kName);
  ET_KERNEL_CHECK_MSG(ctx, indices.dim() == 1 && offsets.dim() == 1 && k::is_index_dtype(indices.scalar_type()) &&
                               k::is_index_dtype(offsets.scalar_type()),
                      InvalidArgument, outs, "%s: indices and offsets must be 1-D Long or Int tensors", kName);
  ET_KERNEL_CHECK_MSG(ctx, mode == kSum || mode == kMean || mode == kMax, InvalidArgument, outs,
                      "%s: mode %" PRId64 " is not 0 (sum), 1 (mean) or 2 (max)", kName, mode);
  const int64_t count = indices.numel();
  const bool weighted = per_sample_weights.has_value();
  ET_KERNEL_CHECK_MSG(ctx, !weighted || (mode == kSum && per_sample_weights->dim() == 1 &&
                                         per_sample_weights->numel() == count &&
                                         per_sample_weights->scalar_type() == weight.scalar_type()),
                      InvalidArgument, outs,
                      "%s: per_sample_weights must be [indices] of weight's dtype, sum mode only", kName);
  const int64_t n_offsets = offsets.numel();
  const int64_t bags = n_offsets - (include_last_offset ? 1 : 0);
  ET_KERNEL_CHECK_MSG(ctx, bags >= 0 && (n_offsets == 0 || k::index_at(offsets, 0) == 0), InvalidArgument, outs,
                      "%s: offsets must start at 0", kName);
  for (int64_t b = 1; b < n_offsets; ++b) {
    const int64_t at = k::index_at(offsets, b);
    ET_KERNEL_CHECK_MSG(ctx, at >= k::index_at(offsets, b - 1) && at <= count, InvalidArgument, outs,
                        "%s: offsets must not decrease nor pass the end of indices", kName);
  }
  const int64_t rows = weight.sizes()[0];
  const int64_t dim = weight.sizes()[1];
  const k::Shape out_shape = [&] {
    k::Shape s;
    s.push(bags);
    s.push(dim);
    return s;
  }();
  ET_KERNEL_CHECK(ctx, k::resize_to(out0, out_shape) && k::is_contiguous(weight) && k::is_contiguous(out0),
                  InvalidArgument, outs);
  // The auxiliary outputs, shaped as ATen's CPU kernel shapes them.
  const bool offset2bag_empty = mode == kSum && padding_idx < 0;
  ET_KERNEL_CHECK_MSG(ctx,
                      fill_long(out1, {offset2bag_empty ? 0 : count}, 0) && fill_long(out2, {bags}, 0) &&
                          (mode == kMax ? fill_long(out3, {bags, dim}, 0) : fill_long(out3, {bags}, 0)),
                      InvalidArgument, outs, "%s: offset2bag, bag_size and max_indices must be Long", kName);
  // Each auxiliary output is written only where it took ATen's CPU shape.
  int64_t* offset2bag = has_shape(out1, {count}) ? out1.mutable_data_ptr<int64_t>() : nullptr;
  int64_t* bag_size = has_shape(out2, {bags}) ? out2.mutable_data_ptr<int64_t>() : nullptr;
  int64_t* max_indices = mode == kMax ? (has_shape(out3, {bags, dim}) ? out3.mutable_data_ptr<int64_t>() : nullptr)
                                      : (has_shape(out3, {bags}) ? out3.mutable_data_ptr<int64_t>() : nullptr);
  ET_SWITCH_FLOATHBF16_TYPES(weight.scalar_type(), ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* table = weight.const_data_ptr<CTYPE>();
    const CTYPE* scales = weighted ? per_sample_weights->const_data_ptr<CTYPE>() : nullptr;
    CTYPE* result = out0.mutable_data_ptr<CTYPE>();
    for (int64_t b = 0; b < bags; ++b) {
      const int64_t begin = k::index_at(offsets, b);
      const int64_t end = b + 1 < bags ? k::index_at(offsets, b + 1) : count;
      CTYPE* row = result + b * dim;
      for (int64_t j = 0; j < dim; ++j) row[j] = CTYPE(0);
      int64_t taken = 0;
      for (int64_t i = begin; i < end; ++i) {
        const int64_t index = k::index_at(indices, i);
        ET_KERNEL_CHECK_MSG(ctx, index >= 0 && index < rows, InvalidArgument, ,
                            "%s: index %" PRId64 " out of range [0, %" PRId64 ")", kName, index, rows);
        if (!offset2bag_empty && offset2bag != nullptr) offset2bag[i] = b;
        if (index == padding_idx) continue;
        const CTYPE* src = table + index * dim;
        for (int64_t j = 0; j < dim; ++j) {
          const CT v = static_cast<CT>(src[j]) * (scales != nullptr ? static_cast<CT>(scales[i]) : CT(1));
          if (mode != kMax) {
            row[j] = static_cast<CTYPE>(static_cast<CT>(row[j]) + v);
          } else if (taken == 0 || v > static_cast<CT>(row[j])) {
            row[j] = static_cast<CTYPE>(v);
            if (max_indices != nullptr) max_indices[b * dim + j] = index;
          }
        }
        ++taken;
      }
      if (mode == kSum) continue;
      if (bag_size != nullptr) bag_size[b] = taken;
      if (mode == kMean) {
        if (max_indices != nullptr) max_indices[b] = taken;
        for (int64_t j = 0; taken > 0 && j < dim; ++j) {
          row[j] = static_cast<CTYPE>(static_cast<CT>(row[j]) / static_cast<CT>(taken));
        }
      }
    }
  });
  return outs;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
