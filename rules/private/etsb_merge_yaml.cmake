# merge_yaml: a vendor kernel yaml over a fallback one.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

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
