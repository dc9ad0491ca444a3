// aten::_adaptive_avg_pool2d.out: average pooling to a given output size.
#include "util/unary_util.h"

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "_adaptive_avg_pool2d.out";  // the switch name
}  // namespace

/// out[..., i, j] = the mean of the input rows floor(i * H / OH) to
/// ceil((i + 1) * H / OH) and likewise for columns, over the last two dims of
/// a 3-D or 4-D contiguous input with non-zero H and W; output_size is
/// [OH, OW]. Floating dtypes (Half and BFloat16 summing in float); out has
/// the input's dtype and is resized.
Tensor& _adaptive_avg_pool2d_out(KernelRuntimeContext& ctx, const Tensor& self, ArrayRef<int64_t> output_size,
                                 Tensor& out) {
  const ssize_t rank = self.dim();
  ET_KERNEL_CHECK_MSG(ctx, (rank == 3 || rank == 4) && output_size.size() == 2, InvalidArgument, out,
                      "%s: input must be 3-D or 4-D and output_size 2 values", kName);
  const int64_t h = self.sizes()[rank - 2];
  const int64_t w = self.sizes()[rank - 1];
  ET_KERNEL_CHECK_MSG(ctx, h > 0 && w > 0 && k::size_like(output_size[0], 0) && k::size_like(output_size[1], 0),
                      InvalidArgument, out, "%s: empty input plane or invalid output size", kName);
  ET_KERNEL_CHECK_MSG(ctx, k::is_floating(self.scalar_type()) && out.scalar_type() == self.scalar_type(),
                      InvalidArgument, out, "%s: floating input, out of the same dtype", kName);
  ET_KERNEL_CHECK(ctx, k::is_contiguous(self) && k::is_contiguous(out), InvalidArgument, out);
  k::Shape shape = k::shape_of(self);
  const int64_t oh = output_size[0];
  const int64_t ow = output_size[1];
  shape.sizes[rank - 2] = static_cast<::executorch::aten::SizesType>(oh);
  shape.sizes[rank - 1] = static_cast<::executorch::aten::SizesType>(ow);
  ET_KERNEL_CHECK(ctx, k::resize_to(out, shape), InvalidArgument, out);
  const int64_t planes = k::size_product(self.sizes(), 0, rank - 2);
  ET_SWITCH_FLOATHBF16_TYPES(self.scalar_type(), ctx, kName, CTYPE, [&]() {
    using CT = k::float_compute_t<CTYPE>;
    const CTYPE* in = self.const_data_ptr<CTYPE>();
    CTYPE* result = out.mutable_data_ptr<CTYPE>();
    for (int64_t p = 0; p < planes; ++p) {
      const CTYPE* x = in + p * h * w;
      for (int64_t i = 0; i < oh; ++i) {
        const int64_t h0 = i * h / oh;
        const int64_t h1 = ((i + 1) * h + oh - 1) / oh;
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t w0 = j * w / ow;
          const int64_t w1 = ((j + 1) * w + ow - 1) / ow;
          CT sum = 0;
          for (int64_t r = h0; r < h1; ++r) {
            for (int64_t c = w0; c < w1; ++c) sum += static_cast<CT>(x[r * w + c]);
          }
          result[(p * oh + i) * ow + j] = static_cast<CTYPE>(sum / static_cast<CT>((h1 - h0) * (w1 - w0)));
        }
      }
    }
  });
  return out;
}

}  // namespace native
}  // namespace executor
}  // namespace torch
