# executorch_generated_lib's generated sources: registration, the selected kernels (recompiled when dtype-selective) and the library.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.

# `etsb gen-bindings` for the calling executorch_generated_lib `name` (its
# ARG_BACKEND_DEPS, `args`, `depends`, `dir` and `lib_name`), and the target
# <name>_bindings. Sets in the caller `bindings` (the generated source and
# headers), `script` (the backends' linker script) and `backend_files`.
# `--front-end cmake`: an operator no yaml has is reported with the remedy
# spelt as these rules take it (CUSTOM_OPS_YAML_TARGET, KERNEL_DEPS targets).
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
  if(prim_ops)
    # Only the prim ops the selection names (INCLUDE_ALL_PRIM_OPS OFF): <name>_prim_ops reads it.
    list(APPEND registry "${dir}/selected_prim_ops.h")
    list(APPEND backend_args --prim-ops-header-output "${dir}/selected_prim_ops.h")
  endif()
  _etsb_run(SUBCOMMAND gen-bindings TARGET ${name} OUTPUTS ${bindings} "${script}" ${registry}
    DEPENDS ${depends} ${backend_depends}
    ARGS ${args} ${backend_args} --backends_output "${script}" --lib_name ${lib_name} --output_dir "${dir}"
    --front-end cmake)
  add_custom_target(${name}_bindings DEPENDS ${bindings})
  set(bindings "${bindings}" PARENT_SCOPE)
  set(script "${script}" PARENT_SCOPE)
  set(backend_files "${backend_files}" PARENT_SCOPE)
endfunction()

# Only the kernel sources the selection of the calling executorch_generated_lib
# `name` needs (its `kernels`, `plain`, `args`, `depends` and `dir`): `etsb
# kernel-sources` writes, for every source of every kernel library, a file
# including it when needed (a comment otherwise), and each library is compiled
# from those files (target <name>_kernel_sources). Sets `switch_names` in the
# caller, and `configured` (ON when the wrappers were written when configuring).
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
  if(ARG_CATALOGUE)
    # The libraries the model chose, one line each (the first, the portable one, goes unsaid).
    list(APPEND args --say_libraries)
  endif()
  if(plain)
    # Kernels no listed file defines may be theirs.
    list(APPEND args --other_libraries)
  endif()
  _etsb_run(SUBCOMMAND kernel-sources TARGET ${name}
    OUTPUTS "${dir}/kernel_sources.txt" ${switch_names} ${wrappers}
    DEPENDS ${depends} ${library_files}
    ARGS ${args} --output "${dir}/kernel_sources.txt" ${switch_args} --wrappers_dir "${dir}/kernels" ${library_args})
  add_custom_target(${name}_kernel_sources DEPENDS "${dir}/kernel_sources.txt")
  _etsb_make_now("${dir}/kernel_sources.txt" configured)
  set(configured ${configured} PARENT_SCOPE)
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

# What the calling _etsb_recompiled_kernels compiles of the SELECTIVE
# et_kernel_library `kernel`, its `place`-th library (its `dir`, `configured`
# and ARG_DTYPE_SELECTIVE_BUILD), in `out`: every wrapper; when they were
# written when configuring, only those including their source, and without
# DTYPE_SELECTIVE_BUILD (a wrapper then only includes its source) the sources
# themselves: their compile is then the same in every library and build folder,
# which ccache shares (a wrapper's own path is in the preprocessed text it hashes).
function(_etsb_selective_sources kernel place out)
  _etsb_kernel_wrappers(${kernel} ${place} srcs)
  if(configured)
    _etsb_needed_wrappers("${srcs}" srcs)
    if(NOT ARG_DTYPE_SELECTIVE_BUILD)
      _etsb_wrapped_sources(${kernel} "${srcs}" srcs)
    endif()
  endif()
  set(${out} "${srcs}" PARENT_SCOPE)
endfunction()

# The sources of the et_kernel_library `kernel` that `wrappers` (some of
# those _etsb_kernel_wrappers names) include, by their numbers: in `out`.
function(_etsb_wrapped_sources kernel wrappers out)
  get_target_property(srcs ${kernel} ETSB_SRCS)
  list(FILTER srcs EXCLUDE REGEX "\\.(h|hpp|hh|inc)$")
  set(wrapped "")
  foreach(wrapper IN LISTS wrappers)
    cmake_path(GET wrapper FILENAME base)
    string(REGEX MATCH "^[0-9]+" number "${base}")
    list(GET srcs ${number} src)
    list(APPEND wrapped "${src}")
  endforeach()
  set(${out} "${wrapped}" PARENT_SCOPE)
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
# compiled again for it: its needed sources (SELECTIVE: _etsb_selective_sources), with
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
      _etsb_selective_sources(${kernel} ${place} srcs)
      set(hdrs "")
      math(EXPR place "${place} + 1")
      if(configured AND NOT srcs)
        continue()  # a library the selection needs none of is not linked
      endif()
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
