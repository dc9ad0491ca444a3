"""merge_yaml: a vendor kernel yaml over a fallback kernel yaml."""

from __future__ import annotations

from selective_build.model.kernels import KernelYaml, OperatorEntry


def merge_kernel_yaml(functions: KernelYaml, fallback: KernelYaml | None) -> tuple[OperatorEntry, ...]:
    """Every operator of ``functions``, then the operators of ``fallback`` that
    ``functions`` lacks, each in file order. Operators match by full name
    (``aten::add.out``; ``op: add.out`` and ``func: aten::add.out(...)`` are the
    same operator), and the functions yaml wins per operator: its entry is
    taken whole, kernels and aliases together."""
    merged = list(functions.entries)
    if fallback is not None:
        claimed = {entry.name for entry in functions.entries}
        merged.extend(entry for entry in fallback.entries if entry.name not in claimed)
    return tuple(merged)
