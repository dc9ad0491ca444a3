# etsb's CMake rules for an ExecuTorch source tree (included by rules/etsb.cmake):
# et_executorch_tree makes the tree's kernel libraries targets, as the driver's
# overlays (rules/executorch_tree/kernels/*/BUILD.overlay) make them packages.
# It also holds the targets binaries of your own link to run on the tree's
# runtime (_etsb_tree_runtime_targets).

# ---------------------------------------------------------------------------
# et_executorch_tree(ROOT <dir>)
#
# ExecuTorch's portable kernels from an ExecuTorch source tree (a checkout's
# root, holding kernels/portable/functions.yaml and kernels/portable/cpu/):
# the SELECTIVE et_kernel_library executorch_portable_kernels (a generated
# library compiles only the sources its kernels need) and the variables
# ETSB_EXECUTORCH_PORTABLE_FUNCTIONS_YAML and ETSB_EXECUTORCH_PORTABLE_CUSTOM_OPS_YAML;
# its quantized kernels, executorch_quantized_kernels (SELECTIVE too), and
# ETSB_EXECUTORCH_QUANTIZED_CUSTOM_OPS_YAML (a binary lists them before a
# portable library, with executorch_portable_kernels last: the tree's
# quantized sources use its portable utilities, as the driver's overlay says);
# with ETSB_TORCH_INCLUDE set, also executorch_optimized_kernels and
# ETSB_EXECUTORCH_OPTIMIZED_FUNCTIONS_YAML (merge it over the portable yaml,
# and list both libraries, optimized first: its kernels call portable ones).
# The tree is only read: it is reached through the link
# ${CMAKE_BINARY_DIR}/etsb_external/executorch, so that its sources'
# `#include <executorch/...>` find it after the installed runtime's headers,
# which always win (the binary links that runtime). A tree of another
# major.minor release than the runtime is warned about.
#
#   ROOT   the tree.
# ---------------------------------------------------------------------------
function(et_executorch_tree)
  set(macro et_executorch_tree)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "ROOT" "")
  if(DEFINED ARG_UNPARSED_ARGUMENTS OR NOT DEFINED ARG_ROOT)
    _etsb_fail(${macro} "" "give ROOT <an ExecuTorch source tree>")
  endif()
  cmake_path(ABSOLUTE_PATH ARG_ROOT BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE root)
  if(NOT EXISTS "${root}/kernels/portable/functions.yaml" OR NOT IS_DIRECTORY "${root}/kernels/portable/cpu")
    _etsb_fail(${macro} "" "'${root}' is not an ExecuTorch source tree: it has no kernels/portable/functions.yaml "
      "and kernels/portable/cpu/")
  endif()
  if(TARGET executorch_portable_kernels)
    get_property(known GLOBAL PROPERTY ETSB_EXECUTORCH_TREE)
    if(NOT known STREQUAL root)
      _etsb_fail(${macro} "" "a build takes one ExecuTorch tree: '${known}' is already in use, not '${root}'")
    endif()
  else()
    _etsb_check_tree_version("${root}")
    set(external "${CMAKE_BINARY_DIR}/etsb_external")
    set(tree "${external}/executorch")
    file(MAKE_DIRECTORY "${external}")
    file(REMOVE "${tree}")
    file(CREATE_LINK "${root}" "${tree}" SYMBOLIC)
    set(portable "${tree}/kernels/portable")
    file(GLOB srcs "${portable}/cpu/*.cpp" "${portable}/cpu/util/*.cpp" "${portable}/cpu/pattern/*.cpp")
    file(GLOB_RECURSE hdrs "${portable}/cpu/*.h")
    list(FILTER hdrs EXCLUDE REGEX "/test/")
    # The flags of the driver's overlay (rules/executorch_tree/kernels/portable/BUILD.overlay),
    # for the same reasons: the tree after every other include directory, the 1.5
    # runtime's event tracer, a release build, no deprecation noise from the tree.
    set(tree_copts "SHELL:-idirafter ${external}" -DET_EVENT_TRACER_ENABLED -DNDEBUG -Wno-deprecated-declarations)
    et_kernel_library(NAME executorch_portable_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs} COPTS ${tree_copts})
    file(GLOB srcs "${tree}/kernels/quantized/cpu/*.cpp")
    file(GLOB hdrs "${tree}/kernels/quantized/cpu/*.h")
    et_kernel_library(NAME executorch_quantized_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs} COPTS ${tree_copts})
    if(NOT ETSB_TORCH_INCLUDE STREQUAL "")
      _etsb_optimized_kernels("${tree}" "${tree_copts}")
    endif()
    _etsb_cortex_m_kernels("${root}" "${tree}" "${tree_copts}")
    set_property(GLOBAL PROPERTY ETSB_EXECUTORCH_TREE "${root}")
  endif()
  set(ETSB_EXECUTORCH_PORTABLE_FUNCTIONS_YAML "${root}/kernels/portable/functions.yaml" PARENT_SCOPE)
  set(ETSB_EXECUTORCH_PORTABLE_CUSTOM_OPS_YAML "${root}/kernels/portable/custom_ops.yaml" PARENT_SCOPE)
  set(ETSB_EXECUTORCH_QUANTIZED_CUSTOM_OPS_YAML "${root}/kernels/quantized/quantized.yaml" PARENT_SCOPE)
  if(EXISTS "${root}/backends/cortex_m/ops/operators.yaml")
    set(ETSB_EXECUTORCH_CORTEX_M_CUSTOM_OPS_YAML "${root}/backends/cortex_m/ops/operators.yaml" PARENT_SCOPE)
  endif()
  if(TARGET executorch_optimized_kernels)
    set(ETSB_EXECUTORCH_OPTIMIZED_FUNCTIONS_YAML "${CMAKE_BINARY_DIR}/etsb_external/optimized/functions.yaml"
        PARENT_SCOPE)
  endif()
endfunction()

# ExecuTorch's Cortex-M kernels from the tree `root` (linked at `tree`), when
# a CMSIS-NN source tree is there (_etsb_cmsis_nn_root): etsb_cmsis_nn, its
# int8 and int16 kernels compiled for the platform's core (Helium, DSP or
# plain C, as each source chooses from the core's macros), and the SELECTIVE
# et_kernel_library executorch_cortex_m_kernels over it, as the driver's
# overlays build them (rules/cmsis_nn/BUILD.overlay,
# rules/executorch_tree/backends/cortex_m/BUILD.overlay). Without CMSIS-NN,
# the global property ETSB_CMSIS_NN_MISSING says where it was looked for.
function(_etsb_cortex_m_kernels root tree tree_copts)
  set(ops "${tree}/backends/cortex_m/ops")
  _etsb_cmsis_nn_root("${root}" cmsis_nn missing)
  if(NOT EXISTS "${root}/backends/cortex_m/ops/operators.yaml" OR cmsis_nn STREQUAL "")
    set_property(GLOBAL PROPERTY ETSB_CMSIS_NN_MISSING "${missing}")
    if(NOT missing STREQUAL "")
      message(STATUS "etsb: no executorch_cortex_m_kernels (ExecuTorch's Cortex-M kernels): ${missing}")
    endif()
    return()
  endif()
  file(GLOB_RECURSE srcs "${cmsis_nn}/Source/*.c")
  # Its floating-point kernels are left out, as CMSIS-NN's own build leaves them out for
  # cores without a float vector unit.
  list(FILTER srcs EXCLUDE REGEX "_f(16|32)\\.c$")
  list(SORT srcs)
  add_library(etsb_cmsis_nn STATIC EXCLUDE_FROM_ALL ${srcs})
  get_property(c_flags GLOBAL PROPERTY ETSB_C_COMPILE_FLAGS)
  # The configuration's optimisation level stands (as the overlay: no -O forced).
  target_compile_options(etsb_cmsis_nn PRIVATE ${c_flags} -Wno-unused-parameter)
  target_include_directories(etsb_cmsis_nn PUBLIC "${cmsis_nn}/Include")

  file(GLOB srcs "${ops}/*.cpp")
  file(GLOB hdrs "${ops}/*.h")
  # The portable utilities' headers its sources include (their objects come from
  # executorch_portable_kernels, which a binary lists after this library).
  get_target_property(portable_hdrs executorch_portable_kernels ETSB_HDRS)
  et_kernel_library(NAME executorch_cortex_m_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs} ${portable_hdrs}
    COPTS ${tree_copts} -Wno-narrowing DEPS etsb_cmsis_nn)
  set_property(GLOBAL PROPERTY ETSB_CMSIS_NN_TREE "${cmsis_nn}")
endfunction()

# The CMSIS-NN source tree for the ExecuTorch tree `root`, in `out` ('' when
# there is none, and then in `missing` where it was looked for): the variable
# CMSIS_NN_ROOT, else the environment's, else a `cmsis-nn` folder beside the
# tree (where the driver looks too: selective_build.driver.state.cmsis_nn_tree).
# One given that holds no CMSIS-NN fails the configuration, naming it.
function(_etsb_cmsis_nn_root root out missing)
  set(marker "Include/arm_nnfunctions.h")
  foreach(entry "variable;${CMSIS_NN_ROOT}" "environment's;$ENV{CMSIS_NN_ROOT}")
    list(POP_FRONT entry where)
    if(NOT entry STREQUAL "")
      cmake_path(ABSOLUTE_PATH entry BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE given)
      if(NOT EXISTS "${given}/${marker}")
        message(FATAL_ERROR "etsb: CMSIS_NN_ROOT (the ${where}) is '${given}', which is not a CMSIS-NN source tree: "
          "it has no ${marker}")
      endif()
      set(${out} "${given}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  cmake_path(GET root PARENT_PATH parent)
  if(EXISTS "${parent}/cmsis-nn/${marker}")
    set(${out} "${parent}/cmsis-nn" PARENT_SCOPE)
    return()
  endif()
  set(${out} "" PARENT_SCOPE)
  string(CONCAT why "no CMSIS-NN source tree (ExecuTorch's Cortex-M kernels call it): CMSIS_NN_ROOT is set neither "
    "as a CMake variable nor in the environment, and ${parent}/cmsis-nn, beside the ExecuTorch tree, has no ${marker}")
  set(${missing} "${why}" PARENT_SCOPE)
endfunction()

# ExecuTorch's optimized kernels from the tree linked at `tree`: the SELECTIVE
# et_kernel_library executorch_optimized_kernels and its yaml (the tree's
# optimized.yaml without the operators whose sources are left out), as the
# driver's overlay (rules/executorch_tree/kernels/optimized/BUILD.overlay)
# builds them: its LEFT_OUT_OPERATORS and LEFT_OUT_SOURCES are read from there.
# PyTorch's headers come from ETSB_TORCH_INCLUDE, after the runtime's.
function(_etsb_optimized_kernels tree tree_copts)
  get_property(etsb_root GLOBAL PROPERTY ETSB_ROOT)
  set(overlay "${etsb_root}/rules/executorch_tree/kernels/optimized/BUILD.overlay")
  file(READ "${overlay}" overlay_text)
  foreach(list LEFT_OUT_OPERATORS LEFT_OUT_SOURCES)
    # `NAME = [` up to the first `]`, on one line or several (as buildifier writes it).
    string(REGEX MATCH "\n${list} = \\[[^]]*\\]" block "${overlay_text}")
    string(REGEX MATCHALL "\"[^\"]+\"" quoted "${block}")
    string(REPLACE "\"" "" ${list} "${quoted}")
    if(NOT ${list})
      message(FATAL_ERROR "etsb: ${overlay} no longer defines the list ${list}")
    endif()
  endforeach()
  set(optimized "${tree}/kernels/optimized")
  # The yaml: its blank-line separated entries, less those of the left-out operators.
  file(READ "${optimized}/optimized.yaml" text)
  # As a CMake list: the characters lists treat specially stand aside meanwhile.
  foreach(special ";" "[" "]")
    string(REPLACE "${special}" "<etsb-${special}>" text "${text}")
  endforeach()
  string(REPLACE "\n\n" ";" entries "${text}")
  foreach(operator IN LISTS LEFT_OUT_OPERATORS)
    string(REPLACE "." "\\." pattern "- op: ${operator}\n")
    list(FILTER entries EXCLUDE REGEX "${pattern}")
  endforeach()
  list(JOIN entries "\n\n" text)
  foreach(special ";" "[" "]")
    string(REPLACE "<etsb-${special}>" "${special}" text "${text}")
  endforeach()
  set(yaml "${CMAKE_BINARY_DIR}/etsb_external/optimized/functions.yaml")
  # Written only when it changes (no @ in a kernel yaml for @ONLY to touch).
  file(CONFIGURE OUTPUT "${yaml}" CONTENT "${text}" @ONLY)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${optimized}/optimized.yaml" "${overlay}")

  file(GLOB srcs "${optimized}/cpu/*.cpp" "${optimized}/blas/*.cpp")
  file(GLOB hdrs "${optimized}/cpu/*.h" "${optimized}/blas/*.h" "${optimized}/utils/*.h" "${optimized}/vec/*.h")
  foreach(left_out IN LISTS LEFT_OUT_SOURCES)
    list(REMOVE_ITEM srcs "${optimized}/${left_out}")
    list(REMOVE_ITEM hdrs "${optimized}/${left_out}")
  endforeach()
  et_kernel_library(NAME executorch_optimized_kernels SELECTIVE SRCS ${srcs} HDRS ${hdrs}
    COPTS ${tree_copts} "SHELL:-isystem ${ETSB_TORCH_INCLUDE}" -DET_USE_PYTORCH_HEADERS=ET_HAS_EXCEPTIONS -Wno-psabi)
endfunction()

# Warns when the tree at `root` is of another major.minor release than the
# runtime (or its version cannot be told): a mismatch shows up as link errors.
# The driver's check (selective_build.driver.tree_version.version_mismatch) decides.
function(_etsb_check_tree_version root)
  get_property(runtime GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
  get_property(python GLOBAL PROPERTY ETSB_PYTHON_EXE)
  get_property(etsb_root GLOBAL PROPERTY ETSB_ROOT)
  execute_process(
    COMMAND "${python}" -c "import sys; sys.path.insert(0, sys.argv[1]); from selective_build.driver.tree_version import version_mismatch; print(version_mismatch(sys.argv[2], sys.argv[3]) or '')"
      "${etsb_root}/tools" "${root}" "${runtime}"
    RESULT_VARIABLE status OUTPUT_VARIABLE warning ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "etsb: could not check the ExecuTorch tree's version: ${error}")
  endif()
  if(NOT warning STREQUAL "")
    message(WARNING "etsb: ${warning}")
  endif()
endfunction()

# (Made by _etsb_tree_runtime, rules/private/etsb_deploy.cmake, with the tree's runtime.)
# What a binary of your own links to run on the tree's runtime (the overlay's
# @executorch//:runtime and :runtime_without_prim_ops): etsb_tree_runtime,
# the program loader, every prim op and the 2,000-slot registry, or
# etsb_tree_runtime_without_prim_ops, the same without the prim ops, for a
# binary whose generated libraries bring those they select
# (executorch_generated_lib(... INCLUDE_ALL_PRIM_OPS OFF)); on a board, its
# objects and link options too.
function(_etsb_tree_runtime_targets)
  get_property(registry GLOBAL PROPERTY ETSB_TREE_REGISTRY_SOURCES)
  add_library(etsb_tree_registry OBJECT EXCLUDE_FROM_ALL ${registry})
  _etsb_cxx_target(etsb_tree_registry)
  target_link_libraries(etsb_tree_registry PRIVATE etsb_tree_runtime_core)
  _etsb_tree_file_names(etsb_tree_registry)
  get_property(whole GLOBAL PROPERTY ETSB_TREE_WHOLE)
  get_property(options GLOBAL PROPERTY ETSB_TREE_LINK_OPTIONS)
  get_property(depends GLOBAL PROPERTY ETSB_TREE_LINK_DEPENDS)
  foreach(entry "etsb_tree_runtime;etsb_tree_runtime_ops" "etsb_tree_runtime_without_prim_ops;etsb_tree_registry")
    list(POP_FRONT entry target objects)
    add_library(${target} INTERFACE)
    foreach(library IN LISTS objects whole)
      target_sources(${target} INTERFACE $<TARGET_OBJECTS:${library}>)
    endforeach()
    target_link_libraries(${target} INTERFACE etsb_tree_program etsb_tree_runtime_core)
    target_link_options(${target} INTERFACE ${options})
    set_property(TARGET ${target} APPEND PROPERTY INTERFACE_LINK_DEPENDS ${depends})
  endforeach()
endfunction()

# The first of the paths `ARGN` (relative ones to the current source folder;
# empty ones skipped) that is an ExecuTorch source tree, in `out` (empty: none).
function(_etsb_first_tree out)
  get_property(etsb_root GLOBAL PROPERTY ETSB_ROOT)
  foreach(candidate IN LISTS ARGN)
    if(candidate STREQUAL "")
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH candidate BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    if(NOT candidate STREQUAL etsb_root AND EXISTS "${candidate}/runtime/executor/method.cpp"
       AND EXISTS "${candidate}/kernels/portable/functions.yaml")
      set(${out} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()
