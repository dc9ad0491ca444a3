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
#                         aarch64-linux or cortex-m55; etsb's toolchain files set it
#                         (<etsb --cmakedir>/toolchains/aarch64-linux-gnu.cmake, cortex-m55.cmake)
#   ETSB_TORCH_INCLUDE    PyTorch's C++ headers, for an ExecuTorch tree's optimized kernels
#                         (et_executorch_tree defines them only when it is set)
#
# Defined for the including directory:
#   ETSB_ROOT                      the etsb repository
#   ETSB_PORTABLE_FUNCTIONS_YAML   etsb's portable kernel yaml (kernels/portable/functions.yaml)
#   ETSB_QUANTIZED_CUSTOM_OPS_YAML etsb's quantized kernel yaml (kernels/quantized/quantized.yaml, a
#                                  CUSTOM_OPS_YAML_TARGET for int8 programs' quantized_decomposed ops)
#   ETSB_RUNNER_SOURCE             tools/runner/runner.cpp, the `main` of model binaries
# and, once, the targets etsb::executorch (the runtime, imported),
# etsb_portable_kernels (the portable kernels, an et_kernel_library),
# etsb_quantized_kernels (the quantized kernels, likewise) and
# etsb_runner (the runner compiled with -DETSB_MODEL_ENTRY, an object library
# whose users link ExecuTorch's thread pool, the property ETSB_THREADPOOL_LIBRARY);
# with the first rule of RUNTIME static, etsb_tree_runtime_core (ExecuTorch's
# runtime compiled from the tree, rules/private/etsb_deploy.cmake).
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
set(ETSB_RUNNER_SOURCE "${ETSB_ROOT}/tools/runner/runner.cpp")

include_guard(GLOBAL)

get_property(_etsb_languages GLOBAL PROPERTY ENABLED_LANGUAGES)
if(NOT "CXX" IN_LIST _etsb_languages)
  message(FATAL_ERROR "etsb.cmake: include it after project(... LANGUAGES CXX): its rules compile C++")
endif()

include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_internal.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/private/etsb_deploy.cmake")

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

# ---------------------------------------------------------------------------
# et_operator_library(NAME <name>
#                     [OPS <op>...] [OPS_DICT <json>] [MODEL <pte>] [MODELS <pte>...]
#                     [INCLUDE_ALL_OPERATORS] [OPS_SCHEMA_YAML_TARGET <yaml>] [DEPS <lib>...]
#                     [BACKENDS <backend id>...])
#
# Selects operators, and their dtypes and dim orders, for a binary. Every
# source given is used and the selection is their union (`debug_info` in the
# output names the source of each operator). Output:
# ${CMAKE_CURRENT_BINARY_DIR}/<name>/selected_operators.yaml, in ExecuTorch's
# format, made by `etsb gen-oplist`; the target <name> stands for it.
#
#   NAME                    the target name.
#   OPS                     operator names, e.g. aten::add.out aten::mm.out (`aten::` may be left out).
#   OPS_DICT                a JSON object: operator -> list of dtype names (["Float"]) or kernel
#                           keys; [] keeps every dtype. Write it as a bracket argument:
#                           OPS_DICT [[{"aten::add.out": ["Float"]}]].
#   MODEL                   a .pte program whose operators and exact kernel keys are selected.
#   MODELS                  more .pte programs, as MODEL.
#   INCLUDE_ALL_OPERATORS   select every operator (the build is then not selective).
#   OPS_SCHEMA_YAML_TARGET  a kernel yaml (file or merge_yaml target) whose every operator is
#                           selected. Also spelt OPS_SCHEMA_YAML.
#   DEPS                    et_operator_library targets (or selected_operators.yaml files)
#                           whose selections are included.
#   BACKENDS                backend ids (XnnpackBackend) to select beside those the models'
#                           delegates use, which are always recorded.
# ---------------------------------------------------------------------------
function(et_operator_library)
  set(macro et_operator_library)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "INCLUDE_ALL_OPERATORS"
    "NAME;OPS_DICT;MODEL;OPS_SCHEMA_YAML_TARGET;OPS_SCHEMA_YAML" "OPS;MODELS;DEPS;BACKENDS")
  _etsb_check_arguments(${macro} ALIASES OPS_SCHEMA_YAML OPS_SCHEMA_YAML_TARGET
    KEYWORDS NAME OPS OPS_DICT MODEL MODELS INCLUDE_ALL_OPERATORS OPS_SCHEMA_YAML_TARGET DEPS BACKENDS)
  foreach(attr OPS MODELS DEPS BACKENDS)
    _etsb_check_list_values(${macro} ${name} ${attr} ${ARG_${attr}})
  endforeach()
  _etsb_check_values(${macro} ${name} OPS ARG_OPS OPS_DICT ARG_OPS_DICT BACKENDS ARG_BACKENDS)

  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  set(output "${dir}/selected_operators.yaml")
  set(args --output_path "${output}")
  set(depends "")
  set(members 0)
  if(ARG_OPS)
    _etsb_joined_argument(--root_ops args ARG_OPS)
  endif()
  if(DEFINED ARG_OPS_DICT)
    string(JSON members LENGTH "${ARG_OPS_DICT}")
    if(members GREATER 0)
      # Kernel keys hold ';', which would split the argument in a CMake list.
      string(REPLACE ";" "$<SEMICOLON>" ops_dict "${ARG_OPS_DICT}")
      list(APPEND args --ops_dict "${ops_dict}")
    endif()
  endif()
  _etsb_operator_models(${macro} ${name})
  _etsb_operator_inputs(${macro} ${name})
  if(ARG_INCLUDE_ALL_OPERATORS)
    list(APPEND args --include_all_operators)
  endif()
  if(ARG_BACKENDS)
    _etsb_joined_argument(--backends args ARG_BACKENDS)
  endif()
  if(NOT (ARG_OPS OR members GREATER 0 OR models OR ARG_INCLUDE_ALL_OPERATORS
          OR DEFINED ARG_OPS_SCHEMA_YAML_TARGET OR ARG_DEPS OR ARG_BACKENDS))
    _etsb_fail(${macro} ${name}
      "selects nothing: give OPS, OPS_DICT, MODEL, MODELS, OPS_SCHEMA_YAML_TARGET, DEPS, BACKENDS or INCLUDE_ALL_OPERATORS")
  endif()

  _etsb_run(SUBCOMMAND gen-oplist TARGET ${name} OUTPUTS "${output}" DEPENDS ${depends} ARGS ${args})
  _etsb_output_target(${name} et_operator_library "${output}")
endfunction()

# The MODEL and MODELS of the calling et_operator_library (its ARG_*), each
# checked, for gen-oplist: appended to the caller's `args` and `depends`; the
# caller's `models` is set to them.
function(_etsb_operator_models macro name)
  set(models "")
  if(DEFINED ARG_MODEL)
    list(APPEND models "${ARG_MODEL}")
  endif()
  list(APPEND models ${ARG_MODELS})
  set(seen "")
  foreach(model IN LISTS models)
    if(model STREQUAL ARG_MODEL)
      set(attr MODEL)
    else()
      set(attr MODELS)
    endif()
    _etsb_check_model(${macro} ${name} ${attr} "${model}")
    _etsb_source_file(${macro} ${name} ${attr} "${model}" path)
    if(path IN_LIST seen)
      _etsb_fail(${macro} ${name} "the model '${model}' is given twice")
    endif()
    list(APPEND seen "${path}")
    _etsb_tool_path("${path}" arg)
    list(APPEND args --model_file_path "${arg}")
    list(APPEND depends "${path}")
  endforeach()
  set(models "${models}" PARENT_SCOPE)
  set(args "${args}" PARENT_SCOPE)
  set(depends "${depends}" PARENT_SCOPE)
endfunction()

# The OPS_SCHEMA_YAML_TARGET and DEPS of the calling et_operator_library (its
# ARG_*), resolved to files for gen-oplist: appended to the caller's `args`
# and `depends`.
function(_etsb_operator_inputs macro name)
  if(DEFINED ARG_OPS_SCHEMA_YAML_TARGET)
    _etsb_input(${macro} ${name} OPS_SCHEMA_YAML_TARGET "${ARG_OPS_SCHEMA_YAML_TARGET}" yaml KINDS merge_yaml)
    _etsb_tool_path("${yaml_FILE}" arg)
    list(APPEND args --ops_schema_yaml_path "${arg}")
    list(APPEND depends ${yaml_DEPENDS})
  endif()
  foreach(dep IN LISTS ARG_DEPS)
    _etsb_input(${macro} ${name} DEPS "${dep}" sel KINDS et_operator_library)
    _etsb_tool_path("${sel_FILE}" arg)
    list(APPEND args --selection_yaml_path "${arg}")
    list(APPEND depends ${sel_DEPENDS})
  endforeach()
  set(args "${args}" PARENT_SCOPE)
  set(depends "${depends}" PARENT_SCOPE)
endfunction()

# ---------------------------------------------------------------------------
# merge_yaml(NAME <name> FUNCTIONS_YAML <yaml> FALLBACK_YAML <yaml>)
# merge_yaml(FUNCTIONS_YAML <yaml> FALLBACK_YAML <yaml> OUTPUT_DIR <dir>)
#
# Merges FUNCTIONS_YAML over FALLBACK_YAML, the first winning per operator
# (matched by full name, overload included); both are validated first. Output:
# ${CMAKE_CURRENT_BINARY_DIR}/<name>/merged.yaml, made by `etsb merge-yaml`;
# the target <name> stands for it (usable as any rule's *_YAML_TARGET). The
# second form is ExecuTorch's (the seeds'): the output is <dir>/merged.yaml,
# a file the other rules take as a yaml.
#
#   NAME            the target name.
#   FUNCTIONS_YAML  the vendor kernel yaml (a file or a merge_yaml target).
#   FALLBACK_YAML   the fallback kernel yaml, e.g. ${ETSB_PORTABLE_FUNCTIONS_YAML}.
#   OUTPUT_DIR      instead of NAME: where merged.yaml goes (relative: to the
#                   current binary directory).
# ---------------------------------------------------------------------------
function(merge_yaml)
  set(macro merge_yaml)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;FUNCTIONS_YAML;FALLBACK_YAML;OUTPUT_DIR" "")
  set(output_dir "")
  if(DEFINED ARG_OUTPUT_DIR)
    if(DEFINED ARG_NAME)
      _etsb_fail(${macro} "${ARG_NAME}" "give NAME (output in the target's folder) or OUTPUT_DIR, not both")
    endif()
    cmake_path(ABSOLUTE_PATH ARG_OUTPUT_DIR BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE
      OUTPUT_VARIABLE output_dir)
    string(SHA1 digest "${output_dir}")
    string(SUBSTRING "${digest}" 0 12 digest)
    set(ARG_NAME "etsb_merged_yaml_${digest}")
  endif()
  _etsb_check_arguments(${macro} KEYWORDS NAME FUNCTIONS_YAML FALLBACK_YAML OUTPUT_DIR)
  foreach(attr FUNCTIONS_YAML FALLBACK_YAML)
    if(NOT DEFINED ARG_${attr})
      _etsb_fail(${macro} ${name} "${attr} is missing")
    endif()
  endforeach()
  _etsb_input(${macro} ${name} FUNCTIONS_YAML "${ARG_FUNCTIONS_YAML}" functions KINDS merge_yaml)
  _etsb_input(${macro} ${name} FALLBACK_YAML "${ARG_FALLBACK_YAML}" fallback KINDS merge_yaml)
  if(functions_FILE STREQUAL fallback_FILE)
    _etsb_fail(${macro} ${name} "FUNCTIONS_YAML and FALLBACK_YAML are the same file '${ARG_FUNCTIONS_YAML}'")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  if(output_dir)
    set(dir "${output_dir}")
  endif()
  _etsb_tool_path("${functions_FILE}" functions_arg)
  _etsb_tool_path("${fallback_FILE}" fallback_arg)
  _etsb_run(SUBCOMMAND merge-yaml TARGET ${name} OUTPUTS "${dir}/merged.yaml"
    DEPENDS ${functions_DEPENDS} ${fallback_DEPENDS}
    ARGS --functions_yaml_path "${functions_arg}" --fallback_yaml_path "${fallback_arg}" --output_dir "${dir}")
  _etsb_output_target(${name} merge_yaml "${dir}/merged.yaml")
endfunction()

# ---------------------------------------------------------------------------
# et_kernel_library(NAME <name> SRCS <file>... [HDRS <file>...] [DEPS <lib>...] [COPTS <flag>...]
#                   [SELECTIVE])
#
# A static library of kernels, usable in the KERNEL_DEPS of the other rules.
# The linker keeps only the kernels that registration refers to; a
# dtype-selective executorch_generated_lib compiles SRCS again with its
# selected_op_variants.h (which is why it must know them).
#
#   NAME       the target name.
#   SRCS       the kernel sources (op_<name>.cpp) and the utility sources they need. Also spelt SOURCES.
#   HDRS       headers the kernels share (their utility layer). Also spelt HEADERS.
#   DEPS       other libraries the kernels need (the runtime, etsb::executorch, is always added).
#   COPTS      extra compiler flags for the kernels (kept in the dtype-selective recompile).
#   SELECTIVE  an executorch_generated_lib compiles, of SRCS, only what its kernels need (`etsb
#              kernel-sources` reads SRCS and HDRS: the file defining each kernel, the utility
#              sources its headers name); <name> itself is then built only when something links
#              it. For large libraries such as ExecuTorch's portable kernels.
# ---------------------------------------------------------------------------
function(et_kernel_library)
  set(macro et_kernel_library)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "SELECTIVE" "NAME" "SRCS;SOURCES;HDRS;HEADERS;DEPS;COPTS")
  _etsb_check_arguments(${macro} ALIASES SOURCES SRCS HEADERS HDRS KEYWORDS NAME SRCS HDRS DEPS COPTS SELECTIVE)
  foreach(attr SRCS HDRS DEPS)
    _etsb_check_list_values(${macro} ${name} ${attr} ${ARG_${attr}})
  endforeach()
  if(NOT ARG_SRCS)
    _etsb_fail(${macro} ${name} "SRCS is empty")
  endif()
  foreach(attr SRCS HDRS)
    set(${attr} "")
    foreach(file IN LISTS ARG_${attr})
      _etsb_source_file(${macro} ${name} ${attr} "${file}" path)
      list(APPEND ${attr} "${path}")
    endforeach()
  endforeach()
  foreach(dep IN LISTS ARG_DEPS)
    if(NOT TARGET "${dep}" AND NOT dep MATCHES "^-")
      _etsb_fail(${macro} ${name} "DEPS names '${dep}', which is not a target defined before this call")
    endif()
  endforeach()
  set(exclude "")
  if(_ETSB_EXCLUDE_FROM_ALL OR ARG_SELECTIVE)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  add_library(${name} STATIC ${exclude} ${SRCS} ${HDRS})
  _etsb_cxx_target(${name})
  target_compile_options(${name} PRIVATE ${ARG_COPTS})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} etsb::executorch)
  set_target_properties(${name} PROPERTIES ETSB_KIND et_kernel_library ETSB_SRCS "${SRCS}" ETSB_HDRS "${HDRS}"
    ETSB_COPTS "${ARG_COPTS}" ETSB_DEPS "${ARG_DEPS}" ETSB_SELECTIVE "${ARG_SELECTIVE}")
endfunction()

# ---------------------------------------------------------------------------
# et_backend_library(NAME <name> BACKENDS <backend id>... LIBRARY <so> [NEEDS <so>...])
#
# Declares a shared library that registers ExecuTorch backends when it is
# loaded (a delegated program calls its delegates through the backend
# registered under their id, e.g. XnnpackBackend). Name it in BACKEND_DEPS of
# executorch_generated_lib or et_model_binary: the build checks that every
# backend the selected programs use is declared by one of them, and links
# exactly those the programs use. The declaration is
# ${CMAKE_CURRENT_BINARY_DIR}/<name>/backend_library.yaml (`etsb backend-library`).
# The runtime wheel's backends are declared already: etsb_xnnpack_backend,
# etsb_qnn_backend and etsb_openvino_backend (their libraries are copied beside
# the build tree's libexecutorch.so, where binaries find them).
#
#   NAME      the target name.
#   BACKENDS  the backend ids the library registers.
#   LIBRARY   the shared library to link (a path; relative to the current source directory).
#   NEEDS     libraries it loads beside it at run time (they must sit where its run path finds them).
# ---------------------------------------------------------------------------
function(et_backend_library)
  set(macro et_backend_library)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;LIBRARY" "BACKENDS;NEEDS")
  _etsb_check_arguments(${macro} KEYWORDS NAME BACKENDS LIBRARY NEEDS)
  foreach(attr BACKENDS NEEDS)
    _etsb_check_list_values(${macro} ${name} ${attr} ${ARG_${attr}})
  endforeach()
  if(NOT ARG_BACKENDS)
    _etsb_fail(${macro} ${name} "BACKENDS is empty: name the backend ids the library registers")
  endif()
  if(NOT DEFINED ARG_LIBRARY)
    _etsb_fail(${macro} ${name} "LIBRARY is missing (the shared library that registers the backends)")
  endif()
  _etsb_check_values(${macro} ${name} BACKENDS ARG_BACKENDS)
  set(args "")
  _etsb_joined_argument(--backends args ARG_BACKENDS)
  set(files "")
  foreach(attr LIBRARY NEEDS)
    foreach(value IN LISTS ARG_${attr})
      cmake_path(ABSOLUTE_PATH value BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE path)
      if(NOT EXISTS "${path}")
        _etsb_fail(${macro} ${name} "${attr}: '${value}' does not exist (looked for ${path})")
      endif()
      list(APPEND files "${path}")
      _etsb_tool_path("${path}" arg)
      string(TOLOWER "${attr}" flag)
      list(APPEND args --${flag} "${arg}")
    endforeach()
  endforeach()
  set(output "${CMAKE_CURRENT_BINARY_DIR}/${name}/backend_library.yaml")
  _etsb_run(SUBCOMMAND backend-library TARGET ${name} OUTPUTS "${output}" DEPENDS ${files}
    ARGS ${args} --output "${output}")
  _etsb_output_target(${name} et_backend_library "${output}")
  _etsb_real_target(${name} target)
  set_target_properties(${target} PROPERTIES ETSB_BACKEND_FILES "${files}")
endfunction()

# ---------------------------------------------------------------------------
# executorch_generated_lib(NAME <name>
#                          [FUNCTIONS_YAML_TARGET <yaml>] [CUSTOM_OPS_YAML_TARGET <yaml>]
#                          [FALLBACK_YAML_TARGET <yaml>] [DEPS <operator lib>...]
#                          KERNEL_DEPS <kernel lib>...
#                          [DTYPE_SELECTIVE_BUILD] [MANUAL_REGISTRATION] [MODEL_ENTRY]
#                          [BACKEND_DEPS <backend lib>...] [RUNTIME shared|static])
#
# Resolves the selected operators to kernels and builds their registration.
# For every operator and kernel key that DEPS select, the kernel yaml names the
# C++ kernel (a specialised kernel whose arg_meta matches the key, else the
# operator's default). A selected operator or key without a kernel fails the
# build (`etsb gen-bindings`) with one message listing every gap. The static
# library <name> holds the generated registration and links the kernels; its
# generated headers are <name>/NativeFunctions.h, <name>/CustomOpsNativeFunctions.h
# and <name>/Functions.h (the library's include path has their parent).
# Helper targets: <name>_merged (with FALLBACK_YAML_TARGET), <name>_selected_operators,
# <name>_bindings and, with DTYPE_SELECTIVE_BUILD, <name>_op_variants and
# <name>_kernels_<kernel lib> (each kernel library recompiled).
#
#   NAME                    the target name; also names the C++ functions
#                           etsb::register_<name>_kernels() and etsb::<name>_kernels() ('-' becomes '_').
#   FUNCTIONS_YAML_TARGET   the kernel yaml of ATen operators (a file or a merge_yaml target),
#                           e.g. ${ETSB_PORTABLE_FUNCTIONS_YAML}. Also spelt FUNCTIONS_YAML.
#   CUSTOM_OPS_YAML_TARGET  a kernel yaml of custom operators (func: entries). Also spelt CUSTOM_OPS_YAML.
#   FALLBACK_YAML_TARGET    a kernel yaml that FUNCTIONS_YAML_TARGET is merged over (see merge_yaml).
#                           Also spelt FALLBACK_YAML.
#   DEPS                    et_operator_library targets; their union is what gets registered.
#                           With none, every operator of the yamls is registered.
#   KERNEL_DEPS             the libraries implementing the kernels: et_kernel_library targets
#                           (any library without DTYPE_SELECTIVE_BUILD). Also spelt KERNEL_LIBS.
#   DTYPE_SELECTIVE_BUILD   recompile the KERNEL_DEPS' sources so that their dtype switches keep
#                           only the dtypes the selection uses (-include selected_op_variants.h).
#   MANUAL_REGISTRATION     no static initialiser: the program calls etsb::register_<name>_kernels()
#                           (or passes etsb::<name>_kernels() to Program::load_method). Without it,
#                           the library's users link with --undefined=etsb::register_<name>_kernels(),
#                           which keeps the registration object without whole-archive linking.
#   MODEL_ENTRY             also define etsb::register_model_kernels(), the entry point that the
#                           runner (etsb_runner) calls; et_model_binary sets it.
#   BACKEND_DEPS            et_backend_library targets: every backend the selection needs (delegated
#                           programs, BACKENDS) must be declared by one, or the build fails naming the
#                           model, method and backend id; binaries linking <name> link those needed
#                           and no other (through the generated linker script <name>/backends.ld).
#   RUNTIME                 the ExecuTorch runtime the registration and kernels compile against:
#                           shared (the default), the wheel's libexecutorch.so; static, the runtime
#                           compiled from the build's ExecuTorch tree (et_executorch_tree or
#                           EXECUTORCH_ROOT): every KERNEL_DEPS must then be an et_kernel_library,
#                           compiled again against it, and a binary links the runtime itself, as
#                           et_model_binary does. With MODEL_ENTRY it also writes ExecuTorch's
#                           <name>/executorch/runtime/kernel/selected_max_kernel_num.h (a registry
#                           of as many slots as it registers).
# ---------------------------------------------------------------------------
function(executorch_generated_lib)
  set(macro executorch_generated_lib)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "DTYPE_SELECTIVE_BUILD;MANUAL_REGISTRATION;MODEL_ENTRY"
    "NAME;FUNCTIONS_YAML_TARGET;CUSTOM_OPS_YAML_TARGET;FALLBACK_YAML_TARGET;FUNCTIONS_YAML;CUSTOM_OPS_YAML;FALLBACK_YAML;RUNTIME"
    "DEPS;KERNEL_DEPS;KERNEL_LIBS;BACKEND_DEPS")
  _etsb_check_arguments(${macro}
    ALIASES FUNCTIONS_YAML FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML CUSTOM_OPS_YAML_TARGET
            FALLBACK_YAML FALLBACK_YAML_TARGET KERNEL_LIBS KERNEL_DEPS
    KEYWORDS NAME FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML_TARGET FALLBACK_YAML_TARGET DEPS KERNEL_DEPS
             DTYPE_SELECTIVE_BUILD MANUAL_REGISTRATION MODEL_ENTRY BACKEND_DEPS RUNTIME)
  foreach(attr DEPS KERNEL_DEPS BACKEND_DEPS)
    _etsb_check_list_values(${macro} ${name} ${attr} ${ARG_${attr}})
  endforeach()
  if(NOT DEFINED ARG_FUNCTIONS_YAML_TARGET AND NOT DEFINED ARG_CUSTOM_OPS_YAML_TARGET)
    _etsb_fail(${macro} ${name} "give FUNCTIONS_YAML_TARGET, CUSTOM_OPS_YAML_TARGET or both")
  endif()
  if(DEFINED ARG_FALLBACK_YAML_TARGET AND NOT DEFINED ARG_FUNCTIONS_YAML_TARGET)
    _etsb_fail(${macro} ${name} "FALLBACK_YAML_TARGET needs a FUNCTIONS_YAML_TARGET to merge over it")
  endif()
  if(NOT ARG_KERNEL_DEPS)
    _etsb_fail(${macro} ${name} "KERNEL_DEPS is empty: name the kernel libraries that implement the yaml")
  endif()
  if(ARG_DTYPE_SELECTIVE_BUILD AND NOT ARG_DEPS)
    _etsb_fail(${macro} ${name} "DTYPE_SELECTIVE_BUILD needs DEPS (an operator selection to take dtypes from)")
  endif()
  _etsb_generated_lib_kernels(${macro} ${name})
  _etsb_generated_lib_runtime(${macro} ${name})
  set(exclude "")
  if(_ETSB_EXCLUDE_FROM_ALL)
    set(exclude EXCLUDE_FROM_ALL)
  endif()
  # Operator libraries made here are parts of this library, not built on their own.
  set(_ETSB_PART ON)
  _etsb_generated_lib_selection(${name})
  string(REPLACE "-" "_" lib_name "${name}")
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  _etsb_generated_lib_inputs(${macro} ${name})
  _etsb_generated_bindings(${macro} ${name})
  if(selective)
    _etsb_selected_kernel_sources(${name})
  endif()
  if(ARG_DTYPE_SELECTIVE_BUILD)
    _etsb_selected_op_variants(${name})
  endif()
  if(ARG_DTYPE_SELECTIVE_BUILD OR selective OR static)
    _etsb_recompiled_kernels(${name})
  endif()
  _etsb_generated_library(${name})
endfunction()

# The kernel libraries of the calling executorch_generated_lib (its ARG_*),
# checked. Sets in the caller `kernels` (what the library links), `plain`
# (those that are not et_kernel_library targets, linked as they are) and
# `selective` (whether one is SELECTIVE: then `kernels` leaves `plain` out).
function(_etsb_generated_lib_kernels macro name)
  set(kernels "")
  set(selective OFF)
  foreach(dep IN LISTS ARG_KERNEL_DEPS)
    if(NOT TARGET "${dep}")
      _etsb_fail(${macro} ${name} "KERNEL_DEPS names '${dep}', which is not a target defined before this call")
    endif()
    _etsb_real_target("${dep}" dep)
    get_target_property(kind "${dep}" ETSB_KIND)
    if(kind STREQUAL "et_kernel_library")
      get_target_property(dep_selective "${dep}" ETSB_SELECTIVE)
      if(dep_selective)
        set(selective ON)
      endif()
    endif()
    list(APPEND kernels "${dep}")
  endforeach()
  set(plain "")
  foreach(dep IN LISTS kernels)
    get_target_property(kind "${dep}" ETSB_KIND)
    if(NOT kind STREQUAL "et_kernel_library")
      if(ARG_DTYPE_SELECTIVE_BUILD)
        _etsb_fail(${macro} ${name}
          "KERNEL_DEPS names '${dep}', which is not an et_kernel_library: DTYPE_SELECTIVE_BUILD recompiles its sources")
      endif()
      list(APPEND plain "${dep}")
    endif()
  endforeach()
  if(selective AND plain)
    list(REMOVE_ITEM kernels ${plain})
  endif()
  set(kernels "${kernels}" PARENT_SCOPE)
  set(plain "${plain}" PARENT_SCOPE)
  set(selective ${selective} PARENT_SCOPE)
endfunction()

# The runtime of the calling executorch_generated_lib `name` (its ARG_RUNTIME,
# `plain` and `kernels`), checked: sets in the caller `static` (RUNTIME static)
# and `runtime_target`, what it and its kernels compile against.
function(_etsb_generated_lib_runtime macro name)
  set(runtime shared)
  if(DEFINED ARG_RUNTIME)
    set(runtime "${ARG_RUNTIME}")
  endif()
  _etsb_check_runtime(${macro} ${name} "${runtime}")
  set(static OFF)
  if(runtime STREQUAL "static")
    set(static ON)
    if(plain)
      list(GET plain 0 first)
      _etsb_fail(${macro} ${name} "RUNTIME static compiles the kernels against the tree's runtime, which it cannot "
        "do for '${first}': make it an et_kernel_library")
    endif()
  endif()
  _etsb_runtime_target(${macro} ${name} ${runtime} runtime_target)
  set(static ${static} PARENT_SCOPE)
  set(runtime_target ${runtime_target} PARENT_SCOPE)
endfunction()

# The selection of the calling executorch_generated_lib `name` (its ARG_*):
# the target <name>_selected_operators, the union of DEPS or, without DEPS,
# every operator of the yamls. Sets in the caller `functions_yaml` (the
# FUNCTIONS_YAML_TARGET, or its merge over FALLBACK_YAML_TARGET) and
# `selection` (the selected_operators.yaml).
function(_etsb_generated_lib_selection name)
  set(functions_yaml "${ARG_FUNCTIONS_YAML_TARGET}")
  if(DEFINED ARG_FALLBACK_YAML_TARGET)
    merge_yaml(NAME ${name}_merged FUNCTIONS_YAML "${ARG_FUNCTIONS_YAML_TARGET}" FALLBACK_YAML "${ARG_FALLBACK_YAML_TARGET}")
    set(functions_yaml ${name}_merged)
  endif()
  set(selection_deps ${ARG_DEPS})
  if(NOT ARG_DEPS)
    if(DEFINED ARG_FUNCTIONS_YAML_TARGET)
      et_operator_library(NAME ${name}_all_functions OPS_SCHEMA_YAML_TARGET "${functions_yaml}")
      list(APPEND selection_deps ${name}_all_functions)
    endif()
    if(DEFINED ARG_CUSTOM_OPS_YAML_TARGET)
      et_operator_library(NAME ${name}_all_custom_ops OPS_SCHEMA_YAML_TARGET "${ARG_CUSTOM_OPS_YAML_TARGET}")
      list(APPEND selection_deps ${name}_all_custom_ops)
    endif()
  endif()
  et_operator_library(NAME ${name}_selected_operators DEPS ${selection_deps})
  get_target_property(selection ${name}_selected_operators ETSB_OUTPUT)
  set(functions_yaml "${functions_yaml}" PARENT_SCOPE)
  set(selection "${selection}" PARENT_SCOPE)
endfunction()

# The arguments gen-bindings and kernel-sources share, from the calling
# executorch_generated_lib (its ARG_*, `functions_yaml` and `selection`): sets
# in the caller `args` and `depends` (the files and targets they read).
function(_etsb_generated_lib_inputs macro name)
  set(args "")
  set(depends "")
  if(DEFINED ARG_FUNCTIONS_YAML_TARGET)
    _etsb_input(${macro} ${name} FUNCTIONS_YAML_TARGET "${functions_yaml}" functions KINDS merge_yaml)
    _etsb_tool_path("${functions_FILE}" arg)
    list(APPEND args --functions_yaml_path "${arg}")
    list(APPEND depends ${functions_DEPENDS})
  endif()
  if(DEFINED ARG_CUSTOM_OPS_YAML_TARGET)
    _etsb_input(${macro} ${name} CUSTOM_OPS_YAML_TARGET "${ARG_CUSTOM_OPS_YAML_TARGET}" custom KINDS merge_yaml)
    _etsb_tool_path("${custom_FILE}" arg)
    list(APPEND args --custom_ops_yaml_path "${arg}")
    list(APPEND depends ${custom_DEPENDS})
  endif()
  list(APPEND args --op_selection_yaml_path "${selection}")
  list(APPEND depends "${selection}" ${name}_selected_operators)
  if(ARG_MANUAL_REGISTRATION)
    list(APPEND args --manual_registration)
  endif()
  if(ARG_MODEL_ENTRY)
    list(APPEND args --model_entry)
  endif()
  set(args "${args}" PARENT_SCOPE)
  set(depends "${depends}" PARENT_SCOPE)
endfunction()

# `etsb gen-bindings` for the calling executorch_generated_lib `name` (its
# ARG_BACKEND_DEPS, `args`, `depends`, `dir` and `lib_name`), and the target
# <name>_bindings. Sets in the caller `bindings` (the generated source and
# headers), `script` (the backends' linker script) and `backend_files`.
function(_etsb_generated_bindings macro name)
  set(bindings "")
  foreach(file register_kernels.cpp NativeFunctions.h CustomOpsNativeFunctions.h Functions.h)
    list(APPEND bindings "${dir}/${file}")
  endforeach()
  set(backend_args "")
  set(backend_files "")
  set(backend_depends "")
  foreach(dep IN LISTS ARG_BACKEND_DEPS)
    _etsb_input(${macro} ${name} BACKEND_DEPS "${dep}" backend KINDS et_backend_library)
    if(NOT TARGET "${dep}")
      _etsb_fail(${macro} ${name} "BACKEND_DEPS: '${dep}' is not an et_backend_library target defined before this call")
    endif()
    _etsb_real_target("${dep}" backend_target)
    get_target_property(files ${backend_target} ETSB_BACKEND_FILES)
    list(APPEND backend_args --backend_library_path "${backend_FILE}")
    list(APPEND backend_files ${files})
    list(APPEND backend_depends ${backend_DEPENDS} ${files})
  endforeach()
  set(script "${dir}/backends.ld")
  set(registry "")
  if(static AND ARG_MODEL_ENTRY)
    # A model binary of the static runtime may size its kernel registry to this library.
    set(registry "${dir}/executorch/runtime/kernel/selected_max_kernel_num.h")
    list(APPEND backend_args --max-kernel-num-output "${registry}")
  endif()
  _etsb_run(SUBCOMMAND gen-bindings TARGET ${name} OUTPUTS ${bindings} "${script}" ${registry}
    DEPENDS ${depends} ${backend_depends}
    ARGS ${args} ${backend_args} --backends_output "${script}" --lib_name ${lib_name} --output_dir "${dir}")
  add_custom_target(${name}_bindings DEPENDS ${bindings})
  set(bindings "${bindings}" PARENT_SCOPE)
  set(script "${script}" PARENT_SCOPE)
  set(backend_files "${backend_files}" PARENT_SCOPE)
endfunction()

# Only the kernel sources the selection of the calling executorch_generated_lib
# `name` needs (its `kernels`, `plain`, `args`, `depends` and `dir`): `etsb
# kernel-sources` writes, for every source of every kernel library, a file
# including it when needed (a comment otherwise), and each library is compiled
# from those files (target <name>_kernel_sources). Sets `switch_names` in the caller.
function(_etsb_selected_kernel_sources name)
  set(library_args "")
  set(library_files "")
  set(wrappers "")
  set(place 0)
  foreach(kernel IN LISTS kernels)
    get_target_property(srcs ${kernel} ETSB_SRCS)
    get_target_property(hdrs ${kernel} ETSB_HDRS)
    list(APPEND library_args --library ${kernel} ${srcs} ${hdrs})
    list(APPEND library_files ${srcs} ${hdrs})
    _etsb_kernel_wrappers(${kernel} ${place} kernel_wrappers)
    list(APPEND wrappers ${kernel_wrappers})
    math(EXPR place "${place} + 1")
  endforeach()
  set(switch_names "")
  set(switch_args "")
  if(ARG_DTYPE_SELECTIVE_BUILD)
    # Only the wrappers of needed sources include selected_op_variants.h (a
    # -include would parse it, and the runtime headers it names, in every one).
    set(switch_names "${dir}/switch_names.txt")
    set(switch_args --switch_names_output "${switch_names}" --wrappers_include "${dir}/selected_op_variants.h")
  endif()
  list(FILTER args EXCLUDE REGEX "^--(manual_registration|model_entry)$")
  if(plain)
    # Kernels no listed file defines may be theirs.
    list(APPEND args --other_libraries)
  endif()
  _etsb_run(SUBCOMMAND kernel-sources TARGET ${name}
    OUTPUTS "${dir}/kernel_sources.txt" ${switch_names} ${wrappers}
    DEPENDS ${depends} ${library_files}
    ARGS ${args} --output "${dir}/kernel_sources.txt" ${switch_args} --wrappers_dir "${dir}/kernels" ${library_args})
  add_custom_target(${name}_kernel_sources DEPENDS "${dir}/kernel_sources.txt")
  set(switch_names "${switch_names}" PARENT_SCOPE)
endfunction()

# The wrappers `etsb kernel-sources --wrappers-dir` writes for the sources
# (not headers) of the et_kernel_library `kernel`, the `place`-th library of
# the calling executorch_generated_lib (its `dir`), numbered as it numbers
# them: in `out`.
function(_etsb_kernel_wrappers kernel place out)
  get_target_property(srcs ${kernel} ETSB_SRCS)
  set(number 0)
  set(wrappers "")
  foreach(src IN LISTS srcs)
    if(src MATCHES "\\.(h|hpp|hh|inc)$")
      continue()
    endif()
    cmake_path(GET src FILENAME base)
    list(APPEND wrappers "${dir}/kernels/${place}/${number}_${base}")
    math(EXPR number "${number} + 1")
  endforeach()
  set(${out} "${wrappers}" PARENT_SCOPE)
endfunction()

# `etsb gen-op-variants` for the calling DTYPE_SELECTIVE_BUILD
# executorch_generated_lib `name` (its `selection`, `dir`, `selective` and
# `switch_names`): selected_op_variants.h and the target <name>_op_variants.
# Sets `variants` (the header) in the caller.
function(_etsb_selected_op_variants name)
  set(variants "${dir}/selected_op_variants.h")
  set(variants_args "")
  set(variants_depends "")
  if(selective)
    # The names the tree's dtype switches use, besides the operators'.
    set(variants_args --switch_names "${switch_names}")
    set(variants_depends "${switch_names}" ${name}_kernel_sources)
  endif()
  _etsb_run(SUBCOMMAND gen-op-variants TARGET ${name} OUTPUTS "${variants}"
    DEPENDS "${selection}" ${name}_selected_operators ${variants_depends}
    ARGS --yaml_file_path "${selection}" --output_dir "${dir}" ${variants_args})
  add_custom_target(${name}_op_variants DEPENDS "${variants}")
  set(variants "${variants}" PARENT_SCOPE)
endfunction()

# Each kernel library of the calling executorch_generated_lib `name` (its
# `kernels`, `plain`, `selective`, `variants`, `dir`, `exclude` and ARG_*)
# compiled again for it: its needed sources (SELECTIVE), with
# selected_op_variants.h forced in (DTYPE_SELECTIVE_BUILD). Sets the caller's
# `kernels` to the recompiled libraries (and `plain`, which are linked as they are).
function(_etsb_recompiled_kernels name)
  set(recompiled "")
  set(place 0)
  foreach(kernel IN LISTS kernels)
    string(REPLACE "::" "_" suffix "${kernel}")
    set(target ${name}_kernels_${suffix})
    get_target_property(srcs ${kernel} ETSB_SRCS)
    get_target_property(hdrs ${kernel} ETSB_HDRS)
    get_target_property(copts ${kernel} ETSB_COPTS)
    get_target_property(deps ${kernel} ETSB_DEPS)
    if(selective)
      _etsb_kernel_wrappers(${kernel} ${place} srcs)
      set(hdrs "")
    endif()
    if(ARG_DTYPE_SELECTIVE_BUILD)
      list(APPEND hdrs "${variants}")
      # -I: ExecuTorch's selective_build.h includes it as "selected_op_variants.h".
      list(APPEND copts "-I${dir}")
      if(NOT selective)
        list(APPEND copts "SHELL:-include ${variants}")
      endif()
    endif()
    add_library(${target} STATIC ${exclude} ${srcs} ${hdrs})
    _etsb_cxx_target(${target})
    target_compile_options(${target} PRIVATE ${copts})
    target_link_libraries(${target} PUBLIC ${deps} ${runtime_target})
    if(ARG_DTYPE_SELECTIVE_BUILD)
      add_dependencies(${target} ${name}_op_variants)
    endif()
    if(selective)
      add_dependencies(${target} ${name}_kernel_sources)
    endif()
    list(APPEND recompiled ${target})
    math(EXPR place "${place} + 1")
  endforeach()
  if(selective)
    list(APPEND recompiled ${plain})
  endif()
  set(kernels "${recompiled}" PARENT_SCOPE)
endfunction()

# The static library `name` of the calling executorch_generated_lib (its
# `bindings`, `kernels`, `script`, `backend_files`, `lib_name`, `exclude` and
# ARG_MANUAL_REGISTRATION): the registration compiled, the kernels and the
# backends the selection needs linked.
function(_etsb_generated_library name)
  add_library(${name} STATIC ${exclude} ${bindings})
  _etsb_cxx_target(${name})
  add_dependencies(${name} ${name}_bindings)
  target_include_directories(${name} PUBLIC "${CMAKE_CURRENT_BINARY_DIR}")
  target_link_libraries(${name} PUBLIC ${kernels} ${runtime_target})
  # The backend libraries the selection needs, named by the generated linker script;
  # --as-needed (some compilers' default) would drop them: nothing refers to a
  # backend, which registers itself when loaded.
  target_link_options(${name} INTERFACE "SHELL:-Wl,--push-state,--no-as-needed ${script} -Wl,--pop-state")
  set_property(TARGET ${name} APPEND PROPERTY INTERFACE_LINK_DEPENDS "${script}")
  set_target_properties(${name} PROPERTIES ETSB_BACKEND_FILES "${backend_files}")
  if(NOT ARG_MANUAL_REGISTRATION)
    # The static initialiser sits in the object that defines etsb::register_<lib>_kernels():
    # asking for that symbol keeps it (the archive's only object) in every binary.
    set(function "register_${lib_name}_kernels")
    string(LENGTH "${function}" length)
    target_link_options(${name} INTERFACE "LINKER:--undefined=_ZN4etsb${length}${function}Ev")
  endif()
  set_target_properties(${name} PROPERTIES ETSB_KIND executorch_generated_lib)
endfunction()

# ---------------------------------------------------------------------------
# et_model_binary(NAME <name> MODEL <pte>
#                 [FUNCTIONS_YAML_TARGET <yaml>] [KERNEL_DEPS <kernel lib>...]
#                 [CUSTOM_OPS_YAML_TARGET <yaml>] [FALLBACK_YAML_TARGET <yaml>]
#                 [DEPS <operator lib>...] [DTYPE_SELECTIVE_BUILD]
#                 [BACKENDS <backend id>...] [BACKEND_DEPS <backend lib>...]
#                 [RUNTIME shared|static] [EMBED_MODEL] [INPUTS <npy>...]
#                 [METHOD_POOL_BYTES <n>] [TEMP_POOL_BYTES <n>])
#
# The runner linked with exactly the kernels MODEL needs, in one call: selects
# the operators and kernel keys of MODEL (plus DEPS), resolves them against the
# kernel yaml (the build fails if any is not covered) and links the runner
# (etsb_runner, tools/runner/runner.cpp compiled with -DETSB_MODEL_ENTRY), the
# generated library and libexecutorch.so:
#   <name> --model M.pte --inputs a.npy,... --output-dir D [--method M] [--iterations N] [--log] (<name> --help)
# Built to ship (ETSB_CONFIG size, EMBED_MODEL, or a platform without an
# operating system), it links the deploy runner (tools/runner/deploy.cpp)
# instead: `<name> M.pte [INPUT.bin ...]`, or `<name>` alone with the program
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
#   KERNEL_DEPS             the kernel libraries implementing it (default: etsb_portable_kernels).
#                           Also spelt KERNEL_LIBS.
#   CUSTOM_OPS_YAML_TARGET  a kernel yaml of custom operators the model calls. Also spelt CUSTOM_OPS_YAML.
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
#   RUNTIME                 the ExecuTorch runtime linked: shared (the default), the wheel's
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
    _etsb_model_binary(${name} ${name}_ops OFF "" ${yamls})
  else()
    # The chosen binary is copied into <name>_smallest/, whose run path must find the backends too.
    set(_ETSB_COPIED_TO "${CMAKE_CURRENT_BINARY_DIR}/${name}_smallest")
    _etsb_smallest_model_binary(${name} ${yamls})
  endif()

  # The same binary with every kernel of the yaml (and the model's backends, and every prim op):
  # what the trimming is measured against.
  set(_ETSB_EXCLUDE_FROM_ALL ON)
  set(_ETSB_SIZED OFF)
  et_operator_library(NAME ${name}_all_kernels_ops INCLUDE_ALL_OPERATORS DEPS ${name}_ops)
  executorch_generated_lib(NAME ${name}_all_kernels_lib DEPS ${name}_all_kernels_ops MANUAL_REGISTRATION MODEL_ENTRY
                           ${yamls})
  _etsb_runner_binary(${name}_all_kernels ${name}_all_kernels_lib EXCLUDE_FROM_ALL)
endfunction()

# The arguments an et_model_binary passes on to executorch_generated_lib, in
# `out`: the calling rule's KERNEL_DEPS, BACKEND_DEPS and yamls (its ARG_*),
# defaults filled in, each yaml resolved, and its runtime (_ETSB_RUNTIME).
function(_etsb_model_binary_yamls macro name out)
  if(NOT DEFINED ARG_FUNCTIONS_YAML_TARGET)
    get_property(root GLOBAL PROPERTY ETSB_ROOT)
    set(ARG_FUNCTIONS_YAML_TARGET "${root}/kernels/portable/functions.yaml")
  endif()
  if(NOT ARG_KERNEL_DEPS)
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

# ---------------------------------------------------------------------------
# et_executorch_tree(ROOT <dir>)
#
# ExecuTorch's portable kernels from an ExecuTorch source tree (a checkout's
# root, holding kernels/portable/functions.yaml and kernels/portable/cpu/):
# the SELECTIVE et_kernel_library executorch_portable_kernels (a generated
# library compiles only the sources its kernels need) and the variables
# ETSB_EXECUTORCH_PORTABLE_FUNCTIONS_YAML and ETSB_EXECUTORCH_PORTABLE_CUSTOM_OPS_YAML;
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
    if(NOT ETSB_TORCH_INCLUDE STREQUAL "")
      _etsb_optimized_kernels("${tree}" "${tree_copts}")
    endif()
    set_property(GLOBAL PROPERTY ETSB_EXECUTORCH_TREE "${root}")
  endif()
  set(ETSB_EXECUTORCH_PORTABLE_FUNCTIONS_YAML "${root}/kernels/portable/functions.yaml" PARENT_SCOPE)
  set(ETSB_EXECUTORCH_PORTABLE_CUSTOM_OPS_YAML "${root}/kernels/portable/custom_ops.yaml" PARENT_SCOPE)
  if(TARGET executorch_optimized_kernels)
    set(ETSB_EXECUTORCH_OPTIMIZED_FUNCTIONS_YAML "${CMAKE_BINARY_DIR}/etsb_external/optimized/functions.yaml"
        PARENT_SCOPE)
  endif()
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
# The driver's check (selective_build.driver.workspace.version_mismatch) decides.
function(_etsb_check_tree_version root)
  get_property(runtime GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME)
  get_property(python GLOBAL PROPERTY ETSB_PYTHON_EXE)
  get_property(etsb_root GLOBAL PROPERTY ETSB_ROOT)
  execute_process(
    COMMAND "${python}" -c "import sys; sys.path.insert(0, sys.argv[1]); from selective_build.driver.workspace import version_mismatch; print(version_mismatch(sys.argv[2], sys.argv[3]) or '')"
      "${etsb_root}/tools" "${root}" "${runtime}"
    RESULT_VARIABLE status OUTPUT_VARIABLE warning ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "etsb: could not check the ExecuTorch tree's version: ${error}")
  endif()
  if(NOT warning STREQUAL "")
    message(WARNING "etsb: ${warning}")
  endif()
endfunction()

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
_etsb_wheel_threadpool()
_etsb_runner_objects()
_etsb_wheel_backends()
