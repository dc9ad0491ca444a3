"""Reading a composed YAML document into values, with every problem located.

:class:`NodeReader` is the one walker both yaml readers (kernel yaml and
``selected_operators.yaml``) build on: it checks the shape of each node it is
asked for (a mapping with known keys, a string, a list of strings, a bool),
records a problem at the node's line and column for anything else, and lets
the reader carry on so that one run reports every problem in the file.
"""

from __future__ import annotations

from selective_build.model.errors import Location, Problem, UserError, did_you_mean
from selective_build.model.yaml_scalars import TRUE_WORDS
from selective_build.readers.yaml_nodes import (BOOL, FLOAT, INT, MAPPING, NULL, SCALAR, SEQUENCE, STR, compose,
                                                gc_paused, is_null, location, str_of, tag_of)


class NodeReader:
    """Walks the nodes of one file (``path``), collecting located problems."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.problems: list[Problem] = []

    # -- problems --------------------------------------------------------------

    def at(self, node) -> Location:
        """Where ``node`` starts."""
        return location(self.path, node)

    def problem(self, node_or_location, message: str) -> None:
        """Record a problem at a node or a location."""
        where = node_or_location if isinstance(node_or_location, Location) else self.at(node_or_location)
        self.problems.append(Problem(message, where))

    @staticmethod
    def describe(node) -> str:
        """What a node is, for messages: ``null``, ``the string 'x'``, ``'1'``, ``a list``, ``a mapping``."""
        if node.id == SCALAR:
            kind = tag_of(node)
            if kind == NULL:
                return "null"
            if kind == STR:
                return f"the string '{node.value}'"
            return f"'{node.value}'"
        return "a list" if node.id == SEQUENCE else "a mapping"

    # -- node shapes -----------------------------------------------------------

    def mapping(self, node, what: str, allow_null: bool = False) -> list | None:
        """The (key, value) pairs of a mapping node, less keys that are not
        plain names or that repeat (each reported). With ``allow_null``, null
        reads as an empty mapping. None when the node is not a mapping."""
        if node.id != MAPPING:
            if allow_null and is_null(node):
                return []
            self.problem(node, f"{what} must be a mapping, not {self.describe(node)}")
            return None
        pairs = node.value
        # Most mappings are well formed: check that in one pass and hand the
        # node's own (read-only) pair list back.
        if all(key.id == SCALAR for key, _ in pairs) and len({key.value for key, _ in pairs}) == len(pairs):
            return pairs
        seen: set[str] = set()
        kept = []
        for key, value in pairs:
            if key.id != SCALAR:
                self.problem(key, f"keys of {what} must be plain names")
            elif key.value in seen:
                self.problem(key, f"'{key.value}' appears twice in {what}")
            else:
                seen.add(key.value)
                kept.append((key, value))
        return kept

    def fields(self, node, what: str, known: frozenset, expected: str) -> dict | None:
        """A mapping node's values by key, for a mapping with a fixed set of
        keys: reports keys that are not plain names, repeat, or are not in
        ``known`` (then ``expected`` lists the keys that are)."""
        if node.id == MAPPING:  # the common case: distinct known names, in one pass
            fields = {key.value: value for key, value in node.value if key.id == SCALAR}
            if len(fields) == len(node.value) and fields.keys() <= known:
                return fields
        pairs = self.mapping(node, what)
        if pairs is None:
            return None
        fields = {}
        for key, value in pairs:
            if key.value in known:
                fields[key.value] = value
            else:
                self.unknown_key(key, known, what, expected)
        return fields

    def unknown_key(self, key, known, what: str, expected: str) -> None:
        """Report a key outside ``known``."""
        self.problem(key, f"unknown key '{key.value}' in {what}{did_you_mean(str(key.value), sorted(known))}; "
                          f"expected {expected}")

    @staticmethod
    def has_unknown_key(node, known: frozenset) -> bool:
        """Whether a mapping node has a key outside ``known`` (already reported by fields())."""
        return any(key.id == SCALAR and key.value not in known for key, _ in node.value)

    def string(self, node, what: str) -> str | None:
        """A non-empty string (surrounding spaces dropped), else None (reported)."""
        text = str_of(node)
        text = text.strip() if text is not None else ""
        if not text:
            self.problem(node, f"{what} must be a non-empty string, not {self.describe(node)}")
            return None
        return text

    def strings(self, node, what: str, allow_null_items: bool = False) -> list[str]:
        """The items of a list of scalars (strings, or numbers read as their text);
        null reads as an empty list, and with ``allow_null_items`` null items are skipped."""
        if is_null(node):
            return []
        if node.id != SEQUENCE:
            self.problem(node, f"{what} must be a list, not {self.describe(node)}")
            return []
        found = []
        for item in node.value:
            if allow_null_items and is_null(item):
                continue
            if item.id != SCALAR or tag_of(item) not in (STR, INT, FLOAT):
                self.problem(item, f"{what} must hold strings, not {self.describe(item)}")
                continue
            found.append(item.value)
        return found

    def boolean(self, node, what: str) -> bool:
        """A YAML bool (``true``, ``no``...), else False (reported)."""
        if node.id == SCALAR and tag_of(node) == BOOL:
            return node.value in TRUE_WORDS
        self.problem(node, f"{what} must be true or false, not {self.describe(node)}")
        return False

    # -- the file ----------------------------------------------------------------

    def read_text(self, text: str):
        """Compose ``text`` and read its root node with :meth:`read`; raise one
        UserError with every problem found."""
        with gc_paused():
            root = compose(text, self.path)
            result = self.read(root)
            # Free the node tree while collection is still paused: otherwise the
            # first collection afterwards walks every node for nothing.
            del root
        if self.problems:
            raise UserError.of(self.problems)
        return result

    def read(self, root):
        """The value a file's root node (None for an empty file) stands for."""
        raise NotImplementedError
