# The selection made when configuring: a SELECTIVE generated library whose
# inputs all exist when CMake configures (the model, the yamls, the kernel
# sources) compiles only the kernel sources it needs, and links no library
# none of whose sources it needs (so CMSIS-NN is compiled only for a program
# choosing a cortex_m:: kernel).
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.
#
# _etsb_run records each command it adds, by output. To know a selection at
# configure time, the commands making kernel-sources' outputs (gen-oplist,
# merge-yaml, kernel-sources) are run then too, in the order the build would
# run them, writing the same files it writes (the build runs them again, with
# the same result). Every file they read becomes a CMAKE_CONFIGURE_DEPENDS: an
# edited model, yaml or kernel source configures again. When an input is made
# by the build (a model exported by a custom command) or is missing, or a
# command fails (a bad model), the selection is left to the build: every
# source gets its wrapper (etsb_generated_sources.cmake) and the build reports
# what is wrong, as without this.
#
# Global properties:
#   "ETSB_RUN_OF <file>"         the number of the _etsb_run command making <file>
#   "ETSB_RUN_COMMAND <number>"  its command line, as bracket arguments (for cmake_language(EVAL))
#   "ETSB_RUN_DEPENDS <number>"  its inputs (files and targets)
#   "ETSB_MADE <number>"         ON once that command ran when configuring, OFF when it could not
#   ETSB_TOOL_CONFIGURE_DEPENDS  ON once the tool's files are CMAKE_CONFIGURE_DEPENDS

# Records the command of the calling _etsb_run (its RUN_*, `python`, `tool`).
function(_etsb_record_run)
  get_property(number GLOBAL PROPERTY ETSB_RUN_COUNT)
  if("${number}" STREQUAL "")
    set(number 0)
  endif()
  math(EXPR number "${number} + 1")
  set_property(GLOBAL PROPERTY ETSB_RUN_COUNT ${number})
  set(command "")
  foreach(argument IN ITEMS "${python}" "${tool}" ${RUN_SUBCOMMAND} ${RUN_ARGS})
    # OPS_DICT's kernel keys hold ';', passed to add_custom_command as $<SEMICOLON>.
    string(REPLACE "$<SEMICOLON>" ";" argument "${argument}")
    _etsb_bracket_argument("${argument}" command)
  endforeach()
  set_property(GLOBAL PROPERTY "ETSB_RUN_COMMAND ${number}" "${command}")
  set_property(GLOBAL PROPERTY "ETSB_RUN_DEPENDS ${number}" "${RUN_DEPENDS}")
  foreach(output IN LISTS RUN_OUTPUTS)
    set_property(GLOBAL PROPERTY "ETSB_RUN_OF ${output}" ${number})
  endforeach()
endfunction()

# Makes `file`, an output of an _etsb_run command, now (and first the outputs
# it reads): `ok` is ON when it was made, OFF when the build must make it (an
# input made by the build or missing, or the command failed).
function(_etsb_make_now file ok)
  get_property(number GLOBAL PROPERTY "ETSB_RUN_OF ${file}")
  if("${number}" STREQUAL "")
    set(${ok} OFF PARENT_SCOPE)
    return()
  endif()
  get_property(made GLOBAL PROPERTY "ETSB_MADE ${number}")
  if(NOT "${made}" STREQUAL "")
    set(${ok} ${made} PARENT_SCOPE)
    return()
  endif()
  set(made ON)
  set(read "")
  get_property(depends GLOBAL PROPERTY "ETSB_RUN_DEPENDS ${number}")
  foreach(input IN LISTS depends)
    get_property(input_number GLOBAL PROPERTY "ETSB_RUN_OF ${input}")
    get_source_file_property(generated "${input}" GENERATED)
    if(NOT "${input_number}" STREQUAL "")
      _etsb_make_now("${input}" made)
    elseif(generated OR (NOT EXISTS "${input}" AND NOT TARGET "${input}"))
      set(made OFF)
    elseif(NOT TARGET "${input}")
      list(APPEND read "${input}")
    endif()
    if(NOT made)
      break()
    endif()
  endforeach()
  if(made)
    # Its inputs (and the tool's own files: another etsb may select otherwise) configure
    # again when edited, also when it fails: a mended model then gets its selection.
    get_property(tool_inputs GLOBAL PROPERTY ETSB_TOOL_INPUTS)
    get_property(tool_named GLOBAL PROPERTY ETSB_TOOL_CONFIGURE_DEPENDS)
    if(tool_named)
      set(tool_inputs "")
    endif()
    set_property(GLOBAL PROPERTY ETSB_TOOL_CONFIGURE_DEPENDS ON)
    set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${read} ${tool_inputs})
    get_property(command GLOBAL PROPERTY "ETSB_RUN_COMMAND ${number}")
    set(directory "")
    _etsb_bracket_argument("${CMAKE_SOURCE_DIR}" directory)
    # Its messages are left to the build, which runs it again and reports what is wrong.
    cmake_language(EVAL CODE "execute_process(COMMAND ${command} WORKING_DIRECTORY ${directory}
      RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)")
    if(NOT status EQUAL 0)
      set(made OFF)
    endif()
  endif()
  set_property(GLOBAL PROPERTY "ETSB_MADE ${number}" ${made})
  set(${ok} ${made} PARENT_SCOPE)
endfunction()

# The wrappers of `wrappers` (written by kernel-sources when configuring) that
# include their source, in `out`.
function(_etsb_needed_wrappers wrappers out)
  set(needed "")
  foreach(wrapper IN LISTS wrappers)
    file(STRINGS "${wrapper}" first LIMIT_COUNT 1)
    if(first MATCHES "^#include")
      list(APPEND needed "${wrapper}")
    endif()
  endforeach()
  set(${out} "${needed}" PARENT_SCOPE)
endfunction()
