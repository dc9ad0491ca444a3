# et_kernel_library and et_backend_library: kernels and backends a binary can link.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

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
