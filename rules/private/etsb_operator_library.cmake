# et_operator_library: the operators a binary needs.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

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
