// aten::logit.out: out = log(p / (1 - p)), p = self clamped to [eps, 1 - eps]
// when eps is given.
#include "util/unary_util.h"

#include <cmath>
#include <optional>

namespace torch {
namespace executor {
namespace native {

using ::executorch::aten::Tensor;
namespace k = ::etsb::kernels;

namespace {
constexpr char kName[] = "logit.out";  // the switch name
}  // namespace

/// out = log(p / (1 - p)) with p = self, clamped to [eps, 1 - eps] first
/// when eps is given; 0 and 1 give -inf and inf, outside [0, 1] NaN (see
/// float_unary_out: integral and Bool inputs give Float).
Tensor& logit_out(KernelRuntimeContext& ctx, const Tensor& self, std::optional<double> eps, Tensor& out) {
  const bool clamp = eps.has_value();
  const double e = clamp ? *eps : 0.0;
  return k::float_unary_out<kName>(ctx, self, out, [clamp, e](auto x) {
    using CT = decltype(x);
    if (clamp) {
      const CT low = static_cast<CT>(e);
      const CT high = static_cast<CT>(1.0 - e);
      x = x < low ? low : (x > high ? high : x);  // NaN passes through
    }
    return std::log(x / (CT(1) - x));
  });
}

}  // namespace native
}  // namespace executor
}  // namespace torch
