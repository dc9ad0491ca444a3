# The catalogue: the kernel libraries an et_model_binary naming none takes its kernels from.
# Part of etsb's CMake rules: included by rules/etsb.cmake, which documents the
# variables they read; not to be included alone.
#
# CMake's spelling of rules/private/catalogue.bzl, in the same order, which
# decides the library of an operator that several provide:
#
# 1. etsb's portable kernels (etsb_portable_kernels): every ATen operator;
# 2. etsb's quantized kernels (etsb_quantized_kernels): quantized_decomposed::;
# 3. etsb's LLM kernels (etsb_llm_kernels): llama::;
# 4. with an ExecuTorch tree (et_executorch_tree, or EXECUTORCH_ROOT as a
#    variable or in the environment) and CMSIS-NN (CMSIS_NN_ROOT, or cmsis-nn
#    beside the tree), ExecuTorch's Cortex-M kernels (executorch_cortex_m_kernels):
#    cortex_m::, beside the tree's portable kernels, whose utilities they use.
#
# Each operator comes from the first library that has it; only the sources the
# program's kernels need are compiled (every library is SELECTIVE), and the
# build prints one line for each library after the first that serves some:
#   etsb: executorch_cortex_m_kernels serves cortex_m::quantized_linear.out, ... (chosen from the model)

# The catalogue's kernel libraries in `kernels_out` and its custom-operator
# yamls merged into one (a merge_yaml target, made once) in `yaml_out`.
function(_etsb_catalogue kernels_out yaml_out)
  _etsb_catalogue_tree()
  get_property(etsb_root GLOBAL PROPERTY ETSB_ROOT)
  set(kernels etsb_portable_kernels etsb_quantized_kernels etsb_llm_kernels)
  set(yamls "${etsb_root}/kernels/quantized/quantized.yaml" "${etsb_root}/kernels/llm/functions.yaml")
  set(target etsb_catalogue_custom_ops)
  if(TARGET executorch_cortex_m_kernels)
    get_property(tree GLOBAL PROPERTY ETSB_EXECUTORCH_TREE)
    list(APPEND kernels executorch_cortex_m_kernels executorch_portable_kernels)
    list(APPEND yamls "${tree}/backends/cortex_m/ops/operators.yaml")
    set(target etsb_catalogue_custom_ops_cortex_m)
  endif()
  if(NOT TARGET ${target})
    # The first yaml having an operator wins: each merge puts the next one under the last.
    set(_ETSB_PART ON)
    list(POP_FRONT yamls merged)
    list(LENGTH yamls steps)
    set(step 0)
    foreach(yaml IN LISTS yamls)
      math(EXPR step "${step} + 1")
      set(name ${target}_${step})
      if(step EQUAL steps)
        set(name ${target})
      endif()
      merge_yaml(NAME ${name} FUNCTIONS_YAML "${merged}" FALLBACK_YAML "${yaml}")
      set(merged ${name})
    endforeach()
  endif()
  set(${kernels_out} "${kernels}" PARENT_SCOPE)
  set(${yaml_out} ${target} PARENT_SCOPE)
endfunction()

# The tree's kernel libraries, made by et_executorch_tree(ROOT <EXECUTORCH_ROOT>)
# when the build has none yet and EXECUTORCH_ROOT (the variable's, then the
# environment's) names an ExecuTorch tree: the catalogue then has what it holds.
function(_etsb_catalogue_tree)
  get_property(tree GLOBAL PROPERTY ETSB_EXECUTORCH_TREE)
  if(NOT "${tree}" STREQUAL "")
    return()
  endif()
  _etsb_first_tree(candidate "${EXECUTORCH_ROOT}" "$ENV{EXECUTORCH_ROOT}")
  if(NOT candidate STREQUAL "")
    et_executorch_tree(ROOT "${candidate}")
  endif()
endfunction()
