# et_model_binary: a model's binary, its runner and the rules' output targets.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

# ---------------------------------------------------------------------------
# et_model_binary(NAME <name> MODEL <pte>
#                 [FUNCTIONS_YAML_TARGET <yaml>] [KERNEL_DEPS <kernel lib>...]
#                 [CUSTOM_OPS_YAML_TARGET <yaml>] [FALLBACK_YAML_TARGET <yaml>]
#                 [DEPS <operator lib>...] [DTYPE_SELECTIVE_BUILD]
#                 [BACKENDS <backend id>...] [BACKEND_DEPS <backend lib>...]
#                 [RUNTIME auto|shared|wheel|static] [EMBED_MODEL] [INPUTS <npy>...]
#                 [METHOD_POOL_BYTES <n>] [TEMP_POOL_BYTES <n>])
#
# The runner linked with exactly the kernels MODEL needs, in one call: selects
# the operators and kernel keys of MODEL (plus DEPS), resolves them against the
# kernel yaml (the build fails if any is not covered) and links the runner
# (etsb_runner, tools/runner/runner.cpp compiled with -DETSB_MODEL_ENTRY), the
# generated library and libexecutorch.so:
#   <name> --model M.pte --inputs a.npy,... --output-dir D [--method M] [--iterations N] [--log] (<name> --help)
# Built to ship (ETSB_CONFIG size, EMBED_MODEL, or a platform without an
# operating system; with RUNTIME auto, any platform but the host), it links
# the deploy runner (tools/runner/deploy.cpp) instead: `<name> M.pte [INPUT.bin ...]`, or `<name>` alone with the program
# (and INPUTS) embedded; it prints the outputs (`etsb deploy-outputs` reads
# them back) and runs in static memory sized from the model (docs/deploy.md).
# The binary is ${CMAKE_CURRENT_BINARY_DIR}/<name> (with DTYPE_SELECTIVE_BUILD,
# <name>_smallest/<name>), its link map beside it (<binary>.map). A companion
# <name>_all_kernels, not built by default, links every kernel of the yaml:
# what the trimming is measured against.
#
#   NAME                    the target name; the binary is named after it.
#   MODEL                   the .pte program the binary must run.
#   FUNCTIONS_YAML_TARGET   the kernel yaml (default: ${ETSB_PORTABLE_FUNCTIONS_YAML}).
#                           Also spelt FUNCTIONS_YAML.
#   KERNEL_DEPS             the kernel libraries implementing it. Default, when no kernel library or
#                           custom/fallback yaml is named: the catalogue (etsb_catalogue.cmake), every
#                           library etsb knows, each operator taken from the first that has it: etsb's
#                           portable, quantized and LLM kernels, then, with an ExecuTorch tree and
#                           CMSIS-NN, ExecuTorch's Cortex-M kernels; with a yaml named,
#                           etsb_portable_kernels. Also spelt KERNEL_LIBS.
#   CUSTOM_OPS_YAML_TARGET  a kernel yaml of custom operators the model calls (the catalogue's by
#                           default). Also spelt CUSTOM_OPS_YAML.
#   FALLBACK_YAML_TARGET    a kernel yaml that FUNCTIONS_YAML_TARGET is merged over. Also spelt FALLBACK_YAML.
#   DEPS                    more et_operator_library targets to include (operators other models need).
#   DTYPE_SELECTIVE_BUILD   keep, within each kernel, only the dtypes the model uses. Both forms
#                           are linked (<name>_dtype_selective, <name>_op_selective) and `etsb
#                           pick-smaller` copies the smaller to <name>_smallest/<name> (target
#                           <name>): a dtype restriction that would not pay is not kept.
#   BACKENDS                backend ids to link beside those the model's delegates use.
#   BACKEND_DEPS            the et_backend_library targets that may provide the model's backends
#                           (default: the wheel's, etsb_xnnpack_backend, etsb_qnn_backend and
#                           etsb_openvino_backend; none with RUNTIME static: they need the wheel's
#                           libexecutorch.so); only those the model uses are linked, and a
#                           backend none provides fails the build.
#   RUNTIME                 the ExecuTorch runtime linked: auto (the default), a shipped binary where
#                           one is built to ship (ETSB_CONFIG size, or an ETSB_PLATFORM other than
#                           host): static, the deploy runner, kernels keeping only the model's
#                           dtypes, stripped; elsewhere (and with DTYPE_SELECTIVE_BUILD) shared.
#                           shared (also spelt wheel), the wheel's
#                           libexecutorch.so (found beside the binary); static, ExecuTorch's runtime
#                           compiled from the build's ExecuTorch tree (et_executorch_tree, or
#                           EXECUTORCH_ROOT) with the binary's flags and linked in, everything in the
#                           binary compiled against the tree's headers (KERNEL_DEPS must be
#                           et_kernel_library targets). The only one on another ETSB_PLATFORM than
#                           host. In ETSB_CONFIG size (without DEPS) it registers only the prim ops
#                           the program calls, in a kernel registry of the binary's own size.
#   EMBED_MODEL             embed MODEL in the binary (an aligned constant array) and link the
#                           deploy runner, in every configuration: the binary then takes no arguments.
#   INPUTS                  .npy inputs of the model's first method to embed beside it, in order
#                           (needs EMBED_MODEL); without them the binary runs a method that takes none.
#   METHOD_POOL_BYTES       the deploy runner's method allocator pool in bytes (default 0: a bound
#                           computed from the model).
#   TEMP_POOL_BYTES         the deploy runner's scratch for kernels in bytes (default 0: none, and
#                           kernels take their paths that need none).
# ---------------------------------------------------------------------------
function(et_model_binary)
  set(macro et_model_binary)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "DTYPE_SELECTIVE_BUILD;EMBED_MODEL"
    "NAME;MODEL;FUNCTIONS_YAML_TARGET;CUSTOM_OPS_YAML_TARGET;FALLBACK_YAML_TARGET;FUNCTIONS_YAML;CUSTOM_OPS_YAML;FALLBACK_YAML;RUNTIME;METHOD_POOL_BYTES;TEMP_POOL_BYTES"
    "KERNEL_DEPS;KERNEL_LIBS;DEPS;BACKENDS;BACKEND_DEPS;INPUTS")
  _etsb_check_arguments(${macro}
    ALIASES FUNCTIONS_YAML FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML CUSTOM_OPS_YAML_TARGET
            FALLBACK_YAML FALLBACK_YAML_TARGET KERNEL_LIBS KERNEL_DEPS
    KEYWORDS NAME MODEL FUNCTIONS_YAML_TARGET KERNEL_DEPS CUSTOM_OPS_YAML_TARGET FALLBACK_YAML_TARGET DEPS
             DTYPE_SELECTIVE_BUILD BACKENDS BACKEND_DEPS RUNTIME EMBED_MODEL INPUTS METHOD_POOL_BYTES TEMP_POOL_BYTES)
  foreach(attr KERNEL_DEPS DEPS BACKENDS BACKEND_DEPS INPUTS)
    _etsb_check_list_values(${macro} ${name} ${attr} ${ARG_${attr}})
  endforeach()
  if(NOT DEFINED ARG_MODEL)
    _etsb_fail(${macro} ${name} "MODEL is missing (the .pte program the binary runs)")
  endif()
  _etsb_check_model(${macro} ${name} MODEL "${ARG_MODEL}")
  _etsb_source_file(${macro} ${name} MODEL "${ARG_MODEL}" model)
  _etsb_model_binary_deploy(${macro} ${name} "${model}")
  _etsb_model_binary_yamls(${macro} ${name} yamls)
  _etsb_check_values(${macro} ${name} BACKENDS ARG_BACKENDS)

  set(_ETSB_PART ON)
  # The rules called below get only values checked above or made here.
  set(_ETSB_VALUES_CHECKED ON)
  set(_ETSB_MODEL_NAME ${name})
  set(deps "")
  if(ARG_DEPS)
    set(deps DEPS ${ARG_DEPS})
  endif()
  if(ARG_BACKENDS)
    list(APPEND deps BACKENDS ${ARG_BACKENDS})
  endif()
  et_operator_library(NAME ${name}_ops MODEL "${ARG_MODEL}" ${deps})
  if(NOT ARG_DTYPE_SELECTIVE_BUILD)
    # A shipped binary (RUNTIME auto where built to ship) keeps only the model's dtypes.
    _etsb_model_binary(${name} ${name}_ops ${_ETSB_SHIPPED} "" ${yamls})
  else()
    # The chosen binary is copied into <name>_smallest/, whose run path must find the backends too.
    set(_ETSB_COPIED_TO "${CMAKE_CURRENT_BINARY_DIR}/${name}_smallest")
    _etsb_smallest_model_binary(${name} ${yamls})
  endif()

  _etsb_all_kernels_binary(${name} ${yamls})
endfunction()

# <name>_all_kernels: the same binary as et_model_binary `name`'s with every kernel of its
# yamls `ARGN` (and the model's backends, and every prim op): what the trimming is measured against.
# Called by et_model_binary, whose variables (_ETSB_PART, _ETSB_RUNTIME, ...) it sees.
function(_etsb_all_kernels_binary name)
  set(yamls ${ARGN})
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  set(_ETSB_SIZED OFF)
  if("CATALOGUE" IN_LIST yamls)
    # Every kernel of the functions yaml and the custom operators the model calls (the
    # catalogue's other libraries are what the model's operators choose, not a size to compare with).
    list(FIND yamls FUNCTIONS_YAML_TARGET at)
    math(EXPR at "${at} + 1")
    list(GET yamls ${at} functions_yaml)
    et_operator_library(NAME ${name}_all_kernels_ops OPS_SCHEMA_YAML_TARGET "${functions_yaml}" DEPS ${name}_ops)
  else()
    et_operator_library(NAME ${name}_all_kernels_ops INCLUDE_ALL_OPERATORS DEPS ${name}_ops)
  endif()
  executorch_generated_lib(NAME ${name}_all_kernels_lib DEPS ${name}_all_kernels_ops MANUAL_REGISTRATION MODEL_ENTRY
                           ${yamls})
  _etsb_runner_binary(${name}_all_kernels ${name}_all_kernels_lib EXCLUDE_FROM_ALL)
endfunction()

# The runtime of the calling et_model_binary `name` (its ARG_RUNTIME, ARG_DTYPE_SELECTIVE_BUILD),
# shared or static, in `out`, and in `shipped` whether RUNTIME auto (the default) chose to ship:
# where built to ship (ETSB_CONFIG size, or a platform but the host), static; else, and with
# DTYPE_SELECTIVE_BUILD (as etsb's driver and Bazel, whose rules choose before the
# configuration is known), shared. `wheel` is shared.
function(_etsb_model_binary_runtime macro name out shipped)
  set(runtime auto)
  if(DEFINED ARG_RUNTIME)
    set(runtime "${ARG_RUNTIME}")
  endif()
  if(NOT runtime MATCHES "^(auto|wheel|shared|static)$")
    _etsb_fail(${macro} ${name} "RUNTIME must be auto (the default: shipped where built to ship), shared or "
      "wheel (the executorch wheel's libexecutorch.so) or static (ExecuTorch's runtime compiled from the tree), "
      "not '${runtime}'")
  endif()
  get_property(platform GLOBAL PROPERTY ETSB_PLATFORM)
  get_property(config GLOBAL PROPERTY ETSB_CONFIG)
  set(${shipped} OFF PARENT_SCOPE)
  if(runtime STREQUAL "auto" AND NOT ARG_DTYPE_SELECTIVE_BUILD
     AND (config STREQUAL "size" OR NOT platform STREQUAL "host"))
    set(runtime static)
    set(${shipped} ON PARENT_SCOPE)
  elseif(runtime MATCHES "^(auto|wheel)$")
    set(runtime shared)
  endif()
  set(${out} ${runtime} PARENT_SCOPE)
endfunction()

# The arguments an et_model_binary passes on to executorch_generated_lib, in
# `out`: the calling rule's KERNEL_DEPS, BACKEND_DEPS and yamls (its ARG_*),
# defaults filled in, each yaml resolved, and its runtime (_ETSB_RUNTIME).
function(_etsb_model_binary_yamls macro name out)
  if(NOT DEFINED ARG_FUNCTIONS_YAML_TARGET)
    get_property(root GLOBAL PROPERTY ETSB_ROOT)
    set(ARG_FUNCTIONS_YAML_TARGET "${root}/kernels/portable/functions.yaml")
  endif()
  set(catalogue OFF)
  if(NOT ARG_KERNEL_DEPS AND NOT DEFINED ARG_CUSTOM_OPS_YAML_TARGET AND NOT DEFINED ARG_FALLBACK_YAML_TARGET)
    # What a CMakeLists.txt names wins; naming nothing takes the catalogue (etsb_catalogue.cmake).
    _etsb_catalogue(ARG_KERNEL_DEPS ARG_CUSTOM_OPS_YAML_TARGET)
    set(catalogue ON)
  elseif(NOT ARG_KERNEL_DEPS)
    set(ARG_KERNEL_DEPS etsb_portable_kernels)
  endif()
  if(NOT DEFINED ARG_BACKEND_DEPS)
    # The wheel's backend libraries need its libexecutorch.so: a second runtime beside the static one.
    set(ARG_BACKEND_DEPS "")
    foreach(backend etsb_xnnpack_backend etsb_qnn_backend etsb_openvino_backend)
      if(TARGET ${backend} AND _ETSB_RUNTIME STREQUAL "shared")
        list(APPEND ARG_BACKEND_DEPS ${backend})
      endif()
    endforeach()
  endif()
  set(yamls KERNEL_DEPS ${ARG_KERNEL_DEPS} RUNTIME ${_ETSB_RUNTIME})
  if(catalogue)
    list(APPEND yamls CATALOGUE)
  endif()
  if(ARG_BACKEND_DEPS)
    list(APPEND yamls BACKEND_DEPS ${ARG_BACKEND_DEPS})
  endif()
  foreach(attr FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML_TARGET FALLBACK_YAML_TARGET)
    if(DEFINED ARG_${attr})
      _etsb_input(${macro} ${name} ${attr} "${ARG_${attr}}" yaml KINDS merge_yaml)
      list(APPEND yamls ${attr} "${ARG_${attr}}")
    endif()
  endforeach()
  set(${out} "${yamls}" PARENT_SCOPE)
endfunction()

# A DTYPE_SELECTIVE_BUILD et_model_binary `name` (ARGN: its generated
# library's arguments): restricting dtypes usually shrinks kernels, but can
# grow them (ExecuTorch's issue 13015), so both forms are linked and `etsb
# pick-smaller` keeps the smaller, in <name>_smallest/: it never costs bytes.
# With the shared runtime, libexecutorch.so (and the development runner's
# thread pool) goes beside the copy, where its run path ($ORIGIN) finds it.
function(_etsb_smallest_model_binary name)
  _etsb_model_binary(${name}_dtype_selective ${name}_ops ON EXCLUDE_FROM_ALL ${ARGN})
  _etsb_model_binary(${name}_op_selective ${name}_ops OFF EXCLUDE_FROM_ALL ${ARGN})
  set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}_smallest/${name}")
  set(beside "")
  set(outputs "${output}" "${output}.map")
  if(_ETSB_RUNTIME STREQUAL "shared")
    get_property(runtime GLOBAL PROPERTY ETSB_RUNTIME_LIBRARY)
    set(beside --beside "${runtime}")
    list(APPEND outputs "${CMAKE_CURRENT_BINARY_DIR}/${name}_smallest/libexecutorch.so")
    if(NOT _ETSB_DEPLOY)
      # The development runner's thread pool too.
      get_property(threadpool GLOBAL PROPERTY ETSB_THREADPOOL_LIBRARY)
      list(APPEND beside --beside "${threadpool}")
      list(APPEND outputs "${CMAKE_CURRENT_BINARY_DIR}/${name}_smallest/libexecutorch_threadpool.so")
    endif()
  endif()
  _etsb_run(SUBCOMMAND pick-smaller TARGET ${name} OUTPUTS ${outputs}
    DEPENDS ${name}_dtype_selective ${name}_op_selective ${runtime}
    ARGS --output "${output}" ${beside}
         "$<TARGET_FILE:${name}_dtype_selective>" "$<TARGET_FILE:${name}_op_selective>")
  add_custom_target(${name} ALL DEPENDS "${output}")
endfunction()

# The runner of et_model_binary linked with a generated library registering
# `selection`: `<binary>_lib` and the binary `<binary>`.
function(_etsb_model_binary binary selection dtype_selective exclude)
  set(dtype "")
  if(dtype_selective)
    set(dtype DTYPE_SELECTIVE_BUILD)
  endif()
  if(exclude)
    set(_ETSB_EXCLUDE_FROM_ALL ON)
  endif()
  executorch_generated_lib(NAME ${binary}_lib DEPS ${selection} MANUAL_REGISTRATION MODEL_ENTRY ${dtype} ${ARGN})
  _etsb_runner_binary(${binary} ${binary}_lib "${exclude}")
endfunction()

# The executable `binary`: the runner's object (the development runner, or
# with _ETSB_DEPLOY the deploy runner and its deploy source), the generated
# library `lib` (which defines etsb::register_model_kernels()) and the
# runtime (_ETSB_RUNTIME), linked with the platform's and configuration's
# flags and ETSB_LINK_OPTIONS, and a link map beside it.
function(_etsb_runner_binary binary lib exclude)
  if(NOT DEFINED _ETSB_RUNTIME)
    set(_ETSB_RUNTIME shared)
  endif()
  _etsb_runner_library("${_ETSB_DEPLOY}" "${_ETSB_EMBEDDED}" ${_ETSB_RUNTIME} runner)
  set(sources $<TARGET_OBJECTS:${runner}>)
  if(_ETSB_DEPLOY)
    list(APPEND sources "${_ETSB_DEPLOY_SOURCE}")
  endif()
  add_executable(${binary} ${exclude} ${sources})
  _etsb_cxx_target(${binary})
  get_property(link_flags GLOBAL PROPERTY ETSB_LINK_FLAGS)
  target_link_options(${binary} PRIVATE ${link_flags} "LINKER:-Map=$<TARGET_FILE:${binary}>.map")
  if(_ETSB_SHIPPED)
    target_link_options(${binary} PRIVATE -s)  # shipped: stripped
  endif()
  if(_ETSB_RUNTIME STREQUAL "static")
    _etsb_tree_binary(${binary} ${lib})
    return()
  endif()
  target_link_libraries(${binary} PRIVATE ${lib} etsb::executorch)
  if(NOT _ETSB_DEPLOY)
    # The development runner's thread pool (tools/runner/threads.h, --threads N).
    get_property(threadpool GLOBAL PROPERTY ETSB_THREADPOOL_LIBRARY)
    target_link_libraries(${binary} PRIVATE "${threadpool}")
  endif()
  get_property(root GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
  # In the build tree the run path is relative ($ORIGIN first, for a copy that
  # takes libexecutorch.so along, then the build tree's copy of it); an
  # installed binary finds the wheel's.
  set(run_path "$ORIGIN")
  if(_ETSB_COPIED_TO)
    # The backend libraries sit beside the build tree's libexecutorch.so, which CMake's
    # own run path finds from the binary's folder, not from the folder of its copy.
    get_property(runtime GLOBAL PROPERTY ETSB_RUNTIME_LIBRARY)
    cmake_path(GET runtime PARENT_PATH runtime_dir)
    cmake_path(RELATIVE_PATH runtime_dir BASE_DIRECTORY "${_ETSB_COPIED_TO}" OUTPUT_VARIABLE relative)
    list(APPEND run_path "$ORIGIN/${relative}")
  endif()
  set_target_properties(${binary} PROPERTIES BUILD_RPATH "${run_path}" BUILD_RPATH_USE_ORIGIN ON
                                             INSTALL_RPATH "${root}/lib")
endfunction()

# etsb_runner: runner.cpp compiled once with -DETSB_MODEL_ENTRY (an object library).
function(_etsb_runner_objects)
  _etsb_runner_library(OFF OFF shared runner)
endfunction()

# The target `name` standing for the generated file `output`. Built by default
# when a CMakeLists.txt calls the rule; one made inside another rule is built
# when that rule's outputs need it.
function(_etsb_output_target name kind output)
  set(all ALL)
  if(_ETSB_PART)
    set(all "")
  endif()
  add_custom_target(${name} ${all} DEPENDS "${output}")
  set_target_properties(${name} PROPERTIES ETSB_KIND ${kind} ETSB_OUTPUT "${output}")
endfunction()
