"""Render operator entries as kernel yaml text (the format ExecuTorch's tools read)."""

from __future__ import annotations

from selective_build.emit.yaml_text import scalar
from selective_build.model.kernels import FrozenMapping, Kernel, KernelYaml, OperatorEntry

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterable

def _flow(value: object) -> str:
    """Plain data as YAML flow text (JSON-like, which YAML reads)."""
    if value is None:
        return "null"
    if isinstance(value, FrozenMapping):
        return "{" + ", ".join(f"{scalar(k)}: {_flow(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return scalar(str(value))


def _kernel_lines(kernel: Kernel) -> Iterable[str]:
    if kernel.arg_meta is None:
        yield "    - arg_meta: null"
    else:
        yield "    - arg_meta:"
        for meta in kernel.arg_meta:
            yield f"        {meta.argument}: [{meta.type_alias}, {meta.dim_order_alias}]"
    yield f"      kernel_name: {scalar(kernel.kernel_name)}"


def entry_lines(entry: OperatorEntry) -> Iterable[str]:
    """The lines of one operator entry."""
    yield f"- {entry.kind}: {scalar(entry.spelling)}"
    if entry.type_alias:
        yield "  type_alias:"
        for alias, dtypes in entry.type_alias:
            yield f"    {alias}: [{', '.join(dtypes)}]"
    if entry.dim_order_alias:
        yield "  dim_order_alias:"
        for alias, orders in entry.dim_order_alias:
            rendered = ", ".join("[" + ", ".join(map(str, order)) + "]" for order in orders)
            yield f"    {alias}: [{rendered}]"
    yield "  kernels:"
    for kernel in entry.kernels:
        yield from _kernel_lines(kernel)
    for key, value in entry.passthrough:
        yield f"  {key}: {_flow(value)}"


def render_kernel_yaml(entries: Iterable[OperatorEntry]) -> str:
    """Kernel yaml text for ``entries``, in order, with a blank line between entries."""
    blocks = ["\n".join(entry_lines(entry)) + "\n" for entry in entries]
    return "\n".join(blocks)


def render_summary(kernel_yaml: KernelYaml) -> str:
    """validate-yaml's line for a valid kernel yaml: what it holds."""
    operators = len(kernel_yaml.entries)
    kernels = sum(len(entry.kernels) for entry in kernel_yaml.entries)
    return (f"{kernel_yaml.path}: valid, {operators} operator{'s' * (operators != 1)}, "
            f"{kernels} kernel{'s' * (kernels != 1)}")
