# find_package(etsb CONFIG REQUIRED), with -Detsb_DIR=<etsb>/rules/cmake or
# <etsb>/rules/cmake on CMAKE_PREFIX_PATH. After project(... LANGUAGES CXX), it gives:
#
#   etsb's rules          et_operator_library, merge_yaml, executorch_generated_lib,
#                         et_kernel_library, et_model_binary, et_executorch_tree (rules/etsb.cmake)
#   the seeds' functions  gen_selected_ops, generate_bindings_for_kernels, gen_operators_lib
#                         and merge_yaml(... OUTPUT_DIR) (rules/executorch_codegen.cmake)
#   executorch            the ExecuTorch runtime (libexecutorch.so from the installed wheel,
#                         its headers and flags)
#   portable_kernels      the portable kernel library: ExecuTorch's own, compiled only as far
#                         as each generated library needs, when EXECUTORCH_ROOT is an
#                         ExecuTorch source tree; etsb's otherwise
#   optimized_kernels     with a tree and ETSB_TORCH_INCLUDE (PyTorch's headers): the tree's
#                         optimized kernels, whose yaml is ${ETSB_EXECUTORCH_OPTIMIZED_FUNCTIONS_YAML}
#   EXECUTORCH_ROOT       kept when set (a variable, or the environment's); otherwise etsb's
#                         root, whose kernels/portable/functions.yaml goes with etsb's
#                         portable_kernels, so `${EXECUTORCH_ROOT}/kernels/portable/functions.yaml`
#                         always names the yaml of portable_kernels
#
# Cache variables: those of rules/etsb.cmake (ETSB_PYTHON, EXECUTORCH_RUNTIME, ...).

include("${CMAKE_CURRENT_LIST_DIR}/../executorch_codegen.cmake")

if(NOT TARGET executorch)
  add_library(executorch ALIAS etsb::executorch)
endif()

if(NOT DEFINED EXECUTORCH_ROOT AND DEFINED ENV{EXECUTORCH_ROOT} AND NOT "$ENV{EXECUTORCH_ROOT}" STREQUAL "")
  set(EXECUTORCH_ROOT "$ENV{EXECUTORCH_ROOT}")
endif()
if(NOT DEFINED EXECUTORCH_ROOT OR EXECUTORCH_ROOT STREQUAL "")
  set(EXECUTORCH_ROOT "${ETSB_ROOT}")
endif()
cmake_path(ABSOLUTE_PATH EXECUTORCH_ROOT BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)

if(NOT TARGET portable_kernels)
  if(EXECUTORCH_ROOT STREQUAL ETSB_ROOT)
    add_library(portable_kernels ALIAS etsb_portable_kernels)
  elseif(IS_DIRECTORY "${EXECUTORCH_ROOT}/kernels/portable/cpu")
    et_executorch_tree(ROOT "${EXECUTORCH_ROOT}")
    add_library(portable_kernels ALIAS executorch_portable_kernels)
    if(TARGET executorch_optimized_kernels AND NOT TARGET optimized_kernels)
      add_library(optimized_kernels ALIAS executorch_optimized_kernels)
    endif()
  else()
    message(FATAL_ERROR "etsb: EXECUTORCH_ROOT '${EXECUTORCH_ROOT}' is not an ExecuTorch source tree (it has no "
      "kernels/portable/cpu/ beside kernels/portable/functions.yaml): point it at a checkout, or leave it unset "
      "for etsb's own portable kernels")
  endif()
endif()

set(etsb_FOUND TRUE)
