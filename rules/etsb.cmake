# etsb's rules for CMake: the rules of rules/executorch.bzl, same names, same
# attributes (upper-cased), same generated files.
#
#   cmake_minimum_required(VERSION 3.20)
#   project(app LANGUAGES CXX)
#   include(<etsb>/rules/etsb.cmake)
#   et_model_binary(NAME bin MODEL model.pte)
#
# Rules:
#   et_operator_library       which operators (dtypes, dim orders) to build: selected_operators.yaml
#   merge_yaml                a vendor kernel yaml over a fallback yaml: merged.yaml
#   executorch_generated_lib  selection resolved to kernels, registration generated and compiled
#   et_kernel_library         a library of kernels (recompilable for dtype-selective builds)
#   et_model_binary           the model runner linked with exactly the kernels a model needs
#   et_backend_library, et_executorch_tree (a source tree's kernels)
# Each is defined, with its documentation, in rules/private/etsb_<rule>.cmake
# (executorch_generated_lib in etsb_generated_lib.cmake and etsb_generated_sources.cmake,
# its selection made when configuring in etsb_configure_selection.cmake,
# et_backend_library beside et_kernel_library, et_executorch_tree in etsb_tree.cmake);
# the catalogue, the kernel libraries an et_model_binary naming none takes, in
# etsb_catalogue.cmake.
#
# Cache variables:
#   ETSB_PYTHON           the Python that runs etsb's tool (default: <etsb>/.venv/bin/python)
#   EXECUTORCH_RUNTIME    the executorch wheel's directory, holding include/ and
#                         lib/libexecutorch.so (default: asked from ETSB_PYTHON)
#   ETSB_CONFIG           the build configuration, as the driver's --config: default (-O2, a
#                         section per function) or size (the smallest binary: -Os, no exceptions,
#                         RTTI or logging; model binaries link the deploy runner). Its flags, and
#                         those of the platform, are the driver's (`etsb cmake-platform`)
#   ETSB_COMPILE_OPTIONS  more flags of every C++ target the rules make, after those of the
#                         platform and ETSB_CONFIG (default: none)
#   ETSB_LINK_OPTIONS     more flags of every binary the rules link, after those of the
#                         platform and ETSB_CONFIG (default: -Wl,--gc-sections)
#   ETSB_PLATFORM         the platform, as the driver's --platform: host (the default),
#                         aarch64-linux, cortex-m55, cortex-m4 or cortex-m33; etsb's toolchain files set it
#                         (<etsb --cmakedir>/toolchains/aarch64-linux-gnu.cmake, cortex-m55.cmake, ...)
#   ETSB_TORCH_INCLUDE    PyTorch's C++ headers, for an ExecuTorch tree's optimized kernels
#                         (et_executorch_tree defines them only when it is set)
#   CMSIS_NN_ROOT         a CMSIS-NN source tree (else the environment's CMSIS_NN_ROOT, else
#                         cmsis-nn beside the ExecuTorch tree), for the tree's Cortex-M kernels
#
# Defined for the including directory:
#   ETSB_ROOT                      the etsb repository
#   ETSB_PORTABLE_FUNCTIONS_YAML   etsb's portable kernel yaml (kernels/portable/functions.yaml)
#   ETSB_QUANTIZED_CUSTOM_OPS_YAML etsb's quantized kernel yaml (kernels/quantized/quantized.yaml, a
#                                  CUSTOM_OPS_YAML_TARGET for int8 programs' quantized_decomposed ops)
#   ETSB_LLM_CUSTOM_OPS_YAML       etsb's LLM kernel yaml (kernels/llm/functions.yaml: llama::custom_sdpa,
#                                  sdpa_with_kv_cache, update_cache)
#   ETSB_RUNNER_SOURCE             tools/runner/runner.cpp, the `main` of model binaries
# and, once, the targets etsb::executorch (the runtime, imported),
# etsb_portable_kernels (the portable kernels, an et_kernel_library),
# etsb_quantized_kernels (the quantized kernels, likewise), etsb_llm_kernels
# (the LLM kernels, likewise) and
# etsb_runner (the runner compiled with -DETSB_MODEL_ENTRY, an object library
# whose users link ExecuTorch's thread pool, the property ETSB_THREADPOOL_LIBRARY);
# with the first rule of RUNTIME static, etsb_tree_runtime_core (ExecuTorch's
# runtime compiled from the tree, rules/private/etsb_deploy.cmake) and what a
# binary of your own links to run on it, etsb_tree_runtime (every prim op) or
# etsb_tree_runtime_without_prim_ops (rules/private/etsb_tree.cmake).
#
# Arguments name files (relative to the calling directory's sources) or
# targets made earlier by these rules; a target must be defined before a rule
# names it. Generated files go under ${CMAKE_CURRENT_BINARY_DIR}/<NAME>/. A
# mistake in a call stops the configuration with a message naming the rule,
# the target and the argument; CMake adds the CMakeLists.txt line. Operator
# names, ops dicts and backend ids are read by etsb's tool while configuring
# (`etsb check-attrs`, the parsers the build's commands use).

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "etsb.cmake needs CMake 3.20 or newer (this is ${CMAKE_VERSION})")
endif()

cmake_path(GET CMAKE_CURRENT_LIST_DIR PARENT_PATH ETSB_ROOT)
set(ETSB_PORTABLE_FUNCTIONS_YAML "${ETSB_ROOT}/kernels/portable/functions.yaml")
set(ETSB_QUANTIZED_CUSTOM_OPS_YAML "${ETSB_ROOT}/kernels/quantized/quantized.yaml")
set(ETSB_LLM_CUSTOM_OPS_YAML "${ETSB_ROOT}/kernels/llm/functions.yaml")
set(ETSB_RUNNER_SOURCE "${ETSB_ROOT}/tools/runner/runner.cpp")

include_guard(GLOBAL)

get_property(_etsb_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "CXX" IN_LIST _etsb_languages)
  message(FATAL_ERROR "etsb.cmake: include it after project(... LANGUAGES CXX): its rules compile C++")
endif()
# CMSIS-NN, under ExecuTorch's Cortex-M kernels, is C (enabled here: a file's scope).
if(NOT "C" IN_LIST _etsb_languages)
  enable_language(C)
endif()

include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_internal.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_deploy.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_tree.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_operator_library.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_merge_yaml.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_kernel_library.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_generated_lib.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_generated_sources.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_configure_selection.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_model_binary.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_catalogue.cmake")

# The default Python: a checkout's .venv, else the one an installed etsb (a
# wheel: ETSB_ROOT is <site-packages>/selective_build/_root) was installed into.
set(_etsb_python "${ETSB_ROOT}/.venv/bin/python")
if(NOT EXISTS "${_etsb_python}")
  cmake_path(GET ETSB_ROOT PARENT_PATH _etsb_prefix)  # selective_build
  foreach(_etsb_up RANGE 1 4)                          # site-packages, python3.X, lib, the prefix
    cmake_path(GET _etsb_prefix PARENT_PATH _etsb_prefix)
  endforeach()
  foreach(_etsb_candidate "${_etsb_prefix}/bin/python3" "${_etsb_prefix}/bin/python")
    if(EXISTS "${_etsb_candidate}")
      set(_etsb_python "${_etsb_candidate}")
      break()
    endif()
  endforeach()
  if(NOT EXISTS "${_etsb_python}")
    # A user install (~/.local) or a system one: the python3 on PATH.
    find_program(_etsb_path_python NAMES python3 python)
    if(_etsb_path_python)
      set(_etsb_python "${_etsb_path_python}")
    endif()
  endif()
endif()
set(ETSB_PYTHON "${_etsb_python}" CACHE FILEPATH "the Python that runs etsb's tool (and finds the executorch wheel)")
set(EXECUTORCH_RUNTIME "" CACHE PATH "the executorch wheel's directory (include/, lib/libexecutorch.so); empty: ask ETSB_PYTHON")
set(ETSB_CONFIG "default" CACHE STRING "the build configuration, as etsb build --config: default or size")
set(ETSB_COMPILE_OPTIONS "" CACHE STRING "more compile flags of the C++ targets etsb's rules make (after ETSB_CONFIG's)")
set(ETSB_LINK_OPTIONS "-Wl,--gc-sections" CACHE STRING "more link flags of the binaries etsb's rules make (after ETSB_CONFIG's)")
set(ETSB_TORCH_INCLUDE "" CACHE PATH "PyTorch's C++ headers (<site-packages>/torch/include), which an ExecuTorch tree's optimized kernels need; empty: no optimized kernels")

if(NOT EXISTS "${ETSB_PYTHON}")
  message(FATAL_ERROR "etsb: ETSB_PYTHON '${ETSB_PYTHON}' does not exist: pass -DETSB_PYTHON=<the Python etsb is installed in> (in etsb's checkout, scripts/setup.sh makes .venv)")
endif()
file(GLOB_RECURSE _etsb_tool_inputs "${ETSB_ROOT}/tools/selective_build/*.py"
     "${ETSB_ROOT}/tools/selective_build/data/*.yaml")
set_property(GLOBAL PROPERTY ETSB_ROOT "${ETSB_ROOT}")
set_property(GLOBAL PROPERTY ETSB_PYTHON_EXE "${ETSB_PYTHON}")
set_property(GLOBAL PROPERTY ETSB_TOOL "${ETSB_ROOT}/tools/selective_build/__main__.py")
set_property(GLOBAL PROPERTY ETSB_TOOL_INPUTS "${_etsb_tool_inputs}")
_etsb_find_runtime()
_etsb_choose_platform()

# etsb_portable_kernels: etsb's portable kernels, the default KERNEL_DEPS (built only when used).
# SELECTIVE, as the driver and Bazel take them: a generated library compiles
# only the sources its kernels need (before, a dtype-selective MLP compiled
# all of them again for its dtypes).
function(_etsb_portable_kernels)
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  file(GLOB srcs "${ETSB_ROOT}/kernels/portable/cpu/op_*.cpp" "${ETSB_ROOT}/kernels/portable/cpu/util/*.cpp")
  file(GLOB hdrs "${ETSB_ROOT}/kernels/portable/cpu/util/*.h" "${ETSB_ROOT}/kernels/portable/cpu/util/*.inc")
  et_kernel_library(NAME etsb_portable_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs})
endfunction()

# etsb_quantized_kernels: etsb's quantized_decomposed kernels (built only when used), SELECTIVE too;
# a binary lists them in KERNEL_DEPS beside a portable library, ETSB_QUANTIZED_CUSTOM_OPS_YAML as its
# CUSTOM_OPS_YAML_TARGET.
function(_etsb_quantized_kernels)
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  file(GLOB srcs "${ETSB_ROOT}/kernels/quantized/cpu/op_*.cpp")
  file(GLOB hdrs "${ETSB_ROOT}/kernels/quantized/cpu/util/*.h")
  et_kernel_library(NAME etsb_quantized_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs})
endfunction()

# etsb_llm_kernels: etsb's llama:: kernels (built only when used), SELECTIVE too; a binary
# lists them in KERNEL_DEPS beside a portable library, ETSB_LLM_CUSTOM_OPS_YAML as its
# CUSTOM_OPS_YAML_TARGET (or takes them from the catalogue, naming no library).
function(_etsb_llm_kernels)
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  file(GLOB srcs "${ETSB_ROOT}/kernels/llm/cpu/op_*.cpp")
  file(GLOB hdrs "${ETSB_ROOT}/kernels/llm/cpu/util/*.h")
  et_kernel_library(NAME etsb_llm_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs})
endfunction()

# ExecuTorch's thread pool from the runtime wheel (libexecutorch_threadpool.so,
# extension/threadpool over pthreadpool), copied beside the build tree's
# libexecutorch.so: the development runner on the wheel's runtime links it,
# so that `--threads N` runs etsb's matrix products on N threads
# (kernels/portable/cpu/util/parallel_util.h). Sets ETSB_THREADPOOL_LIBRARY.
function(_etsb_wheel_threadpool)
  get_property(root GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
  get_property(runtime GLOBAL PROPERTY ETSB_RUNTIME_LIBRARY)
  cmake_path(GET runtime PARENT_PATH copies)
  set(library libexecutorch_threadpool.so)
  if(NOT EXISTS "${root}/lib/${library}")
    message(FATAL_ERROR "etsb: the runtime wheel at ${root} has no lib/${library} (ExecuTorch's thread pool)")
  endif()
  configure_file("${root}/lib/${library}" "${copies}/${library}" COPYONLY)
  set_property(GLOBAL PROPERTY ETSB_THREADPOOL_LIBRARY "${copies}/${library}")
endfunction()

# The runtime wheel's backend libraries, copied beside the build tree's
# libexecutorch.so (where binaries find them, $ORIGIN-relative) and declared:
# etsb_xnnpack_backend, etsb_qnn_backend, etsb_openvino_backend (built only when used).
function(_etsb_wheel_backends)
  set(_ETSB_PART ON)
  set(_ETSB_VALUES_CHECKED ON)  # the ids below
  get_property(root GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
  get_property(runtime GLOBAL PROPERTY ETSB_RUNTIME_LIBRARY)
  cmake_path(GET runtime PARENT_PATH copies)
  foreach(entry "xnnpack;XnnpackBackend;libexecutorch_threadpool.so" "qnn;QnnBackend" "openvino;OpenvinoBackend")
    list(POP_FRONT entry short id)
    set(library "libexecutorch_backend_${short}.so")
    set(files "")
    foreach(file ${library} ${entry})
      if(NOT EXISTS "${root}/lib/${file}")
        break()
      endif()
      configure_file("${root}/lib/${file}" "${copies}/${file}" COPYONLY)
      list(APPEND files "${copies}/${file}")
    endforeach()
    list(LENGTH entry needs)
    list(LENGTH files found)
    math(EXPR expected "${needs} + 1")
    if(found EQUAL expected)
      list(POP_FRONT files library_copy)
      set(needs_args "")
      if(files)
        set(needs_args NEEDS ${files})
      endif()
      et_backend_library(NAME etsb_${short}_backend BACKENDS ${id} LIBRARY "${library_copy}" ${needs_args})
    endif()
  endforeach()
endfunction()

_etsb_portable_kernels()
_etsb_quantized_kernels()
_etsb_llm_kernels()
_etsb_wheel_threadpool()
_etsb_runner_objects()
_etsb_wheel_backends()
