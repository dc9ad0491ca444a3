"""Reading ``selected_operators.yaml``: etsb's own, or one written by
ExecuTorch's ``gen_oplist.py`` / ``gen_all_oplist.py``.

Every operator name and kernel key is parsed here, once, into the model's
values; every problem is reported with its line and column, and all of a
file's problems are reported together. Defaults follow torchgen's reader (an
operator entry without flags is a root operator, used for training, with all
overloads).
"""

from __future__ import annotations

from selective_build.model.backends import backend_of_feature, check_backend_id, parse_backend_source_note
from selective_build.model.errors import Location
from selective_build.model.keys import KernelKey, parse_kernel_key
from selective_build.model.names import OperatorName, SchemaSyntaxError, parse_operator_name
from selective_build.model.selection import SelectedOperator, Selection, make_selection
from selective_build.readers.node_reader import NodeReader
from selective_build.readers.yaml_nodes import SEQUENCE, is_null, str_of

TOP_LEVEL_KEYS = ("build_features", "custom_classes", "debug_info", "et_kernel_metadata",
                  "include_all_non_op_selectives", "include_all_operators", "kernel_metadata", "operators")
OPERATOR_KEYS = ("debug_info", "include_all_overloads", "is_root_operator", "is_used_for_training", "name")
_TOP_LEVEL_KEYS = frozenset(TOP_LEVEL_KEYS)
_OPERATOR_KEYS = frozenset(OPERATOR_KEYS)
_FLAGS = ("include_all_operators", "include_all_non_op_selectives")
_OPERATOR_DEFAULTS = {"is_root_operator": True, "is_used_for_training": True, "include_all_overloads": True}


class _SelectionReader(NodeReader):
    """Reads the sections of one ``selected_operators.yaml``."""

    def read(self, root) -> Selection:
        if root is None:
            self.problem(Location(self.path), "empty file; expected a selected_operators.yaml mapping "
                                          "with an 'operators' key")
            return Selection()
        sections = self.fields(root, "the top level", _TOP_LEVEL_KEYS, ", ".join(TOP_LEVEL_KEYS)) or {}
        operators = [self.operator(name, value) for name, value in self.by_operator(sections.get("operators"),
                                                                                    "'operators'")]
        et_keys: dict[OperatorName, list[KernelKey]] = {}
        for name, value in self.by_operator(sections.get("et_kernel_metadata"), "'et_kernel_metadata'"):
            et_keys.setdefault(name, []).extend(self.kernel_keys(value))
        dtypes: dict[str, list[str]] = {}
        for tag, value in self.pairs(sections.get("kernel_metadata"), "'kernel_metadata'"):
            dtypes.setdefault(str(tag.value), []).extend(self.strings(value, "kernel_metadata dtypes"))
        flags = {name: self.boolean(sections[name], name) for name in _FLAGS if name in sections}
        lists = {name: self.strings(sections[name], name)
                 for name in ("custom_classes", "build_features", "debug_info") if name in sections}
        backends = self.backends(sections, lists)
        return make_selection(operators, et_keys, dtypes, **flags, **lists, backends=backends)

    def backends(self, sections, lists: dict[str, list[str]]) -> dict[str, list[str]]:
        """Take the backends out of ``lists`` (build features and debug_info
        lines, as :mod:`selective_build.model.backends` writes them)."""
        backends: dict[str, list[str]] = {}
        features = []
        for feature in lists.get("build_features", ()):
            backend_id = backend_of_feature(feature)
            if backend_id is None:
                features.append(feature)
                continue
            problem = check_backend_id(backend_id)
            if problem:
                self.problem(sections["build_features"], f"build feature '{feature}': {problem}")
            backends.setdefault(backend_id, [])
        notes = []
        for note in lists.get("debug_info", ()):
            parsed = parse_backend_source_note(note) if note else None
            if parsed is None:
                notes.append(note)
            elif parsed[0] in backends:
                backends[parsed[0]].append(parsed[1])
            else:
                notes.append(note)  # a note about a backend the file does not select: kept as it is
        if "build_features" in lists:
            lists["build_features"] = features
        if "debug_info" in lists:
            lists["debug_info"] = notes
        return backends

    def pairs(self, node, what: str) -> list:
        """The pairs of an optional mapping section (absent or null: none)."""
        return [] if node is None else self.mapping(node, what, allow_null=True) or []

    def by_operator(self, node, what: str):
        """(operator name, value node) for each key of a section keyed by operator."""
        for key, value in self.pairs(node, what):
            name = self.operator_name(key)
            if name is not None:
                yield name, value

    def operator_name(self, node) -> OperatorName | None:
        if str_of(node) is None:
            self.problem(node, f"an operator name must be a string, not {self.describe(node)}")
            return None
        try:
            return parse_operator_name(node.value)
        except SchemaSyntaxError as error:
            self.problem(node, f"'{node.value}' is not an operator name: {error.message}")
            return None

    def operator(self, name: OperatorName, node) -> SelectedOperator:
        values = dict(_OPERATOR_DEFAULTS)
        debug_info: tuple[str, ...] = ()
        what = f"the entry of '{name}'"
        for key, value in (self.fields(node, what, _OPERATOR_KEYS, ", ".join(OPERATOR_KEYS))
                           if not is_null(node) else {}).items():
            if key == "debug_info":
                debug_info = tuple(self.strings(value, "debug_info", allow_null_items=True))
            elif key == "name":
                if self.operator_name(value) not in (name, None):
                    self.problem(value, f"'name: {value.value}' differs from the operator it describes, '{name}'")
            else:
                values[key] = self.boolean(value, key)
        return SelectedOperator(name, debug_info=tuple(sorted(set(debug_info))), **values)

    def kernel_keys(self, node) -> list[KernelKey]:
        if node.id != SEQUENCE:
            self.strings(node, "kernel keys")  # reports the problem (null is an empty list)
            return []
        keys = []
        for item in node.value:
            if str_of(item) is None:
                self.problem(item, f"a kernel key must be a string, not {self.describe(item)}")
                continue
            try:
                keys.append(parse_kernel_key(item.value))
            except ValueError as error:
                self.problem(item, str(error))
        return keys


def parse_selected_operators(text: str, path: str) -> Selection:
    """Parse ``selected_operators.yaml`` text; raise UserError with every problem."""
    return _SelectionReader(path).read_text(text)
