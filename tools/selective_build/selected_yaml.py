"""Reading ``selected_operators.yaml``, ours or one written by ExecuTorch's and
PyTorch's tools, into a :class:`~selective_build.selection.Selection`.

Every problem is reported with its line and column; all of a file's problems
are reported together. Defaults follow torchgen's reader (an operator entry
without flags is a root operator, used for training, with all overloads).
"""

from __future__ import annotations

from selective_build.errors import Location, Problem, UserError, did_you_mean
from selective_build.kernel_keys import check_key_entry
from selective_build.selection import SelectedOperator, Selection, make_selection
from selective_build.yaml_nodes import (BOOL, FLOAT, INT, MAPPING, NULL, SCALAR, SEQUENCE, STR, compose, gc_paused,
                                        is_null, location, str_of, tag_of)

TOP_LEVEL_KEYS = ("build_features", "custom_classes", "debug_info", "et_kernel_metadata",
                  "include_all_non_op_selectives", "include_all_operators", "kernel_metadata", "operators")
OPERATOR_KEYS = ("debug_info", "include_all_overloads", "is_root_operator", "is_used_for_training", "name")
_OPERATOR_DEFAULTS = {"is_root_operator": True, "is_used_for_training": True, "include_all_overloads": True}


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    def problem(self, node, message: str) -> None:
        self.problems.append(Problem(message, location(self.path, node)))

    def mapping(self, node, what: str) -> list:
        if node.id == MAPPING:
            return node.value
        if is_null(node):
            return []
        self.problem(node, f"{what} must be a mapping, found {_describe(node)}")
        return []

    def strings(self, node, what: str, allow_null_items: bool = False) -> list[str]:
        if is_null(node):
            return []
        if node.id != SEQUENCE:
            self.problem(node, f"{what} must be a list, found {_describe(node)}")
            return []
        found = []
        for item in node.value:
            if allow_null_items and is_null(item):
                continue  # ExecuTorch writes 'debug_info: [null]' for sources without a name
            if item.id != SCALAR or tag_of(item) not in (STR, INT, FLOAT):
                self.problem(item, f"{what} must hold strings, found {_describe(item)}")
                continue
            found.append(item.value)
        return found

    def boolean(self, node, what: str) -> bool:
        if node.id == SCALAR and tag_of(node) == BOOL:
            return node.value in ("true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON")
        self.problem(node, f"{what} must be true or false, found {_describe(node)}")
        return False

    def operator_name(self, node) -> str | None:
        from selective_build.schema import SchemaSyntaxError, parse_operator_name

        if str_of(node) is None:
            self.problem(node, f"an operator name must be a string, found {_describe(node)}")
            return None
        try:
            return str(parse_operator_name(node.value))
        except SchemaSyntaxError as error:
            self.problem(node, f"'{node.value}' is not an operator name: {error.message}")
            return None

    def unknown_key(self, node, allowed: tuple[str, ...], where: str) -> None:
        hint = did_you_mean(str(node.value), allowed) or f"; known keys: {', '.join(allowed)}"
        self.problem(node, f"unknown key '{node.value}' {where}{hint}")

    def operator(self, name: str, node) -> SelectedOperator:
        values = dict(_OPERATOR_DEFAULTS)
        debug_info: tuple[str, ...] = ()
        for key, value in self.mapping(node, f"the entry of '{name}'"):
            if key.value not in OPERATOR_KEYS:
                self.unknown_key(key, OPERATOR_KEYS, f"in the entry of '{name}'")
            elif key.value == "debug_info":
                debug_info = tuple(self.strings(value, "debug_info", allow_null_items=True))
            elif key.value == "name":
                if value.value != name and self.operator_name(value) != name:
                    self.problem(value, f"'name: {value.value}' differs from the operator it describes, '{name}'")
            else:
                values[key.value] = self.boolean(value, key.value)
        return SelectedOperator(name, debug_info=tuple(sorted(set(debug_info))), **values)

    def read(self, root) -> Selection:
        if root is None:
            self.problems.append(Problem("empty file; expected a selected_operators.yaml mapping "
                                         "with an 'operators' key", Location(self.path)))
            return Selection()
        operators: list[SelectedOperator] = []
        et_keys: dict[str, list[str]] = {}
        dtypes: dict[str, list[str]] = {}
        flags: dict[str, object] = {}
        for key, value in self.mapping(root, "the top level"):
            name = key.value
            if name not in TOP_LEVEL_KEYS:
                self.unknown_key(key, TOP_LEVEL_KEYS, "at the top level")
            elif name == "operators":
                for op_key, op_value in self.mapping(value, "'operators'"):
                    op_name = self.operator_name(op_key)
                    if op_name:
                        operators.append(self.operator(op_name, op_value))
            elif name == "et_kernel_metadata":
                for op_key, op_value in self.mapping(value, "'et_kernel_metadata'"):
                    op_name = self.operator_name(op_key)
                    keys = self.kernel_keys(op_value)
                    if op_name:
                        et_keys.setdefault(op_name, []).extend(keys)
            elif name == "kernel_metadata":
                for tag, tag_value in self.mapping(value, "'kernel_metadata'"):
                    dtypes.setdefault(str(tag.value), []).extend(self.strings(tag_value, "kernel_metadata dtypes"))
            elif name in ("include_all_operators", "include_all_non_op_selectives"):
                flags[name] = self.boolean(value, name)
            else:
                flags[name] = set(self.strings(value, name))
        return make_selection(operators, et_keys, dtypes, **flags)

    def kernel_keys(self, node) -> list[str]:
        keys = []
        if node.id != SEQUENCE:
            self.strings(node, "kernel keys")  # reports the problem
            return keys
        for item in node.value:
            if str_of(item) is None:
                self.problem(item, f"a kernel key must be a string, found {_describe(item)}")
                continue
            try:
                keys.append(check_key_entry(item.value))
            except ValueError as error:
                self.problem(item, str(error))
        return keys


def _describe(node) -> str:
    if node.id == SCALAR:
        return "null" if tag_of(node) == NULL else f"{tag_of(node)} '{node.value}'"
    return f"a {node.id}"


def parse_selected_operators(text: str, path: str) -> Selection:
    """Parse ``selected_operators.yaml`` text; raise UserError with every problem."""
    reader = _Reader(path)
    with gc_paused():
        selection = reader.read(compose(text, path))
    if reader.problems:
        raise UserError.of(reader.problems)
    return selection
