# executorch_generated_lib: the rule, its selection and its tool's inputs.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

# ---------------------------------------------------------------------------
# executorch_generated_lib(NAME <name>
#                          [FUNCTIONS_YAML_TARGET <yaml>] [CUSTOM_OPS_YAML_TARGET <yaml>]
#                          [FALLBACK_YAML_TARGET <yaml>] [DEPS <operator lib>...]
#                          KERNEL_DEPS <kernel lib>...
#                          [DTYPE_SELECTIVE_BUILD] [MANUAL_REGISTRATION] [MODEL_ENTRY]
#                          [BACKEND_DEPS <backend lib>...] [RUNTIME shared|static]
#                          [INCLUDE_ALL_PRIM_OPS ON|OFF] [CATALOGUE])
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
#   INCLUDE_ALL_PRIM_OPS    ExecuTorch's include_all_prim_ops: ON (the default) leaves ExecuTorch's
#                           prim ops (executorch_prim::*, aten::sym_size.int...) to the runtime, which
#                           registers every one; OFF registers only those the selection names (its
#                           operator lists' prim ops and those its models call; none named: all):
#                           <name>/selected_prim_ops.h is written (`etsb gen-bindings
#                           --prim-ops-header-output`) and the tree's prim ops compiled with it into
#                           <name>_prim_ops, whose objects every binary linking <name> gets. That needs
#                           the runtime compiled from the tree: RUNTIME is then static unless given
#                           (shared is refused: the wheel's library registers every prim op itself
#                           when it loads), and a binary links etsb_tree_runtime_without_prim_ops.
#   CATALOGUE               the KERNEL_DEPS are the catalogue's (etsb_catalogue.cmake), taken for the
#                           model (et_model_binary sets it): the build names, in one line each, the
#                           libraries after the first that serve its operators.
# ---------------------------------------------------------------------------
function(executorch_generated_lib)
  set(macro executorch_generated_lib)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "DTYPE_SELECTIVE_BUILD;MANUAL_REGISTRATION;MODEL_ENTRY;CATALOGUE"
    "NAME;FUNCTIONS_YAML_TARGET;CUSTOM_OPS_YAML_TARGET;FALLBACK_YAML_TARGET;FUNCTIONS_YAML;CUSTOM_OPS_YAML;FALLBACK_YAML;RUNTIME;INCLUDE_ALL_PRIM_OPS"
    "DEPS;KERNEL_DEPS;KERNEL_LIBS;BACKEND_DEPS")
  _etsb_check_arguments(${macro}
    ALIASES FUNCTIONS_YAML FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML CUSTOM_OPS_YAML_TARGET
            FALLBACK_YAML FALLBACK_YAML_TARGET KERNEL_LIBS KERNEL_DEPS
    KEYWORDS NAME FUNCTIONS_YAML_TARGET CUSTOM_OPS_YAML_TARGET FALLBACK_YAML_TARGET DEPS KERNEL_DEPS
             DTYPE_SELECTIVE_BUILD MANUAL_REGISTRATION MODEL_ENTRY BACKEND_DEPS RUNTIME INCLUDE_ALL_PRIM_OPS
             CATALOGUE)
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
  _etsb_generated_lib_prim_ops(${macro} ${name})
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
  set(configured OFF)
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
  if(prim_ops)
    _etsb_prim_ops_library(${name})
  endif()
endfunction()

# The kernel libraries of the calling executorch_generated_lib (its ARG_*),
# checked. Sets in the caller `kernels` (what the library links), `plain`
# (those that are not et_kernel_library targets, linked as they are) and
# `selective` (whether one is SELECTIVE: then `kernels` leaves `plain` out).
function(_etsb_generated_lib_kernels macro name)
  set(kernels "")
  set(selective OFF)
  foreach(dep IN LISTS ARG_KERNEL_DEPS)
    get_property(cmsis_nn_missing GLOBAL PROPERTY ETSB_CMSIS_NN_MISSING)
    if(dep STREQUAL "executorch_cortex_m_kernels" AND NOT TARGET "${dep}" AND NOT "${cmsis_nn_missing}" STREQUAL "")
      _etsb_fail(${macro} ${name} "KERNEL_DEPS names '${dep}', which the ExecuTorch tree makes with CMSIS-NN, and "
        "there is ${cmsis_nn_missing}: configure with -DCMSIS_NN_ROOT=<a CMSIS-NN tree>")
    endif()
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

# The prim-op choice of the calling executorch_generated_lib `name` (its
# ARG_INCLUDE_ALL_PRIM_OPS and ARG_RUNTIME), checked as the driver's rules
# check it (rules/private/prim_ops.bzl): sets in the caller `prim_ops` (ON
# when only the selected prim ops are registered) and then ARG_RUNTIME static
# when none was given.
function(_etsb_generated_lib_prim_ops macro name)
  set(prim_ops OFF)
  if(DEFINED ARG_INCLUDE_ALL_PRIM_OPS)
    string(TOUPPER "${ARG_INCLUDE_ALL_PRIM_OPS}" value)
    if(NOT value MATCHES "^(ON|OFF|TRUE|FALSE|YES|NO|1|0)$")
      _etsb_fail(${macro} ${name} "INCLUDE_ALL_PRIM_OPS must be ON (every prim op) or OFF (only those the "
        "selection names), not '${ARG_INCLUDE_ALL_PRIM_OPS}'")
    endif()
    if(NOT value)
      set(prim_ops ON)
    endif()
  endif()
  if(prim_ops)
    if(DEFINED ARG_RUNTIME AND ARG_RUNTIME STREQUAL "shared")
      _etsb_fail(${macro} ${name} "INCLUDE_ALL_PRIM_OPS OFF registers only the selected prim ops, which the wheel's "
        "runtime (RUNTIME shared) cannot: it registers every prim op itself when it loads. Give RUNTIME static")
    endif()
    _etsb_tree_root(${macro} ${name} tree "INCLUDE_ALL_PRIM_OPS OFF compiles ExecuTorch's prim ops and runtime")
    if(NOT DEFINED ARG_RUNTIME)
      set(ARG_RUNTIME static PARENT_SCOPE)
    endif()
  endif()
  set(prim_ops ${prim_ops} PARENT_SCOPE)
endfunction()

# <name>_prim_ops for the calling executorch_generated_lib `name`: the tree's
# prim ops compiled with its <name>/selected_prim_ops.h (ExecuTorch's
# ET_PRIM_OPS_SELECTIVE_BUILD hook, which includes it from the include path).
# They register themselves at start-up: their objects go into every binary
# linking <name>, as the driver links its <name>_prim_ops whole.
function(_etsb_prim_ops_library name)
  get_property(sources GLOBAL PROPERTY ETSB_TREE_PRIM_OPS_SOURCES)
  add_library(${name}_prim_ops OBJECT EXCLUDE_FROM_ALL ${sources} "${dir}/selected_prim_ops.h")
  _etsb_cxx_target(${name}_prim_ops)
  target_compile_definitions(${name}_prim_ops PRIVATE ET_PRIM_OPS_SELECTIVE_BUILD)
  target_include_directories(${name}_prim_ops BEFORE PRIVATE "${dir}")
  target_link_libraries(${name}_prim_ops PRIVATE etsb_tree_runtime_core)
  _etsb_tree_file_names(${name}_prim_ops)
  target_sources(${name} INTERFACE $<TARGET_OBJECTS:${name}_prim_ops>)
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
