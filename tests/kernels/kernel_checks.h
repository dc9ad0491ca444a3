// What the kernel-level checks of etsb's portable kernels share: the
// generated declarations of the kernels, the check harness, the shorthands the
// checks are written with, and the check functions of each operator family
// (kernel_checks_<family>.cpp), which kernel_checks.cpp's main calls.
#pragma once

#include "CustomOpsNativeFunctions.h"
#include "NativeFunctions.h"
#include "check_harness.h"

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>

using ::executorch::aten::ArrayRef;
using ::executorch::aten::Scalar;
using ::executorch::aten::ScalarType;
using ::executorch::aten::Tensor;
using ::executorch::aten::TensorImpl;
using ::executorch::aten::TensorShapeDynamism;
using ::executorch::runtime::Error;
using ::torch::executor::KernelRuntimeContext;
namespace native = ::torch::executor::native;

constexpr auto F = ScalarType::Float;
constexpr auto D = ScalarType::Double;
constexpr auto L = ScalarType::Long;
constexpr auto I = ScalarType::Int;
constexpr auto B = ScalarType::Bool;
constexpr auto DYN = TensorShapeDynamism::DYNAMIC_BOUND;

inline ArrayRef<int64_t> ints(const int64_t* data, size_t n) { return ArrayRef<int64_t>(data, n); }

// kernel_checks_binary.cpp
void check_add();
void check_sub();
void check_mul();
void check_div();
void check_gt();
void check_where();
void check_integer_overflow_wraps();
void check_compare_and_logic();
void check_binary_tensor_ops();
void check_bitwise_and_division_family();

// kernel_checks_unary.cpp
void check_relu();
void check_neg();
void check_scalar_arithmetic();
void check_scalar_overflow();
void check_complex_add_and_refusals();
void check_unary_math();
void check_gelu_special_values();
void check_rounding_and_activations();
void check_unary_batch();

// kernel_checks_reductions.cpp
void check_sum();
void check_mean();
void check_softmax();
void check_reductions_and_scans();
void check_reduction_batch();

// kernel_checks_spatial.cpp
void check_addmm();
void check_bmm();
void check_convolution();
void check_max_pool2d();
void check_layer_norm();
void check_batch_norm_pool_mm();
void check_resampling_and_group_norm();
void check_distances_and_batch_norm_training();
void check_sampling_and_backward();

// kernel_checks_shapes.cpp
void check_permute_copy();
void check_expand_copy();
void check_split_with_sizes_copy();
void check_to_dim_order_copy();
void check_reshapes();
void check_select_slice();
void check_cat_pad_copy();
void check_topk_and_padding();

// kernel_checks_views.cpp
void check_plain_copies();
void check_view_copies();
void check_split_unbind();
void check_stack_repeat_roll_tril();
void check_shuffle_interleave_complex();

// kernel_checks_indexing.cpp
void check_embedding();
void check_indexing();
void check_index_put_and_copy_();
void check_embedding_bag();
void check_masked_and_nonzero();
void check_scatter_family();

// kernel_checks_creation.cpp
void check_creation();
void check_creation_batch();
void check_random_and_device_copies();
