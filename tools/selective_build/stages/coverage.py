"""What to tell a user whose build needs an operator that none of its kernel
yamls has: which kernel library etsb knows provides it (etsb's own, with the
attributes to paste; ExecuTorch's tree, with etsb's target for it), or that
none does; and which of the libraries a build was given serve its operators
(:func:`served`). Pure: the catalog is read elsewhere
(:mod:`selective_build.readers.kernel_catalog`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from selective_build.model.coverage import ETSB, EXECUTORCH, KernelCatalog
from selective_build.model.front_ends import BUCK2, CMAKE, STARLARK
from selective_build.model.names import OperatorName

_LLM_README = "kernels/llm/README.md"
# What a binary gives to use each of etsb's libraries, in each front end's spelling.
_ETSB_REMEDIES = {
    STARLARK: {
        "kernels/portable": 'etsb\'s portable kernels provide it: functions_yaml_target = '
                            '"@etsb//kernels/portable:functions.yaml" (the default, or as fallback_yaml_target '
                            'under another yaml) with "@etsb//kernels/portable:kernels" among the kernel_deps',
        "kernels/quantized": 'etsb\'s quantized kernels provide it: give the binary custom_ops_yaml_target = '
                             '"@etsb//kernels/quantized:quantized.yaml" and kernel_deps = '
                             '["@etsb//kernels/quantized:kernels", "@etsb//kernels/portable:kernels"]',
        "kernels/llm": 'etsb\'s LLM kernels provide it: give the binary custom_ops_yaml_target = '
                       '"@etsb//kernels/llm:functions.yaml" and kernel_deps = '
                       '["@etsb//kernels/llm:kernels", "@etsb//kernels/portable:kernels"]',
    },
    CMAKE: {
        "kernels/portable": "etsb's portable kernels provide it: FUNCTIONS_YAML_TARGET "
                            "${ETSB_PORTABLE_FUNCTIONS_YAML} (the default, or as FALLBACK_YAML_TARGET under "
                            "another yaml) with etsb_portable_kernels among the KERNEL_DEPS",
        "kernels/quantized": "etsb's quantized kernels provide it: give the binary CUSTOM_OPS_YAML_TARGET "
                             "${ETSB_QUANTIZED_CUSTOM_OPS_YAML} KERNEL_DEPS etsb_quantized_kernels "
                             "etsb_portable_kernels",
        "kernels/llm": "etsb's LLM kernels provide it: give the binary CUSTOM_OPS_YAML_TARGET "
                       "${ETSB_LLM_CUSTOM_OPS_YAML} KERNEL_DEPS etsb_llm_kernels etsb_portable_kernels",
    },
}
# The same, for a binary whose custom ops yaml is already another library's: the
# second custom yaml goes under the functions yaml as its fallback (one merge).
_ETSB_BESIDE_CUSTOM = {
    STARLARK: {
        path: (f'etsb\'s {what} kernels provide it: the binary\'s custom_ops_yaml_target names another yaml, so '
               f'give it fallback_yaml_target = "@etsb//{path}:{yaml}" (merged under its functions_yaml_target, '
               f'etsb\'s portable one by default) and add "@etsb//{path}:kernels" to its kernel_deps')
        for path, what, yaml in (("kernels/quantized", "quantized", "quantized.yaml"),
                                 ("kernels/llm", "LLM", "functions.yaml"))
    },
    CMAKE: {
        "kernels/quantized": "etsb's quantized kernels provide it: the binary's CUSTOM_OPS_YAML_TARGET names another "
                             "yaml, so give it FALLBACK_YAML_TARGET ${ETSB_QUANTIZED_CUSTOM_OPS_YAML} (merged under "
                             "its FUNCTIONS_YAML_TARGET, etsb's portable one by default) and add "
                             "etsb_quantized_kernels to its KERNEL_DEPS",
        "kernels/llm": "etsb's LLM kernels provide it: the binary's CUSTOM_OPS_YAML_TARGET names another yaml, so "
                       "give it FALLBACK_YAML_TARGET ${ETSB_LLM_CUSTOM_OPS_YAML} (merged under its "
                       "FUNCTIONS_YAML_TARGET, etsb's portable one by default) and add etsb_llm_kernels to its "
                       "KERNEL_DEPS",
    },
}
# etsb's target for each of the tree's libraries, in each front end's spelling.
_TREE_TARGETS = {
    STARLARK: {
        "kernels/portable": "@executorch//kernels/portable:kernels with --executorch-root",
        "kernels/optimized": "@executorch//kernels/optimized:kernels with --executorch-root, over its portable ones",
        "kernels/quantized": "@executorch//kernels/quantized:kernels with --executorch-root",
        "backends/cortex_m": "@executorch//backends/cortex_m:kernels, taken by itself with --executorch-root and "
                             "CMSIS-NN beside the tree or at $CMSIS_NN_ROOT (docs/cortex_m.md)",
    },
    CMAKE: {
        "kernels/portable": "executorch_portable_kernels after et_executorch_tree(ROOT <tree>)",
        "kernels/optimized": "executorch_optimized_kernels after et_executorch_tree(ROOT <tree>), with "
                             "ETSB_TORCH_INCLUDE",
        "kernels/quantized": "executorch_quantized_kernels after et_executorch_tree(ROOT <tree>)",
        "backends/cortex_m": "executorch_cortex_m_kernels, taken by itself with -DEXECUTORCH_ROOT=<tree> (or "
                             "et_executorch_tree(ROOT <tree>)) and CMSIS-NN beside the tree or at CMSIS_NN_ROOT "
                             "(docs/cortex_m.md)",
    },
}
# Under Buck2 etsb's labels name its cell without `@`, and the tree's libraries are those of a cell the
# project's .buckconfig names ([etsb] executorch_cell; rules/private/shim_buck2.bzl).
_BUCK2_TREE = "with [etsb] executorch_cell naming the tree's cell in the project's .buckconfig"
for _table in (_ETSB_REMEDIES, _ETSB_BESIDE_CUSTOM):
    _table[BUCK2] = {path: text.replace('"@etsb//', '"etsb//') for path, text in _table[STARLARK].items()}
_TREE_TARGETS[BUCK2] = {path: text.replace("@executorch//", "executorch//").replace("with --executorch-root", _BUCK2_TREE)
                        for path, text in _TREE_TARGETS[STARLARK].items()}
_TREE_TARGETS[BUCK2]["backends/cortex_m"] = (
    "executorch//backends/cortex_m:kernels, which the catalogue takes by itself once the project's .buckconfig "
    "sets [etsb] executorch_cell and cmsis_nn_cell to its cells of the ExecuTorch tree and of CMSIS-NN "
    "(docs/cortex_m.md)")
_NOT_BUILT = "etsb does not build it yet: " + _LLM_README
_WRITE_ONE = ("write one: a kernel and a custom ops yaml declaring it (examples/custom_op/, "
              "docs/kernel_yaml.md)")


def missing_kernel_hint(name: OperatorName, catalog: KernelCatalog, front_end: str = STARLARK,
                        custom_ops_given: bool = False) -> str:
    """Where the kernel of ``name`` is, for an error saying no kernel yaml of
    the build has it: etsb's libraries that provide it (with the remedy to
    paste, spelt for ``front_end``; ``custom_ops_given``: the build has a
    custom ops yaml already, which a second library's cannot replace), then
    ExecuTorch's tree's, else that no library etsb knows does."""
    remedies = _ETSB_REMEDIES[front_end]
    if custom_ops_given:
        remedies = {**remedies, **_ETSB_BESIDE_CUSTOM[front_end]}
    hints = [remedies.get(library.path, f"etsb's {library.path} provides it")
             for library in catalog.providers(name, ETSB)]
    theirs = catalog.providers(name, EXECUTORCH)
    if theirs:
        places = " and ".join(f"{library.path} ({_TREE_TARGETS[front_end].get(library.path, _NOT_BUILT)})"
                              for library in theirs)
        hints.append(f"ExecuTorch {catalog.executorch_version}'s tree provides it in {places}")
    if catalog.unread:
        # Say so rather than answer for libraries that were not read.
        hints.append(f"etsb's {', '.join(catalog.unread)} not consulted (their yamls are not beside the tool "
                     "here; kernels/README.md lists what each provides)")
    if hints:
        return "; ".join(hints)
    ours = ", ".join(library.path for library in catalog.libraries if library.owner == ETSB)
    tree = ", ".join(library.path for library in catalog.libraries if library.owner == EXECUTORCH)
    return (f"no kernel library etsb knows provides it (etsb's {ours}; ExecuTorch {catalog.executorch_version}'s "
            f"{tree}): {_WRITE_ONE}")


def catalog_summary(catalog: KernelCatalog) -> str:
    """One line of how many operators each library of ``catalog`` provides (for ``etsb doctor``)."""
    ours = ", ".join(f"{library.path} {len(library.operators)}" for library in catalog.libraries
                     if library.owner == ETSB)
    tree = ", ".join(f"{library.path} {len(library.operators)}" for library in catalog.libraries
                     if library.owner == EXECUTORCH)
    unread = f" (not found: {', '.join(catalog.unread)})" if catalog.unread else ""
    return (f"operators per library: etsb's {ours or 'none'}{unread}; ExecuTorch {catalog.executorch_version}'s "
            f"tree {tree} (known without a tree; a missing kernel's error names the library that has it)")


def served(operators: Iterable[str], libraries: Sequence[tuple[str, frozenset]]) -> dict[str, tuple[str, ...]]:
    """The operators of ``operators`` each library of ``libraries`` ((name,
    the operator names its yaml has), in the catalogue's order) serves, each
    from the first having it, by name in that order; a library serving none,
    and an operator none has, left out (Buck2's build says so from the yamls:
    it compiles whole libraries, where etsb's driver and Bazel learn it from
    the kernels' sources, `kernel-sources --say-libraries`)."""
    found: dict[str, set[str]] = {}
    for operator in operators:
        library = next((name for name, names in libraries if operator in names), None)
        if library is not None:
            found.setdefault(library, set()).add(operator)
    return {name: tuple(sorted(found[name])) for name, _ in libraries if name in found}
