# ExecuTorch's CMake functions for selective builds, as the seeds (the
# kernel-library README and the kernel registration docs) call them, on
# etsb's rules (rules/etsb.cmake). `find_package(etsb)` includes this file.
#
#   gen_selected_ops("" "${SELECT_OPS_LIST}" "")
#   generate_bindings_for_kernels(${EXECUTORCH_ROOT}/kernels/portable/functions.yaml "")
#   gen_operators_lib("generated_lib" ${_kernel_lib} executorch)
#   target_link_libraries(executorch_binary generated_lib)
#
# Both spellings the seeds use are accepted:
#   positional  gen_selected_ops(<ops schema yaml> <root ops> <include all ops>)
#               generate_bindings_for_kernels(<functions yaml> <custom ops yaml>)
#               gen_operators_lib(<lib name> <kernel lib>... <deps>)
#   keyword     gen_selected_ops(LIB_NAME <lib> [OPS_SCHEMA_YAML <yaml>] [ROOT_OPS <ops>]
#                                [INCLUDE_ALL_OPS <bool>] [OPS_FROM_MODEL <pte>...]
#                                [DTYPE_SELECTIVE_BUILD <bool>])
#               generate_bindings_for_kernels(LIB_NAME <lib> [FUNCTIONS_YAML <yaml>]
#                                             [CUSTOM_OPS_YAML <yaml>] [DTYPE_SELECTIVE_BUILD <bool>])
#               gen_operators_lib([LIB_NAME] <lib> KERNEL_LIBS <kernel lib>... [DEPS <lib>...]
#                                 [DTYPE_SELECTIVE_BUILD <bool>])
#               merge_yaml(FUNCTIONS_YAML <yaml> FALLBACK_YAML <yaml> OUTPUT_DIR <dir>) (rules/etsb.cmake)
# The positional calls of a directory go together, as ExecuTorch's do; keyword
# calls go together by LIB_NAME (a gen_operators_lib whose LIB_NAME no keyword
# call used takes the directory's positional ones, as the seeds' second snippet
# mixes them). gen_operators_lib makes an executorch_generated_lib named
# <lib name>: the selection resolved against the yamls (a gap fails the
# build, naming the operator), the registration generated and compiled, the
# kernel libraries linked (a SELECTIVE one, such as ExecuTorch's portable
# kernels from a tree, compiled only as far as the selection needs), and
# registered at start-up. DTYPE_SELECTIVE_BUILD, given to any of the three,
# keeps in each kernel only the dtypes the selection uses.

include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/etsb.cmake")

# The key under which a call's state is kept in the directory: its LIB_NAME,
# or `_` for the positional spelling.
function(_etsb_seed_key lib out)
  if(lib STREQUAL "")
    set(${out} "_" PARENT_SCOPE)
  else()
    set(${out} "${lib}" PARENT_SCOPE)
  endif()
endfunction()

# Whether the call's arguments (`ARGV0` first) use the keyword spelling.
function(_etsb_seed_keywords first keywords out)
  if(first IN_LIST keywords)
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# Fails a seed function call with its name and what is wrong.
function(_etsb_seed_fail function text)
  message(FATAL_ERROR "${function}: ${text}")
endfunction()

# Fails when cmake_parse_arguments left something unknown (ARGN: what it left).
function(_etsb_seed_unknown function keywords)
  if(ARGN)
    list(GET ARGN 0 first)
    list(JOIN keywords ", " known)
    _etsb_seed_fail(${function} "unknown argument '${first}' (the arguments are ${known})")
  endif()
endfunction()

# ---------------------------------------------------------------------------
# gen_selected_ops: which operators the library registers (ExecuTorch's
# gen_oplist), as an et_operator_library. ROOT_OPS is a comma-separated list
# (aten::add.out,aten::mm.out); OPS_FROM_MODEL takes .pte programs.
# ---------------------------------------------------------------------------
function(gen_selected_ops)
  set(keywords LIB_NAME OPS_SCHEMA_YAML ROOT_OPS INCLUDE_ALL_OPS OPS_FROM_MODEL DTYPE_SELECTIVE_BUILD)
  _etsb_seed_keywords("${ARGV0}" "${keywords}" keyword)
  if(keyword)
    cmake_parse_arguments(PARSE_ARGV 0 GEN "" "LIB_NAME;OPS_SCHEMA_YAML;INCLUDE_ALL_OPS;DTYPE_SELECTIVE_BUILD"
      "ROOT_OPS;OPS_FROM_MODEL")
    _etsb_seed_unknown(gen_selected_ops "${keywords}" ${GEN_UNPARSED_ARGUMENTS})
    # A misspelt keyword after a list is read as one of its values.
    foreach(value IN LISTS GEN_ROOT_OPS GEN_OPS_FROM_MODEL)
      if(value MATCHES "^[A-Z][A-Z0-9_]*$")
        _etsb_seed_unknown(gen_selected_ops "${keywords}" "${value}")
      endif()
    endforeach()
  else()
    if(ARGC GREATER 3)
      _etsb_seed_fail(gen_selected_ops
        "takes (ops_schema_yaml root_ops include_all_ops) or keywords (LIB_NAME ...), got ${ARGC} arguments")
    endif()
    set(GEN_LIB_NAME "")
    set(GEN_OPS_SCHEMA_YAML "${ARGV0}")
    set(GEN_ROOT_OPS "${ARGV1}")
    set(GEN_INCLUDE_ALL_OPS "${ARGV2}")
    set(GEN_OPS_FROM_MODEL "")
    set(GEN_DTYPE_SELECTIVE_BUILD "")
  endif()
  _etsb_seed_key("${GEN_LIB_NAME}" key)
  set(args "")
  if(NOT "${GEN_ROOT_OPS}" STREQUAL "")
    string(REPLACE "," ";" ops "${GEN_ROOT_OPS}")
    list(TRANSFORM ops STRIP)
    list(FILTER ops EXCLUDE REGEX "^$")
    list(APPEND args OPS ${ops})
  endif()
  if(NOT "${GEN_OPS_SCHEMA_YAML}" STREQUAL "")
    list(APPEND args OPS_SCHEMA_YAML_TARGET "${GEN_OPS_SCHEMA_YAML}")
  endif()
  if(GEN_INCLUDE_ALL_OPS)
    list(APPEND args INCLUDE_ALL_OPERATORS)
  endif()
  if(GEN_OPS_FROM_MODEL)
    list(APPEND args MODELS ${GEN_OPS_FROM_MODEL})
  endif()
  if("${args}" STREQUAL "")
    _etsb_seed_fail(gen_selected_ops "selects nothing: give ROOT_OPS, OPS_SCHEMA_YAML, OPS_FROM_MODEL or INCLUDE_ALL_OPS")
  endif()
  _etsb_seed_selection_target("${key}" "${GEN_LIB_NAME}" target)
  set(_ETSB_PART ON)
  et_operator_library(NAME ${target} ${args})
  set_property(DIRECTORY PROPERTY ETSB_SEED_SELECTION_${key} ${target})
  if(GEN_DTYPE_SELECTIVE_BUILD)
    set_property(DIRECTORY PROPERTY ETSB_SEED_DTYPE_${key} ON)
  endif()
endfunction()

# The name of the et_operator_library a gen_selected_ops call of `key` (its
# LIB_NAME `lib`, or `_`) makes, in `out`: a target name of its own, since
# LIB_NAME names the generated library.
function(_etsb_seed_selection_target key lib out)
  get_property(count GLOBAL PROPERTY ETSB_SEED_SELECTIONS)
  if(NOT count)
    set(count 0)
  endif()
  math(EXPR count "${count} + 1")
  set_property(GLOBAL PROPERTY ETSB_SEED_SELECTIONS ${count})
  if(key STREQUAL "_")
    set(${out} "etsb_selected_ops_${count}" PARENT_SCOPE)
  else()
    set(${out} "${lib}_selected_ops" PARENT_SCOPE)
  endif()
endfunction()

# ---------------------------------------------------------------------------
# generate_bindings_for_kernels: the kernel yamls the registration is
# generated from ("" or no value: none of that kind). The generation itself
# happens in gen_operators_lib, which knows the kernel libraries too.
# ---------------------------------------------------------------------------
function(generate_bindings_for_kernels)
  set(keywords LIB_NAME FUNCTIONS_YAML CUSTOM_OPS_YAML DTYPE_SELECTIVE_BUILD)
  _etsb_seed_keywords("${ARGV0}" "${keywords}" keyword)
  if(keyword)
    cmake_parse_arguments(PARSE_ARGV 0 GEN "" "${keywords}" "")
    _etsb_seed_unknown(generate_bindings_for_kernels "${keywords}" ${GEN_UNPARSED_ARGUMENTS})
  else()
    if(ARGC GREATER 2)
      _etsb_seed_fail(generate_bindings_for_kernels
        "takes (functions_yaml custom_ops_yaml) or keywords (LIB_NAME ...), got ${ARGC} arguments")
    endif()
    set(GEN_LIB_NAME "")
    set(GEN_FUNCTIONS_YAML "${ARGV0}")
    set(GEN_CUSTOM_OPS_YAML "${ARGV1}")
    set(GEN_DTYPE_SELECTIVE_BUILD "")
  endif()
  if("${GEN_FUNCTIONS_YAML}${GEN_CUSTOM_OPS_YAML}" STREQUAL "")
    _etsb_seed_fail(generate_bindings_for_kernels "give a functions yaml, a custom ops yaml or both")
  endif()
  _etsb_seed_key("${GEN_LIB_NAME}" key)
  foreach(kind FUNCTIONS_YAML CUSTOM_OPS_YAML)
    set(value "${GEN_${kind}}")
    if(NOT "${value}" STREQUAL "" AND NOT TARGET "${value}")
      cmake_path(ABSOLUTE_PATH value BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    endif()
    set_property(DIRECTORY PROPERTY ETSB_SEED_${kind}_${key} "${value}")
  endforeach()
  if(GEN_DTYPE_SELECTIVE_BUILD)
    set_property(DIRECTORY PROPERTY ETSB_SEED_DTYPE_${key} ON)
  endif()
endfunction()

# ---------------------------------------------------------------------------
# gen_operators_lib: the library <lib name>, an executorch_generated_lib of
# the selection and yamls given before, the kernel libraries and DEPS linked.
# ---------------------------------------------------------------------------
function(gen_operators_lib)
  set(keywords LIB_NAME KERNEL_LIBS DEPS DTYPE_SELECTIVE_BUILD)
  set(arguments "${ARGV}")
  # Local, whatever the caller's variables of these names hold.
  set(lib "")
  set(GEN_DTYPE_SELECTIVE_BUILD "")
  if(NOT ARGV0 IN_LIST keywords)
    # The seeds' `gen_operators_lib("generated_lib" KERNEL_LIBS ...)`: the name first.
    list(POP_FRONT arguments lib)
  endif()
  set(named OFF)
  foreach(keyword IN LISTS keywords)
    if(keyword IN_LIST arguments)
      set(named ON)
    endif()
  endforeach()
  if(named)
    cmake_parse_arguments(GEN "" "LIB_NAME;DTYPE_SELECTIVE_BUILD" "KERNEL_LIBS;DEPS" ${arguments})
    _etsb_seed_unknown(gen_operators_lib "${keywords}" ${GEN_UNPARSED_ARGUMENTS})
    if(DEFINED GEN_LIB_NAME)
      if(NOT lib STREQUAL "")
        _etsb_seed_fail(gen_operators_lib "the library is named twice: '${lib}' and LIB_NAME ${GEN_LIB_NAME}")
      endif()
      set(lib "${GEN_LIB_NAME}")
    endif()
    set(kernel_libs ${GEN_KERNEL_LIBS})
    set(deps ${GEN_DEPS})
  else()
    # Positional: (lib_name kernel_lib... deps).
    list(LENGTH arguments count)
    if(count LESS 2)
      _etsb_seed_fail(gen_operators_lib "'${lib}' has no kernel library: the seeds' call is "
        "gen_operators_lib(\"${lib}\" \${_kernel_lib} executorch) with _kernel_lib a kernel library such as "
        "portable_kernels (find_package(etsb) defines it)")
    endif()
    list(POP_BACK arguments deps)
    set(kernel_libs ${arguments})
  endif()
  if(lib STREQUAL "")
    _etsb_seed_fail(gen_operators_lib "give the library's name (LIB_NAME <name>)")
  endif()
  if(NOT kernel_libs)
    _etsb_seed_fail(gen_operators_lib "'${lib}': KERNEL_LIBS is empty: name the kernel libraries (e.g. portable_kernels)")
  endif()
  _etsb_seed_generated_lib("${lib}" "${GEN_DTYPE_SELECTIVE_BUILD}" ${kernel_libs})
  foreach(dep IN LISTS deps)
    if(NOT TARGET "${dep}" AND NOT dep MATCHES "^-")
      _etsb_seed_fail(gen_operators_lib "'${lib}': DEPS names '${dep}', which is not a target (find_package(etsb) "
        "defines executorch)")
    endif()
  endforeach()
  target_link_libraries(${lib} PUBLIC ${deps})
endfunction()

# The executorch_generated_lib `lib` of a gen_operators_lib call, of the kernel
# libraries ARGN, from the calls that go with it: by LIB_NAME, else the
# directory's positional ones. `dtype_selective`: the call's own DTYPE_SELECTIVE_BUILD.
function(_etsb_seed_generated_lib lib dtype_selective)
  _etsb_seed_key("${lib}" key)
  get_property(selection DIRECTORY PROPERTY ETSB_SEED_SELECTION_${key})
  get_property(functions DIRECTORY PROPERTY ETSB_SEED_FUNCTIONS_YAML_${key})
  get_property(custom DIRECTORY PROPERTY ETSB_SEED_CUSTOM_OPS_YAML_${key})
  if(NOT selection AND "${functions}${custom}" STREQUAL "")
    set(key "_")
    get_property(selection DIRECTORY PROPERTY ETSB_SEED_SELECTION_${key})
    get_property(functions DIRECTORY PROPERTY ETSB_SEED_FUNCTIONS_YAML_${key})
    get_property(custom DIRECTORY PROPERTY ETSB_SEED_CUSTOM_OPS_YAML_${key})
  endif()
  if("${functions}${custom}" STREQUAL "")
    _etsb_seed_fail(gen_operators_lib "'${lib}': call generate_bindings_for_kernels() first (in this directory) "
      "to name the kernel yaml")
  endif()
  if(NOT selection)
    _etsb_seed_fail(gen_operators_lib "'${lib}': call gen_selected_ops() first (in this directory) to select "
      "the operators")
  endif()
  get_property(dtype DIRECTORY PROPERTY ETSB_SEED_DTYPE_${key})
  set(args NAME "${lib}" DEPS ${selection} KERNEL_DEPS ${ARGN})
  if(NOT "${functions}" STREQUAL "")
    list(APPEND args FUNCTIONS_YAML_TARGET "${functions}")
  endif()
  if(NOT "${custom}" STREQUAL "")
    list(APPEND args CUSTOM_OPS_YAML_TARGET "${custom}")
  endif()
  if(dtype OR dtype_selective)
    list(APPEND args DTYPE_SELECTIVE_BUILD)
  endif()
  executorch_generated_lib(${args})
endfunction()
