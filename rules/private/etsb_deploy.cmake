# Private helpers of rules/etsb.cmake for what a binary is built for and
# with: the platform (ETSB_PLATFORM, set by etsb's toolchain files) and the
# configuration (ETSB_CONFIG) with their flags, ExecuTorch's runtime compiled
# from a tree (RUNTIME static), and the deploy runner. The flags, the
# runtime's sources and flags and the program schema's command are the
# driver's (tools/selective_build/driver/platforms.py,
# rules/executorch_tree/BUILD.overlay), asked of `etsb cmake-platform` while
# configuring: nothing here lists them again.
#
# Global properties:
#   ETSB_PLATFORM, ETSB_CONFIG   the platform and configuration of the build
#   ETSB_PLATFORM_HOSTED         whether the platform has an operating system
#   ETSB_COMPILE_FLAGS           every C++ target's flags: the platform's, the configuration's,
#                                then ETSB_COMPILE_OPTIONS
#   ETSB_LINK_FLAGS              every binary's link flags: the platform's, the configuration's
#                                (with the loader's on a hosted platform), then ETSB_LINK_OPTIONS
#   ETSB_TREE_WHOLE              object libraries every binary of the tree's runtime links (its board)
#   ETSB_TREE_LINK_OPTIONS, ETSB_TREE_LINK_DEPENDS   what the board adds to such a binary's link
#   ETSB_TREE_PRIM_OPS_SOURCES, ETSB_TREE_REGISTRY_SOURCES   the tree's prim ops and kernel registry
#   ETSB_TREE_DIRECTORY          the scratch workspace where the tree is linked and analysed

# Runs `etsb cmake-platform <ARGN> --output <output>`; a problem fails the
# configuration with etsb's message (an unknown configuration named as
# ETSB_CONFIG is, with the known ones).
function(_etsb_platform_query output)
  get_property(python GLOBAL PROPERTY ETSB_PYTHON_EXE)
  get_property(tool GLOBAL PROPERTY ETSB_TOOL)
  execute_process(COMMAND "${python}" "${tool}" cmake-platform ${ARGN} --output "${output}"
    RESULT_VARIABLE status OUTPUT_VARIABLE output_text ERROR_VARIABLE error)
  if(status EQUAL 0)
    return()
  endif()
  string(STRIP "${error}" error)
  if(error MATCHES "^usage: ")
    # A bad --platform or --config: the last line, in the names the CMake user gave.
    string(REGEX REPLACE ".*\n" "" error "${error}")
    string(REGEX REPLACE "^etsb cmake-platform: error: " "" error "${error}")
    string(REPLACE "--config" "ETSB_CONFIG" error "${error}")
    string(REPLACE "--platform" "ETSB_PLATFORM" error "${error}")
  endif()
  message(FATAL_ERROR "etsb: ${error}")
endfunction()

# The platform and configuration of the build, and their flags (called once,
# when etsb.cmake is included).
function(_etsb_choose_platform)
  if(NOT DEFINED ETSB_PLATFORM OR ETSB_PLATFORM STREQUAL "")
    set(ETSB_PLATFORM host)
  endif()
  if(NOT ETSB_PLATFORM STREQUAL "host" AND NOT CMAKE_CROSSCOMPILING)
    message(FATAL_ERROR "etsb: ETSB_PLATFORM is ${ETSB_PLATFORM} but CMake compiles for this machine: configure with "
      "etsb's toolchain file for it (-DCMAKE_TOOLCHAIN_FILE=<etsb --cmakedir>/toolchains/...), which sets it")
  endif()
  set(file "${CMAKE_BINARY_DIR}/etsb_platform/platform.cmake")
  _etsb_platform_query("${file}" --platform "${ETSB_PLATFORM}" --config "${ETSB_CONFIG}")
  include("${file}")
  # The table: an edit configures again.
  get_property(root GLOBAL PROPERTY ETSB_ROOT)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    "${root}/tools/selective_build/driver/platforms.py")
  set_property(GLOBAL PROPERTY ETSB_PLATFORM "${ETSB_PLATFORM}")
  set_property(GLOBAL PROPERTY ETSB_CONFIG "${ETSB_CONFIG}")
  set_property(GLOBAL PROPERTY ETSB_PLATFORM_HOSTED "${ETSB_PLATFORM_HOSTED}")
  set_property(GLOBAL PROPERTY ETSB_COMPILE_FLAGS ${ETSB_PLATFORM_COMPILE_OPTIONS} ${ETSB_COMPILE_OPTIONS})
  # C sources (CMSIS-NN's) take the platform's flags that C has.
  set_property(GLOBAL PROPERTY ETSB_C_COMPILE_FLAGS ${ETSB_PLATFORM_C_COMPILE_OPTIONS})
  set_property(GLOBAL PROPERTY ETSB_LINK_FLAGS ${ETSB_PLATFORM_LINK_OPTIONS} ${ETSB_LINK_OPTIONS})
  if(CMAKE_CROSSCOMPILING AND NOT CMAKE_CROSSCOMPILING_EMULATOR AND ETSB_PLATFORM_EMULATOR)
    # How this machine runs the platform's programs (targets made after this take it).
    set(CMAKE_CROSSCOMPILING_EMULATOR "${ETSB_PLATFORM_EMULATOR}" PARENT_SCOPE)
  endif()
endfunction()

# The ExecuTorch tree of the build, in `out`: et_executorch_tree's, else
# EXECUTORCH_ROOT's (the variable's, then the environment's). None fails the
# rule call `macro` `name`, which needs it (ARGV3: what for, when not RUNTIME static).
function(_etsb_tree_root macro name out)
  set(why "RUNTIME static compiles ExecuTorch's runtime")
  if(DEFINED _ETSB_TREE_WHY)
    set(why "${_ETSB_TREE_WHY}")
  endif()
  if(ARGC GREATER 3)
    set(why "${ARGV3}")
  endif()
  get_property(tree GLOBAL PROPERTY ETSB_EXECUTORCH_TREE)
  if("${tree}" STREQUAL "")
    # The snapshot beside the checkout last, as etsb's driver takes it.
    _etsb_first_tree(tree "${EXECUTORCH_ROOT}" "$ENV{EXECUTORCH_ROOT}"
                     "${CMAKE_SOURCE_DIR}/../shared/third_party/executorch")
  endif()
  if("${tree}" STREQUAL "")  # (an unset property leaves the variable unset)
    _etsb_fail(${macro} ${name} "${why} from an ExecuTorch source tree, "
      "and this build has none: call et_executorch_tree(ROOT <tree>) before it, configure with "
      "-DEXECUTORCH_ROOT=<tree> (find_package(etsb) takes it) or with EXECUTORCH_ROOT in the environment, "
      "or keep the snapshot beside the checkout (../shared/third_party/executorch beside the source tree), "
      "or give RUNTIME wheel for the executorch wheel's runtime, on this machine only")
  endif()
  set(${out} "${tree}" PARENT_SCOPE)
endfunction()

# ExecuTorch's runtime from the build's tree, made once (for the rule call
# `macro` `name`): etsb_tree_runtime_core (what libraries compile against and
# binaries link; the overlay's runtime_core), the board's libraries on a
# platform without an operating system, and etsb_tree_runtime_ops (every
# prim op and the 2,000-slot registry, linked whole: the overlay's runtime).
function(_etsb_tree_runtime macro name)
  if(TARGET etsb_tree_runtime_core)
    return()
  endif()
  _etsb_tree_root(${macro} ${name} tree)
  get_property(platform GLOBAL PROPERTY ETSB_PLATFORM)
  get_property(config GLOBAL PROPERTY ETSB_CONFIG)
  set(dir "${CMAKE_BINARY_DIR}/etsb_tree")
  _etsb_platform_query("${dir}/runtime.cmake" --platform "${platform}" --config "${config}"
    --executorch-root "${tree}" --workspace "${dir}")
  include("${dir}/runtime.cmake")
  # The overlay defines the runtime: an edit configures again.
  get_property(root GLOBAL PROPERTY ETSB_ROOT)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${root}/rules/executorch_tree/BUILD.overlay")
  add_custom_command(OUTPUT ${ETSB_TREE_SCHEMA_OUTPUTS} COMMAND sh -c "${ETSB_TREE_SCHEMA_COMMAND}"
    DEPENDS ${ETSB_TREE_SCHEMA_INPUTS} WORKING_DIRECTORY "${ETSB_TREE_DIRECTORY}"
    COMMENT "flatc ExecuTorch's program schema" VERBATIM)
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  _etsb_tree_library(etsb_tree_runtime_core STATIC RUNTIME_CORE ${ETSB_TREE_SCHEMA_OUTPUTS})
  target_include_directories(etsb_tree_runtime_core INTERFACE ${ETSB_TREE_INCLUDES})
  target_compile_definitions(etsb_tree_runtime_core INTERFACE ${ETSB_TREE_DEFINES})
  # The program loader, with its verifier (programs read at run time) and without (embedded ones).
  _etsb_tree_library(etsb_tree_program STATIC PROGRAM ${ETSB_TREE_SCHEMA_OUTPUTS})
  _etsb_tree_library(etsb_tree_program_unverified STATIC PROGRAM_UNVERIFIED ${ETSB_TREE_SCHEMA_OUTPUTS})
  set(whole "")
  set(link_options "")
  set(link_depends "")
  foreach(part IN LISTS ETSB_TREE_BOARD_LIBRARIES)
    string(TOLOWER "etsb_tree_${part}" target)
    list(APPEND link_options ${ETSB_TREE_${part}_LINK_OPTIONS})
    list(APPEND link_depends ${ETSB_TREE_${part}_LINK_DEPENDS})
    if(NOT ETSB_TREE_${part}_SOURCES)
      continue()
    elseif(ETSB_TREE_${part}_LINK_WHOLE)
      _etsb_tree_library(${target} OBJECT ${part})
      list(APPEND whole ${target})
    else()
      _etsb_tree_library(${target} STATIC ${part})
      target_link_libraries(etsb_tree_runtime_core INTERFACE ${target})
    endif()
  endforeach()
  add_library(etsb_tree_runtime_ops OBJECT EXCLUDE_FROM_ALL ${ETSB_TREE_PRIM_OPS_SOURCES} ${ETSB_TREE_REGISTRY_SOURCES})
  _etsb_cxx_target(etsb_tree_runtime_ops)
  target_link_libraries(etsb_tree_runtime_ops PRIVATE etsb_tree_runtime_core)
  _etsb_tree_file_names(etsb_tree_runtime_ops)
  foreach(property WHOLE LINK_OPTIONS LINK_DEPENDS PRIM_OPS_SOURCES REGISTRY_SOURCES DIRECTORY)
    string(TOLOWER "${property}" variable)
    if(NOT DEFINED ${variable})
      set(${variable} ${ETSB_TREE_${property}})
    endif()
    set_property(GLOBAL PROPERTY ETSB_TREE_${property} ${${variable}})
  endforeach()
  _etsb_tree_runtime_targets()
endfunction()

# A library `target` (`kind`: STATIC or OBJECT) of the tree's runtime, from the
# overlay's library `part` (its ETSB_TREE_<part>_* variables), with the
# sources ARGN besides; its flags are its own, after every target's.
function(_etsb_tree_library target kind part)
  add_library(${target} ${kind} EXCLUDE_FROM_ALL ${ETSB_TREE_${part}_SOURCES} ${ARGN})
  _etsb_cxx_target(${target})
  target_compile_options(${target} PRIVATE ${ETSB_TREE_${part}_FLAGS})
  _etsb_tree_file_names(${target})
  if(NOT part STREQUAL "RUNTIME_CORE")
    target_link_libraries(${target} PRIVATE etsb_tree_runtime_core)
  endif()
endfunction()

# The tree's sources compiled by `target` name themselves (__FILE__, in the
# messages of failed checks) by their path in the scratch workspace, as the
# driver's do in its own: the binary's bytes do not depend on the build folder.
function(_etsb_tree_file_names target)
  get_property(directory GLOBAL PROPERTY ETSB_TREE_DIRECTORY)
  if("${directory}" STREQUAL "")
    set(directory "${ETSB_TREE_DIRECTORY}")
  endif()
  target_compile_options(${target} PRIVATE "-fmacro-prefix-map=${directory}/=")
endfunction()

# The runtime target that libraries of runtime `runtime` (shared or static)
# compile against, in `out`: the wheel's etsb::executorch or the tree's
# etsb_tree_runtime_core (made for the rule call `macro` `name` if need be).
function(_etsb_runtime_target macro name runtime out)
  if(runtime STREQUAL "static")
    _etsb_tree_runtime(${macro} ${name})
    set(${out} etsb_tree_runtime_core PARENT_SCOPE)
  else()
    set(${out} etsb::executorch PARENT_SCOPE)
  endif()
endfunction()

# Fails unless `runtime` is a runtime kind (RUNTIME of the rule call `macro` `name`).
function(_etsb_check_runtime macro name runtime)
  if(NOT runtime MATCHES "^(shared|static)$")
    _etsb_fail(${macro} ${name} "RUNTIME must be shared (the executorch wheel's libexecutorch.so) or static "
      "(ExecuTorch's runtime compiled from the tree), not '${runtime}'")
  endif()
endfunction()

# The object library of the runner a binary links, made once, in `out`: the
# deploy runner (tools/runner/deploy.cpp, for a program `embedded` or read
# from a file) when `deploy`, else the development runner (runner.cpp), against
# the runtime `runtime` (shared or static).
function(_etsb_runner_library deploy embedded runtime out)
  get_property(root GLOBAL PROPERTY ETSB_ROOT)
  if(deploy)
    set(target etsb_deploy)
    if(embedded)
      set(target etsb_deploy_embedded)
    endif()
    set(source "${root}/tools/runner/deploy.cpp")
  else()
    set(target etsb_runner)
    set(source "${root}/tools/runner/runner.cpp")
  endif()
  if(runtime STREQUAL "static")
    string(APPEND target _tree)
  endif()
  set(${out} ${target} PARENT_SCOPE)
  if(TARGET ${target})
    return()
  endif()
  add_library(${target} OBJECT EXCLUDE_FROM_ALL "${source}")
  _etsb_cxx_target(${target})
  if(deploy AND embedded)
    target_compile_definitions(${target} PRIVATE ETSB_DEPLOY_EMBEDDED=1)
  elseif(deploy)
    target_compile_definitions(${target} PRIVATE ETSB_DEPLOY_EMBEDDED=0)
  else()
    target_compile_definitions(${target} PRIVATE ETSB_MODEL_ENTRY)
    if(NOT runtime STREQUAL "static")
      # Its users link the wheel's thread pool (tools/runner/threads.h; etsb.cmake's
      # _etsb_wheel_threadpool and _etsb_runner_binary).
      get_property(threadpool GLOBAL PROPERTY ETSB_THREADPOOL_LIBRARY)
      target_compile_definitions(${target} PRIVATE ETSB_RUNNER_THREADPOOL)
      target_link_libraries(${target} INTERFACE "${threadpool}")
    endif()
  endif()
  _etsb_runtime_target(_etsb_runner_library ${target} ${runtime} runtime_target)
  target_link_libraries(${target} PRIVATE ${runtime_target})
endfunction()

# The deploy settings of the calling et_model_binary `name` (its ARG_RUNTIME,
# ARG_EMBED_MODEL, ARG_INPUTS, ARG_METHOD_POOL_BYTES, ARG_TEMP_POOL_BYTES and
# ARG_DEPS; `model` its program), checked by the driver's rules, and its
# deploy source when it needs one. Sets in the caller:
#   _ETSB_RUNTIME        shared or static (_etsb_model_binary_runtime)
#   _ETSB_SHIPPED        whether RUNTIME auto chose to ship: dtype-selective kernels, stripped
#   _ETSB_DEPLOY         whether it links the deploy runner: EMBED_MODEL, ETSB_CONFIG size,
#                        a platform without an operating system, or shipped
#   _ETSB_EMBEDDED       EMBED_MODEL
#   _ETSB_SIZED          whether its runtime registers only the prim ops its program calls, in a
#                        registry of its own size: RUNTIME static in ETSB_CONFIG size, without DEPS
#   _ETSB_DEPLOY_SOURCE  <name>_deploy.cpp (etsb deploy-source), with <name>_deploy/selected_prim_ops.h
function(_etsb_model_binary_deploy macro name model)
  _etsb_model_binary_runtime(${macro} ${name} runtime shipped)
  get_property(platform GLOBAL PROPERTY ETSB_PLATFORM)
  get_property(config GLOBAL PROPERTY ETSB_CONFIG)
  if(runtime STREQUAL "shared" AND NOT platform STREQUAL "host")
    _etsb_fail(${macro} ${name} "it is built for ETSB_PLATFORM ${platform}, where the executorch wheel's "
      "libexecutorch.so (an x86-64 Linux library) cannot run: give it RUNTIME static, ExecuTorch's runtime "
      "compiled from the tree")
  endif()
  if(ARG_INPUTS AND NOT ARG_EMBED_MODEL)
    _etsb_fail(${macro} ${name} "INPUTS are embedded beside the model: give EMBED_MODEL too")
  endif()
  foreach(attr METHOD_POOL_BYTES TEMP_POOL_BYTES)
    if(NOT DEFINED ARG_${attr})
      set(ARG_${attr} 0)
    elseif(NOT ARG_${attr} MATCHES "^[0-9]+$")
      _etsb_fail(${macro} ${name} "${attr} must be a number of bytes, not '${ARG_${attr}}'")
    endif()
  endforeach()
  get_property(hosted GLOBAL PROPERTY ETSB_PLATFORM_HOSTED)
  set(deploy OFF)
  if(ARG_EMBED_MODEL OR config STREQUAL "size" OR NOT hosted OR shipped)
    set(deploy ON)
  endif()
  set(sized OFF)
  if(runtime STREQUAL "static" AND config STREQUAL "size" AND NOT ARG_DEPS)
    set(sized ON)
  endif()
  if(shipped)  # what needs the tree, said if there is none
    string(CONCAT _ETSB_TREE_WHY "RUNTIME auto ships a binary of ETSB_CONFIG ${config} for ETSB_PLATFORM "
      "${platform} with ExecuTorch's runtime compiled")
  endif()
  if(runtime STREQUAL "static")
    _etsb_tree_runtime(${macro} ${name})
  endif()
  set(source "${CMAKE_CURRENT_BINARY_DIR}/${name}_deploy.cpp")
  if(deploy OR sized)
    _etsb_deploy_source(${macro} ${name} "${model}" "${source}" ${sized})
  endif()
  set(_ETSB_RUNTIME ${runtime} PARENT_SCOPE)
  set(_ETSB_SHIPPED ${shipped} PARENT_SCOPE)
  set(_ETSB_DEPLOY ${deploy} PARENT_SCOPE)
  set(_ETSB_EMBEDDED ${ARG_EMBED_MODEL} PARENT_SCOPE)
  set(_ETSB_SIZED ${sized} PARENT_SCOPE)
  set(_ETSB_DEPLOY_SOURCE "${source}" PARENT_SCOPE)
endfunction()

# `etsb deploy-source` for the calling et_model_binary `name` (its ARG_*):
# `source`, the deploy runner's static memory sized from `model` (the program
# and INPUTS in it with EMBED_MODEL) and, with `prim_ops`, <name>_deploy/selected_prim_ops.h.
function(_etsb_deploy_source macro name model source prim_ops)
  _etsb_tool_path("${model}" model_arg)
  set(args --model "${model_arg}" --output "${source}" --method-pool-bytes ${ARG_METHOD_POOL_BYTES}
           --temp-pool-bytes ${ARG_TEMP_POOL_BYTES})
  set(outputs "${source}")
  set(depends "${model}")
  foreach(input IN LISTS ARG_INPUTS)
    if(NOT input MATCHES "\\.npy$")
      _etsb_fail(${macro} ${name} "INPUTS must name .npy arrays, got '${input}'")
    endif()
    _etsb_source_file(${macro} ${name} INPUTS "${input}" path)
    _etsb_tool_path("${path}" arg)
    list(APPEND args --inputs "${arg}")
    list(APPEND depends "${path}")
  endforeach()
  if(ARG_EMBED_MODEL)
    # An embedded program is verified at build time (ExecuTorch's verifier, on the host), against the
    # runtime wheel etsb uses: its checks run when the verifier's sources change too.
    get_property(runtime_root GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
    get_property(root GLOBAL PROPERTY ETSB_ROOT)
    list(APPEND args --embed --runtime-library "${runtime_root}/lib/libexecutorch.so")
    list(APPEND depends "${root}/tools/runner/verify_program.cpp" "${root}/tools/runner/program_check.h")
  endif()
  if(prim_ops)
    set(header "${CMAKE_CURRENT_BINARY_DIR}/${name}_deploy/selected_prim_ops.h")
    list(APPEND outputs "${header}")
    list(APPEND args --prim-ops-header "${header}")
  endif()
  _etsb_run(SUBCOMMAND deploy-source TARGET ${name} OUTPUTS ${outputs} DEPENDS ${depends} ARGS ${args})
endfunction()

# Links the binary `binary` with ExecuTorch's runtime from the tree and the
# generated library `lib`: the program loader (without its verifier when a
# sized binary embeds its program, which was read at build time), the board's
# objects and link options, and every prim op with the 2,000-slot registry,
# or (_ETSB_SIZED) <binary>_runtime.
function(_etsb_tree_binary binary lib)
  set(program etsb_tree_program)
  if(_ETSB_SIZED AND _ETSB_EMBEDDED)
    set(program etsb_tree_program_unverified)
  endif()
  target_link_libraries(${binary} PRIVATE ${lib} ${program} etsb_tree_runtime_core)
  get_property(whole GLOBAL PROPERTY ETSB_TREE_WHOLE)
  if(_ETSB_SIZED)
    _etsb_sized_runtime(${binary} ${lib})
    list(APPEND whole ${binary}_runtime)
  else()
    list(APPEND whole etsb_tree_runtime_ops)
  endif()
  foreach(objects IN LISTS whole)
    target_sources(${binary} PRIVATE $<TARGET_OBJECTS:${objects}>)
  endforeach()
  get_property(options GLOBAL PROPERTY ETSB_TREE_LINK_OPTIONS)
  get_property(depends GLOBAL PROPERTY ETSB_TREE_LINK_DEPENDS)
  target_link_options(${binary} PRIVATE ${options})
  set_property(TARGET ${binary} APPEND PROPERTY LINK_DEPENDS ${depends})
endfunction()

# <binary>_runtime: the tree's prim ops, compiled with only those the program
# calls (ExecuTorch's selected_prim_ops.h hook, from the deploy source's
# folder), and its kernel registry with as many slots as the generated library
# `lib` registers (its selected_max_kernel_num.h).
function(_etsb_sized_runtime binary lib)
  get_property(prim_ops GLOBAL PROPERTY ETSB_TREE_PRIM_OPS_SOURCES)
  get_property(registry GLOBAL PROPERTY ETSB_TREE_REGISTRY_SOURCES)
  set(lib_dir "${CMAKE_CURRENT_BINARY_DIR}/${lib}")
  set(prim_ops_dir "${CMAKE_CURRENT_BINARY_DIR}/${_ETSB_MODEL_NAME}_deploy")
  add_library(${binary}_runtime OBJECT EXCLUDE_FROM_ALL ${prim_ops} ${registry} "${prim_ops_dir}/selected_prim_ops.h"
    "${lib_dir}/executorch/runtime/kernel/selected_max_kernel_num.h")
  _etsb_cxx_target(${binary}_runtime)
  target_compile_definitions(${binary}_runtime PRIVATE EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD
                                                       ET_PRIM_OPS_SELECTIVE_BUILD)
  target_include_directories(${binary}_runtime PRIVATE "${prim_ops_dir}" "${lib_dir}")
  target_link_libraries(${binary}_runtime PRIVATE etsb_tree_runtime_core)
  _etsb_tree_file_names(${binary}_runtime)
endfunction()
