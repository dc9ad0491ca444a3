// Kernel-level checks of etsb's portable kernels (kernels/portable/cpu),
// calling them directly with tensors built from TensorImpl over stack arrays.
//
// For every operator: at least one bad call (wrong shape, dtype or dim) that
// must set the context's failure state without crashing, and correct-value
// checks, including broadcasting and output resizing, one file per operator
// family (kernel_checks_<family>.cpp, declared in kernel_checks.h), all linked
// into one program. Built and run by tests/test_kernel_checks.py, which
// generates NativeFunctions.h from kernels/portable/functions.yaml, so the
// declarations called here are the ones the yaml promises.
//
// Prints one line per failed check and a summary; exits 1 if any check failed.
#include "kernel_checks.h"

#include <executorch/runtime/platform/runtime.h>

int main() {
  ::executorch::runtime::runtime_init();
  check_integer_overflow_wraps();
  check_add();
  check_sub();
  check_mul();
  check_div();
  check_relu();
  check_neg();
  check_gt();
  check_where();
  check_sum();
  check_mean();
  check_addmm();
  check_bmm();
  check_convolution();
  check_max_pool2d();
  check_softmax();
  check_layer_norm();
  check_permute_copy();
  check_expand_copy();
  check_split_with_sizes_copy();
  check_embedding();
  check_to_dim_order_copy();
  check_reshapes();
  check_select_slice();
  check_cat_pad_copy();
  check_indexing();
  check_index_put_and_copy_();
  check_creation();
  check_compare_and_logic();
  check_scalar_arithmetic();
  check_scalar_overflow();
  check_complex_add_and_refusals();
  check_unary_math();
  check_gelu_special_values();
  check_batch_norm_pool_mm();
  check_binary_tensor_ops();
  check_rounding_and_activations();
  check_reductions_and_scans();
  check_resampling_and_group_norm();
  check_embedding_bag();
  check_bitwise_and_division_family();
  check_unary_batch();
  check_reduction_batch();
  check_creation_batch();
  check_masked_and_nonzero();
  check_scatter_family();
  check_topk_and_padding();
  check_random_and_device_copies();
  check_distances_and_batch_norm_training();
  check_sampling_and_backward();
  check_plain_copies();
  check_view_copies();
  check_split_unbind();
  check_stack_repeat_roll_tril();
  check_shuffle_interleave_complex();
  return report();
}
