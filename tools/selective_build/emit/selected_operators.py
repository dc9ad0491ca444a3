"""Render a Selection as ``selected_operators.yaml``.

The layout is the one PyYAML's ``safe_dump`` gives ExecuTorch's tools (block
style, keys sorted at every level, lists not indented under their key), so
files from both tools diff cleanly; the text is written here directly, which
keeps ``etsb gen-oplist`` from importing a YAML library at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from selective_build.emit.yaml_text import scalar
from selective_build.model.backends import backend_feature, backend_source_note
from selective_build.model.selection import Selection


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _list(items: Iterable[str], indent: str) -> list[str]:
    return [f"{indent}- {scalar(item)}" for item in items]


def _key_with_list(key: str, items: tuple[str, ...], indent: str) -> list[str]:
    if not items:
        return [f"{indent}{scalar(key)}: []"]
    return [f"{indent}{scalar(key)}:"] + _list(items, indent)


def _lists(name: str, mapping: Mapping[object, tuple[object, ...]]) -> list[str]:
    """A mapping of lists (keys and items rendered with str(), in sorted order)."""
    if not mapping:
        return [f"{name}: {{}}"]
    lines = [f"{name}:"]
    for key in sorted(mapping):
        lines += _key_with_list(str(key), tuple(map(str, mapping[key])), "  ")
    return lines


def render_selected_operators(selection: Selection) -> str:
    """The ``selected_operators.yaml`` text of ``selection`` (its backends as
    build features and debug_info lines: :mod:`selective_build.model.backends`)."""
    build_features = sorted({*selection.build_features, *map(backend_feature, selection.backends)})
    debug_info = sorted({*selection.debug_info, *(backend_source_note(backend_id, source)
                                                  for backend_id, sources in selection.backends.items()
                                                  for source in sources)})
    sections: dict[str, list[str]] = {
        "build_features": _key_with_list("build_features", tuple(build_features), ""),
        "custom_classes": _key_with_list("custom_classes", selection.custom_classes, ""),
        "et_kernel_metadata": _lists("et_kernel_metadata", selection.et_kernel_metadata),
        "include_all_non_op_selectives":
            [f"include_all_non_op_selectives: {_flag(selection.include_all_non_op_selectives)}"],
        "include_all_operators": [f"include_all_operators: {_flag(selection.include_all_operators)}"],
        "kernel_metadata": _lists("kernel_metadata", selection.kernel_metadata),
    }
    if debug_info:
        sections["debug_info"] = _key_with_list("debug_info", tuple(debug_info), "")
    operators = ["operators: {}"] if not selection.operators else ["operators:"]
    for name in sorted(selection.operators):
        operator = selection.operators[name]
        operators.append(f"  {scalar(str(name))}:")
        if operator.debug_info:
            operators += _key_with_list("debug_info", operator.debug_info, "    ")
        operators += [
            f"    include_all_overloads: {_flag(operator.include_all_overloads)}",
            f"    is_root_operator: {_flag(operator.is_root_operator)}",
            f"    is_used_for_training: {_flag(operator.is_used_for_training)}",
        ]
    sections["operators"] = operators
    return "".join(line + "\n" for key in sorted(sections) for line in sections[key])
