// The check harness of the kernel-level checks (kernel_checks*.cpp for the
// portable kernels, llm_checks.cpp for the LLM ones): counters, CHECK and the
// EXPECT_KERNEL_* macros that call a kernel with a fresh context, value
// comparison, and tensors over caller-owned stack arrays.
//
// The counters are inline variables: a check program may be several
// translation units, all counting into the same ones. Its main ends with
// `return report();`.
#pragma once

#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>

inline int g_checks = 0;
inline int g_failed = 0;

#define CHECK(cond)                                                 \
  do {                                                              \
    ++g_checks;                                                     \
    if (!(cond)) {                                                  \
      ++g_failed;                                                   \
      std::printf("FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
    }                                                               \
  } while (0)

/// Runs a kernel call with a fresh context `ctx` and checks that it failed
/// through the context (and returned: a crash would end the program).
#define EXPECT_KERNEL_FAILS(call)                                                   \
  do {                                                                              \
    ::torch::executor::KernelRuntimeContext ctx;                                    \
    (void)(call);                                                                   \
    ++g_checks;                                                                     \
    if (ctx.failure_state() == ::executorch::runtime::Error::Ok) {                  \
      ++g_failed;                                                                   \
      std::printf("FAILED %s:%d: no failure from %s\n", __FILE__, __LINE__, #call); \
    }                                                                               \
  } while (0)

/// Runs a kernel call with a fresh context `ctx` and checks that it succeeded.
#define EXPECT_KERNEL_OK(call)                                                    \
  do {                                                                            \
    ::torch::executor::KernelRuntimeContext ctx;                                  \
    (void)(call);                                                                 \
    ++g_checks;                                                                   \
    if (ctx.failure_state() != ::executorch::runtime::Error::Ok) {                \
      ++g_failed;                                                                 \
      std::printf("FAILED %s:%d: error 0x%x from %s\n", __FILE__, __LINE__,       \
                  static_cast<unsigned>(ctx.failure_state()), #call);             \
    }                                                                             \
  } while (0)

/// The summary line the tests read; the exit status (1 if any check failed).
inline int report() {
  std::printf("%d checks, %d failed\n", g_checks, g_failed);
  return g_failed == 0 ? 0 : 1;
}

/// Whether `actual` is within `tol`, relative to `expected` (absolute near zero).
template <typename T, typename U>
bool near(T actual, U expected, double tol = 1e-5) {
  const double a = static_cast<double>(actual);
  const double e = static_cast<double>(expected);
  return std::fabs(a - e) <= tol * (1 + std::fabs(e));
}

/// Whether data[0..n) equals `expected` (within tolerance for floats).
template <typename T>
bool values_are(const T* data, std::initializer_list<double> expected, double tol = 1e-5) {
  size_t i = 0;
  for (double e : expected) {
    if (!near(data[i], e, tol)) {
      std::printf("  value %zu: got %g, expected %g\n", i, static_cast<double>(data[i]), e);
      return false;
    }
    ++i;
  }
  return true;
}

/// Sizes, a dim order (contiguous unless given) and matching strides.
struct Layout {
  ::executorch::aten::SizesType sizes[16];
  ::executorch::aten::DimOrderType order[16];
  ::executorch::aten::StridesType strides[16];
  ssize_t dim;
  Layout(std::initializer_list<int> shape, std::initializer_list<int> dim_order) : dim(shape.size()) {
    int i = 0;
    for (int s : shape) sizes[i++] = s;
    i = 0;
    if (dim_order.size() == 0) {
      for (; i < dim; ++i) order[i] = static_cast<::executorch::aten::DimOrderType>(i);
    } else {
      for (int d : dim_order) order[i++] = static_cast<::executorch::aten::DimOrderType>(d);
    }
    ::executorch::aten::StridesType running = 1;
    for (ssize_t k = dim - 1; k >= 0; --k) {
      strides[order[k]] = running;
      running *= sizes[order[k]];
    }
  }
};

/// A tensor of `shape` over caller-owned `data`, contiguous or of dim order
/// `dim_order`. DYNAMIC_BOUND tensors may be resized by kernels up to their
/// initial element count.
struct TT : Layout {
  ::executorch::aten::TensorImpl impl;
  TT(::executorch::aten::ScalarType type, std::initializer_list<int> shape, void* data,
     ::executorch::aten::TensorShapeDynamism dynamism = ::executorch::aten::TensorShapeDynamism::STATIC,
     std::initializer_list<int> dim_order = {})
      : Layout(shape, dim_order), impl(type, dim, sizes, data, order, strides, dynamism) {}
  TT(::executorch::aten::ScalarType type, std::initializer_list<int> shape, void* data,
     std::initializer_list<int> dim_order)
      : TT(type, shape, data, ::executorch::aten::TensorShapeDynamism::STATIC, dim_order) {}
  ::executorch::aten::Tensor t() { return ::executorch::aten::Tensor(&impl); }
};
