// The p-norm distance between two vectors, shared by cdist and pdist.
#pragma once

#include "kernel_util.h"

#include <cmath>
#include <limits>

namespace etsb {
namespace kernels {

/// ||a - b||_p over n elements (a and b contiguous), computed in CT as ATen
/// defines it: p = 0 counts the differing elements, p = inf takes the largest
/// difference, p = 1 and 2 are the usual norms, any other p >= 0 is
/// (sum |a_i - b_i|^p)^(1/p). n = 0 gives 0.
template <typename CT, typename T>
inline CT p_distance(const T* a, const T* b, int64_t n, double p) {
  CT acc = 0;
  const CT pc = static_cast<CT>(p);
  const bool inf = std::isinf(p);
  for (int64_t i = 0; i < n; ++i) {
    const CT d = std::fabs(static_cast<CT>(a[i]) - static_cast<CT>(b[i]));
    if (p == 0) {
      acc += d != 0 ? CT(1) : CT(0);
    } else if (inf) {
      acc = d > acc || std::isnan(d) ? d : acc;
    } else if (p == 1) {
      acc += d;
    } else if (p == 2) {
      acc += d * d;
    } else {
      acc += std::pow(d, pc);
    }
  }
  if (p == 0 || p == 1 || inf) return acc;
  if (p == 2) return std::sqrt(acc);
  return std::pow(acc, CT(1) / pc);
}

}  // namespace kernels
}  // namespace etsb
