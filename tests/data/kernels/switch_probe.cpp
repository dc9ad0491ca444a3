// A kernel-shaped function with an ET_SWITCH over the real dtypes, named like
// neg.out's switch: compiled with and without selected_op_variants.h to show
// that unselected dtype cases are dropped.
#include <executorch/runtime/kernel/kernel_includes.h>

void probe_neg(::torch::executor::KernelRuntimeContext& ctx, ::executorch::aten::ScalarType dtype, void* data, long n) {
  ET_SWITCH_REALHBBF16_TYPES(dtype, ctx, "neg.out", CTYPE, [&]() {
    CTYPE* values = static_cast<CTYPE*>(data);
    for (long i = 0; i < n; ++i) {
      values[i] = static_cast<CTYPE>(-static_cast<double>(values[i]) * 3 + static_cast<double>(i % 7));
    }
  });
}
