"""The catalogue: every kernel library etsb knows, in the order that decides
which one serves an operator that several provide.

A model binary that names no kernel library (no `kernel_deps`, no kernel
yamls) takes its kernels from the catalogue: each operator its program
calls comes from the first library here that has it, and only the sources
those kernels need are compiled, so a library that serves nothing costs
nothing. The order:

1. etsb's portable kernels (`//kernels/portable`): every ATen operator;
2. etsb's quantized kernels (`//kernels/quantized`): `quantized_decomposed::`;
3. etsb's LLM kernels (`//kernels/llm`): `llama::`;
4. with an ExecuTorch tree and CMSIS-NN (each shim tells whether they are
   there: `has_repository`; etsb's driver and Bazel from the trees given,
   Buck2 from the cells its root .buckconfig names, `[etsb] executorch_cell`
   and `cmsis_nn_cell`), ExecuTorch's Cortex-M kernels
   (`@executorch//backends/cortex_m`, under Buck2 `executorch//...` or the
   cell named): `cortex_m::`, over CMSIS-NN, beside the tree's portable
   library, whose utilities they use.

A BUILD file that names its libraries gets those and no others. CMake's
rules spell the same catalogue in rules/private/etsb_catalogue.cmake.
"""

load("@etsb_shim//:shim.bzl", _SHIM = "SHIM")
load(":merge_yaml.bzl", "merge_yaml")
load(":private/shim.bzl", "etsb_label")

PORTABLE_FUNCTIONS_YAML = etsb_label("//kernels/portable:functions.yaml")
PORTABLE_KERNELS = etsb_label("//kernels/portable:kernels")

# etsb's libraries of custom operators in the catalogue's order, each (kernels, yaml).
_OWN_CUSTOM = [
    (etsb_label("//kernels/quantized:kernels"), etsb_label("//kernels/quantized:quantized.yaml")),
    (etsb_label("//kernels/llm:kernels"), etsb_label("//kernels/llm:functions.yaml")),
]
_OWN_KERNELS = [PORTABLE_KERNELS] + [kernels for kernels, _ in _OWN_CUSTOM]

# ExecuTorch's Cortex-M library in the tree's repository (its yaml, then its kernel libraries).
_CORTEX_M_YAML = "//backends/cortex_m:operators.yaml"
_CORTEX_M_KERNELS = ["//backends/cortex_m:kernels", "//kernels/portable:kernels"]

# The catalogue's custom operators, one yaml (`//kernels:custom_ops`, made by `catalogue_custom_ops`).
CATALOGUE_CUSTOM_OPS_YAML = etsb_label("//kernels:custom_ops")

def has_repository(name):
    """Whether this build has the external repository `name` (under Buck2: a cell the .buckconfig names for it).

    Args:
      name: a repository name, `executorch` or `cmsis_nn`.

    Returns:
      True or False.
    """
    return _SHIM.has_repository(name)

def _with_cortex_m():
    """Whether ExecuTorch's Cortex-M kernels are in the catalogue: a tree and CMSIS-NN are there."""
    return has_repository("executorch") and has_repository("cmsis_nn")

def _tree(text):
    """`text` (`//pkg:target`) in the ExecuTorch tree's repository, as this build system names it."""
    return _SHIM.repository_label("executorch", text)

def catalogue_kernel_deps():
    """The catalogue's kernel libraries, in its order.

    Returns:
      A list of labels.
    """
    return _OWN_KERNELS + ([_tree(label) for label in _CORTEX_M_KERNELS] if _with_cortex_m() else [])

def catalogue_custom_libraries():
    """The catalogue's libraries of custom operators, in its order, each with its yaml.

    Returns:
      A list of (kernel library, yaml) label pairs: etsb's quantized and LLM
      kernels, then, with the trees, ExecuTorch's Cortex-M kernels.
    """
    return _OWN_CUSTOM + ([(_tree(_CORTEX_M_KERNELS[0]), _tree(_CORTEX_M_YAML))] if _with_cortex_m() else [])

def catalogue_custom_ops(name):
    """Declares `name`: the catalogue's custom-operator yamls merged into one, the first having an operator winning.

    Args:
      name: the target name (`custom_ops` in etsb's `//kernels`).
    """
    yamls = [yaml for _, yaml in catalogue_custom_libraries()]
    merged = yamls[0]
    for index, yaml in enumerate(yamls[1:]):
        step = name if index == len(yamls) - 2 else "%s_%d" % (name, index)
        merge_yaml(name = step, functions_yaml = merged, fallback_yaml = yaml)
        merged = ":" + step
