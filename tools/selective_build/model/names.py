"""Operator names: ``namespace::name.overload``, as schemas, kernel yaml,
``.pte`` programs and selections spell them.

:func:`parse_operator_name` is the one place that reads the spelling; every
other module passes :class:`OperatorName` values around.
"""

from __future__ import annotations

from selective_build.model.identifiers import is_identifier
from selective_build.model.records import record

DEFAULT_NAMESPACE = "aten"


class SchemaSyntaxError(ValueError):
    """Schema text (or an operator name) that does not parse; ``column``
    counts from 1 within the text."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@record
class OperatorName:
    """``namespace::name.overload``; ``overload`` is ``""`` when there is none.

    Names sort as their text does (``str(name)``), so that every listing
    keyed by operator reads the same whichever way it was built."""

    namespace: str
    name: str
    overload: str = ""

    @property
    def unqualified(self) -> str:
        """The name without namespace: ``add.out``."""
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def base_name(self) -> str:
        """The name before the overload without trailing underscores (``add_`` -> ``add``)."""
        return self.name.rstrip("_")

    @property
    def has_overload(self) -> bool:
        """``aten::add.out`` names an overload; ``aten::add`` does not (it can stand for all of them)."""
        return bool(self.overload)

    def covers(self, other: "OperatorName") -> bool:
        """Whether ``other`` is this name or, for a name without overload, one of its overloads."""
        return other == self or (not self.overload and other.namespace == self.namespace
                                 and other.name == self.name)

    def __str__(self) -> str:
        return f"{self.namespace}::{self.unqualified}"

    def __lt__(self, other: "OperatorName") -> bool:
        return str(self) < str(other)

    def __le__(self, other: "OperatorName") -> bool:
        return str(self) <= str(other)

    def __gt__(self, other: "OperatorName") -> bool:
        return str(self) > str(other)

    def __ge__(self, other: "OperatorName") -> bool:
        return str(self) >= str(other)


def parse_operator_name(text: str) -> OperatorName:
    """Parse ``[ns::]name[.overload]``; the namespace defaults to ``aten``.
    Raise :class:`SchemaSyntaxError` saying what is wrong and where."""
    namespace, sep, rest = text.rpartition("::")
    if not sep:
        namespace = DEFAULT_NAMESPACE
    elif not is_identifier(namespace):
        raise SchemaSyntaxError(f"bad namespace {namespace!r}", 1)
    name, dot, overload = rest.partition(".")
    start = len(text) - len(rest) + 1
    if not is_identifier(name):
        raise SchemaSyntaxError(f"bad operator name {name!r}", start)
    if overload and not is_identifier(overload):
        raise SchemaSyntaxError(f"bad overload name {overload!r}", start + len(name) + 1)
    if dot and not overload:
        raise SchemaSyntaxError("empty overload name after '.'", start + len(name) + 1)
    return OperatorName(namespace, name, overload)


def operator_name_of(namespaced_name: str, overload: str) -> OperatorName:
    """The name of an operator stored as two parts, as ``.pte`` programs do
    (``('aten::add', 'out')``); raise SchemaSyntaxError when they do not form one."""
    if "::" not in namespaced_name:
        raise SchemaSyntaxError(f"'{namespaced_name}' has no namespace", 1)
    name = parse_operator_name(namespaced_name)
    if name.overload:
        raise SchemaSyntaxError(f"'{namespaced_name}' holds a '.' before its overload", 1)
    if overload and not is_identifier(overload):
        raise SchemaSyntaxError(f"bad overload name {overload!r}", len(namespaced_name) + 2)
    return OperatorName(name.namespace, name.name, overload)
