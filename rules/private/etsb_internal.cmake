# Private helpers of rules/etsb.cmake: argument checks, input resolution, the
# runtime target and the custom commands that run etsb's tool. Nothing here is
# part of the public interface; names start with `_etsb_`.
#
# Internal state lives in global properties (readable from any directory):
#   ETSB_ROOT          the etsb repository (rules/ is below it)
#   ETSB_PYTHON_EXE    the Python that runs the tool (the ETSB_PYTHON cache variable)
#   ETSB_TOOL          tools/selective_build/__main__.py
#   ETSB_TOOL_INPUTS   every file the tool reads besides its arguments (its Python
#                      sources and package data): each command depends on them
#
# Targets made by the rules carry these properties:
#   ETSB_KIND     et_operator_library, merge_yaml, executorch_generated_lib or et_kernel_library
#   ETSB_OUTPUT   the file an et_operator_library or merge_yaml target produces
#   ETSB_SRCS, ETSB_HDRS, ETSB_COPTS, ETSB_DEPS   an et_kernel_library's attributes

# Fails the configuration with `<macro> '<name>': <text>` (more arguments
# continue the text). CMake adds the CMakeLists.txt line of the rule call and the call stack.
function(_etsb_fail macro name text)
  foreach(more IN LISTS ARGN)
    string(APPEND text "${more}")
  endforeach()
  if(name STREQUAL "")
    message(FATAL_ERROR "${macro}: ${text}")
  endif()
  message(FATAL_ERROR "${macro} '${name}': ${text}")
endfunction()

# Checks what cmake_parse_arguments(PARSE_ARGV 0 ARG ...) left in the caller's
# ARG_* variables: no unknown argument, no keyword without its value, NAME
# given and usable as a C++ identifier fragment. `ALIASES` pairs (ALIAS
# CANONICAL ...) map accepted alternative spellings onto the canonical keyword;
# giving both is an error. Sets `name` in the caller.
function(_etsb_check_arguments macro)
  cmake_parse_arguments(PARSE_ARGV 1 CHECK "" "" "ALIASES;KEYWORDS")
  set(name "${ARG_NAME}")
  if(DEFINED ARG_UNPARSED_ARGUMENTS)
    list(GET ARG_UNPARSED_ARGUMENTS 0 first)
    list(JOIN CHECK_KEYWORDS ", " known)
    if(NOT DEFINED ARG_NAME AND first MATCHES "^[A-Za-z0-9_-]+$" AND NOT first MATCHES "^[A-Z][A-Z0-9_]*$")
      _etsb_fail(${macro} "" "unknown argument '${first}': give the target name as NAME ${first}")
    endif()
    _etsb_fail(${macro} "${name}" "unknown argument '${first}' (the arguments are ${known})")
  endif()
  if(DEFINED ARG_KEYWORDS_MISSING_VALUES)
    list(GET ARG_KEYWORDS_MISSING_VALUES 0 keyword)
    _etsb_fail(${macro} "${name}" "${keyword} is given without a value")
  endif()
  while(CHECK_ALIASES)
    list(POP_FRONT CHECK_ALIASES alias canonical)
    if(DEFINED ARG_${alias})
      if(DEFINED ARG_${canonical})
        _etsb_fail(${macro} "${name}" "${alias} is another spelling of ${canonical}: give one of them")
      endif()
      set(ARG_${canonical} "${ARG_${alias}}" PARENT_SCOPE)
    endif()
  endwhile()
  if(NOT DEFINED ARG_NAME)
    _etsb_fail(${macro} "" "NAME is missing (the target name)")
  endif()
  if(NOT name MATCHES "^[A-Za-z0-9_-]+$")
    _etsb_fail(${macro} "" "NAME '${name}' may hold only letters, digits, '_' and '-' (it names generated C++ symbols)")
  endif()
  set(name "${name}" PARENT_SCOPE)
endfunction()

# Fails when a value of the list argument `attr` looks like a keyword: with
# CMake's keyword arguments a misspelt keyword after a list is read as one of
# its values.
function(_etsb_check_list_values macro name attr)
  foreach(value IN LISTS ARGN)
    if(value MATCHES "^[A-Z][A-Z0-9_]*$" AND NOT TARGET "${value}" AND NOT EXISTS "${CMAKE_CURRENT_SOURCE_DIR}/${value}")
      _etsb_fail(${macro} "${name}" "${attr} holds '${value}', which is no target or file: a misspelt keyword?")
    endif()
  endforeach()
endfunction()

# Checks the values of the calling rule that reach etsb's commands with `etsb
# check-attrs`, which reads them with the commands' own parsers: OPS, OPS_DICT
# and BACKENDS each name the variable holding the attribute (OPS and BACKENDS
# lists, OPS_DICT one JSON object). A problem fails the configuration with the
# tool's message, naming the CMakeLists.txt, the rule, the target and the
# attribute; CMake's call stack adds the line (within a function
# CMAKE_CURRENT_LIST_LINE is the function's own line, not its caller's). A
# rule passing on values it checked already, or wrote itself, sets
# _ETSB_VALUES_CHECKED around the call (each check costs a Python start).
function(_etsb_check_values macro name)
  if(_ETSB_VALUES_CHECKED)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 2 CHECK "" "OPS;OPS_DICT;BACKENDS" "")
  get_property(python GLOBAL PROPERTY ETSB_PYTHON_EXE)
  get_property(tool GLOBAL PROPERTY ETSB_TOOL)
  set(command "")
  foreach(argument "${python}" "${tool}" check-attrs "--file=${CMAKE_CURRENT_LIST_FILE}" "--rule=${macro}"
                   "--name=${name}")
    _etsb_bracket_argument("${argument}" command)
  endforeach()
  set(values OFF)
  foreach(attr OPS BACKENDS)
    string(TOLOWER "--${attr}" flag)
    foreach(value IN LISTS ${CHECK_${attr}})
      _etsb_bracket_argument("${flag}=${value}" command)
      set(values ON)
    endforeach()
  endforeach()
  if(DEFINED CHECK_OPS_DICT)
    if(DEFINED ${CHECK_OPS_DICT})
      _etsb_bracket_argument("--ops-dict=${${CHECK_OPS_DICT}}" command)
      set(values ON)
    endif()
  endif()
  if(NOT values)
    return()
  endif()
  cmake_language(EVAL CODE
    "execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE error)")
  if(NOT status EQUAL 0)
    string(STRIP "${output}${error}" error)
    message(FATAL_ERROR "${error}")
  endif()
endfunction()

# Appends `argument` to the string `command_var` as a bracket argument
# ([=[...]=]): one argument of a command run through cmake_language(EVAL),
# whatever it holds (a CMake list would split it at ';' and, after an
# unbalanced '[', join what follows).
function(_etsb_bracket_argument argument command_var)
  set(equals "")
  while(argument MATCHES "]${equals}]")
    string(APPEND equals "=")
  endwhile()
  set(${command_var} "${${command_var}} [${equals}[${argument}]${equals}]" PARENT_SCOPE)
endfunction()

# Appends to the list `args_var` the flag `flag` with the items of the list
# variable `values_var` (checked by _etsb_check_values) joined by commas. The
# list is read from its variable, not passed as arguments: a value holding an
# escaped ';' stays one.
function(_etsb_joined_argument flag args_var values_var)
  list(JOIN ${values_var} "," joined)
  set(${args_var} ${${args_var}} ${flag} "${joined}" PARENT_SCOPE)
endfunction()

# Fails unless `value` names a .pte program.
function(_etsb_check_model macro name attr value)
  if(NOT value MATCHES "\\.pte$")
    _etsb_fail(${macro} "${name}" "${attr} must name a .pte program, got '${value}'")
  endif()
endfunction()

# The target `target` stands for (an ALIAS resolved), in `out`.
function(_etsb_real_target target out)
  get_target_property(aliased "${target}" ALIASED_TARGET)
  if(aliased)
    set(target "${aliased}")
  endif()
  set(${out} "${target}" PARENT_SCOPE)
endfunction()

# The absolute path of the file `value` (relative to the calling directory's
# sources), in `out`. Fails when it does not exist and no rule generates it.
function(_etsb_source_file macro name attr value out)
  cmake_path(ABSOLUTE_PATH value BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE path)
  if(NOT EXISTS "${path}")
    get_source_file_property(generated "${path}" GENERATED)
    if(NOT generated)
      _etsb_fail(${macro} "${name}" "${attr}: no such file '${value}' (looked for ${path})")
    endif()
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# Resolves `value` of attribute `attr` to a file: the output of an etsb target
# of one of the kinds `KINDS`, or a file. Sets `<out>_FILE` (absolute) and
# `<out>_DEPENDS` (the file, and the target that makes it, for DEPENDS).
function(_etsb_input macro name attr value out)
  cmake_parse_arguments(PARSE_ARGV 5 INPUT "" "" "KINDS")
  if(TARGET "${value}")
    _etsb_real_target("${value}" target)
    get_target_property(kind "${target}" ETSB_KIND)
    if(NOT kind IN_LIST INPUT_KINDS)
      list(JOIN INPUT_KINDS " or " kinds)
      _etsb_fail(${macro} "${name}" "${attr}: the target '${value}' was not made by ${kinds}")
    endif()
    get_target_property(file "${target}" ETSB_OUTPUT)
    set(${out}_FILE "${file}" PARENT_SCOPE)
    set(${out}_DEPENDS "${file};${target}" PARENT_SCOPE)
    return()
  endif()
  cmake_path(ABSOLUTE_PATH value BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE OUTPUT_VARIABLE path)
  get_source_file_property(generated "${path}" GENERATED)
  if(NOT EXISTS "${path}" AND NOT generated)
    list(JOIN INPUT_KINDS " or " kinds)
    _etsb_fail(${macro} "${name}"
      "${attr}: '${value}' names no ${kinds} target defined before this call and no file (looked for ${path})")
  endif()
  _etsb_source_file(${macro} "${name}" "${attr}" "${value}" file)
  set(${out}_FILE "${file}" PARENT_SCOPE)
  set(${out}_DEPENDS "${file}" PARENT_SCOPE)
endfunction()

# `path` as the tool gets it, in `out`: relative to the top source directory
# (the commands run there), so that generated files name inputs the same way
# whatever the build directory; files in the build tree stay absolute.
function(_etsb_tool_path path out)
  cmake_path(IS_PREFIX CMAKE_BINARY_DIR "${path}" NORMALIZE in_build)
  if(NOT in_build)
    cmake_path(RELATIVE_PATH path BASE_DIRECTORY "${CMAKE_SOURCE_DIR}")
  endif()
  set(${out} "${path}" PARENT_SCOPE)
endfunction()

# A custom command running `etsb <SUBCOMMAND> <ARGS...>`:
#   _etsb_run(SUBCOMMAND <sub> TARGET <name> OUTPUTS <files...> DEPENDS <inputs...> ARGS <args...>)
# It depends on every input and on the tool's own files; it runs in the top
# source directory and is described as `etsb <sub> <name>`.
function(_etsb_run)
  cmake_parse_arguments(PARSE_ARGV 0 RUN "" "SUBCOMMAND;TARGET" "OUTPUTS;DEPENDS;ARGS")
  get_property(python GLOBAL PROPERTY ETSB_PYTHON_EXE)
  get_property(tool GLOBAL PROPERTY ETSB_TOOL)
  get_property(tool_inputs GLOBAL PROPERTY ETSB_TOOL_INPUTS)
  add_custom_command(
    OUTPUT ${RUN_OUTPUTS}
    COMMAND "${python}" "${tool}" ${RUN_SUBCOMMAND} ${RUN_ARGS}
    DEPENDS ${RUN_DEPENDS} ${tool_inputs}
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}"
    COMMENT "etsb ${RUN_SUBCOMMAND} ${RUN_TARGET}"
    VERBATIM)
  # Kept so that the selection may be made when configuring (etsb_configure_selection.cmake).
  _etsb_record_run()
endfunction()

# Compile settings of every C++ target the rules make: C++17 and the flags of
# the platform and configuration, then ETSB_COMPILE_OPTIONS (by default the
# driver's -O2 with a section per function; rules/private/etsb_deploy.cmake).
function(_etsb_cxx_target target)
  set_target_properties("${target}" PROPERTIES CXX_STANDARD 17 CXX_STANDARD_REQUIRED ON CXX_EXTENSIONS OFF)
  get_property(flags GLOBAL PROPERTY ETSB_COMPILE_FLAGS)
  target_compile_options("${target}" PRIVATE ${flags})
endfunction()

# Whether the runtime library at `library` runs on the CPU being compiled for
# (`out`): its ELF machine (e_machine, bytes 18-19) against CMAKE_SYSTEM_PROCESSOR's.
# A native build is always served.
function(_etsb_runtime_serves_target library out)
  set(${out} TRUE PARENT_SCOPE)
  if(NOT CMAKE_CROSSCOMPILING)
    return()
  endif()
  file(READ "${library}" header LIMIT 20 HEX)
  string(SUBSTRING "${header}" 36 4 machine)
  set(machines "x86_64=3e00" "AMD64=3e00" "aarch64=b700" "arm64=b700")
  list(FIND machines "${CMAKE_SYSTEM_PROCESSOR}=${machine}" found)
  if(found EQUAL -1)
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# Finds the ExecuTorch runtime and defines the imported target etsb::executorch:
# libexecutorch.so, its include directories and C10_USING_CUSTOM_GENERATED_MACROS.
# EXECUTORCH_RUNTIME wins; when it is empty, ETSB_PYTHON is asked where the wheel is.
function(_etsb_find_runtime)
  set(root "${EXECUTORCH_RUNTIME}")
  if(root STREQUAL "")
    execute_process(
      COMMAND "${ETSB_PYTHON}" -c "import executorch; print(executorch.__path__[0])"
      RESULT_VARIABLE status OUTPUT_VARIABLE root ERROR_VARIABLE error OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT status EQUAL 0)
      string(STRIP "${error}" error)
      string(REGEX REPLACE ".*\n" "" error "${error}")
      message(FATAL_ERROR
        "etsb: ETSB_PYTHON (${ETSB_PYTHON}) cannot import executorch (${error}).\n"
        "Install the runtime wheel (scripts/setup.sh does), or pass "
        "-DEXECUTORCH_RUNTIME=<the executorch package directory, holding include/ and lib/libexecutorch.so>.")
    endif()
  endif()
  set(library "${root}/lib/libexecutorch.so")
  if(NOT EXISTS "${library}" OR NOT IS_DIRECTORY "${root}/include/executorch/runtime")
    message(FATAL_ERROR
      "etsb: no ExecuTorch runtime in '${root}': it must hold lib/libexecutorch.so and include/executorch/runtime/ "
      "(set EXECUTORCH_RUNTIME to the executorch package directory of the wheel).")
  endif()
  _etsb_runtime_serves_target("${library}" serves)
  if(serves)
    # A copy in the build tree, which binaries find relative to themselves
    # ($ORIGIN): nothing in them names the wheel's place, and the build tree runs
    # wherever it moves. configure_file copies again when the wheel's changes.
    set(copy "${CMAKE_BINARY_DIR}/etsb_runtime/libexecutorch.so")
    configure_file("${library}" "${copy}" COPYONLY)
  else()
    # Compiling for another CPU (a toolchain file's CMAKE_SYSTEM_PROCESSOR):
    # the wheel's headers still serve, its library does not. In its place a
    # linker script that stops any link of a binary with the runtime with this
    # message; libraries (which are not linked) still build.
    set(copy "${CMAKE_BINARY_DIR}/etsb_runtime/${CMAKE_SYSTEM_PROCESSOR}/libexecutorch.so")
    string(CONCAT message "etsb: the executorch wheel's libexecutorch.so is not built for "
           "${CMAKE_SYSTEM_PROCESSOR}: binaries for it need ExecuTorch's runtime compiled for it "
           "(et_model_binary(... RUNTIME static), with an ExecuTorch tree)")
    file(WRITE "${copy}" "/* etsb: in place of ${library} */\nASSERT(0, \"${message}\")\n")
  endif()
  set_property(GLOBAL PROPERTY ETSB_RUNTIME_LIBRARY "${copy}")
  set(kind SHARED)
  if(NOT serves)
    set(kind UNKNOWN)  # a platform without shared libraries (CMake warns of a SHARED one there)
  endif()
  add_library(etsb::executorch ${kind} IMPORTED GLOBAL)
  set_target_properties(etsb::executorch PROPERTIES
    IMPORTED_LOCATION "${copy}"
    IMPORTED_SONAME "libexecutorch.so"
    INTERFACE_INCLUDE_DIRECTORIES "${root}/include;${root}/include/executorch/runtime/core/portable_type/c10"
    INTERFACE_COMPILE_DEFINITIONS "C10_USING_CUSTOM_GENERATED_MACROS"
    INTERFACE_COMPILE_FEATURES "cxx_std_17")
  set_property(GLOBAL PROPERTY ETSB_EXECUTORCH_RUNTIME "${root}")
endfunction()
