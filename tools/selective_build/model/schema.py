"""The function-schema language of ATen's ``native_functions.yaml``.

A schema reads ``ns::name.overload(Type arg=default, *, Tensor(a!) out) -> Tensor(a!)``.
:func:`parse_schema` turns such text into an immutable :class:`FunctionSchema`;
a syntax error raises :class:`~selective_build.model.names.SchemaSyntaxError`
with the 1-based column in the text, which callers map to a place in their file.

This module only parses. Which types ExecuTorch can pass to a kernel is
:mod:`selective_build.model.evalue_types`; what else a kernel yaml entry must
satisfy is checked by :mod:`selective_build.readers.kernel_yaml`.
"""

from __future__ import annotations

import functools

from selective_build.model.names import (DEFAULT_NAMESPACE, OperatorName, SchemaSyntaxError,
                                         parse_operator_name)
from selective_build.model.records import record

# Every base type the schema language knows; ExecuTorch supports a subset.
KNOWN_BASE_TYPES = frozenset({
    "Tensor", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str",
    "Scalar", "ScalarType", "MemoryFormat", "Device", "DeviceIndex", "Layout",
    "Generator", "Dimname", "Storage", "Stream", "QScheme", "ConstQuantizerPtr",
    "GraphModule", "Any",
})


@record
class BaseType:
    """A plain type: ``Tensor``, ``int``, ``Scalar``..."""

    name: str

    def __str__(self) -> str:
        return self.name


@record
class OptionalType:
    """``T?``."""

    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@record
class ListType:
    """``T[]``, or ``T[N]`` when ``size`` is set."""

    elem: "Type"
    size: int | None = None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


# A type is a BaseType, an OptionalType or a ListType (annotations only).
Type = "BaseType | OptionalType | ListType"


def base_of(type_: Type) -> BaseType:
    """The innermost base type: ``Tensor?[]`` -> ``Tensor``."""
    while type(type_) is not BaseType:
        type_ = type_.elem
    return type_


def is_single_tensor(type_: Type) -> bool:
    """``Tensor`` or ``Tensor?``: the arguments that contribute to a kernel key."""
    if type(type_) is OptionalType:
        type_ = type_.elem
    return type(type_) is BaseType and type_.name == "Tensor"


def is_tensor(type_: Type) -> bool:
    """Exactly ``Tensor``."""
    return type(type_) is BaseType and type_.name == "Tensor"


@record
class Annotation:
    """An alias annotation: ``(a!)`` is ``alias_sets=("a",), is_write=True``."""

    alias_sets: tuple[str, ...]
    is_write: bool
    alias_sets_after: tuple[str, ...] = ()

    def __str__(self) -> str:
        text = "|".join(self.alias_sets) + ("!" if self.is_write else "")
        if self.alias_sets_after:
            text += " -> " + "|".join(self.alias_sets_after)
        return text


def _annotated(type_: Type, annotation: Annotation | None) -> str:
    """Render a type with its annotation after the base: ``Tensor(a!)[]``."""
    text = str(type_)
    if annotation is None:
        return text
    base = base_of(type_).name
    return f"{base}({annotation}){text[len(base):]}"


@record
class Argument:
    """One argument of a schema."""

    name: str
    type: Type
    default: str | None = None
    annotation: Annotation | None = None
    kwarg_only: bool = False

    @property
    def is_write(self) -> bool:
        """Written by the operator (``Tensor(a!)``)."""
        return self.annotation is not None and self.annotation.is_write

    def __str__(self) -> str:
        text = f"{_annotated(self.type, self.annotation)} {self.name}"
        return text if self.default is None else f"{text}={self.default}"


@record
class Return:
    """One returned value of a schema; ``name`` may be empty."""

    type: Type
    name: str = ""
    annotation: Annotation | None = None

    def __str__(self) -> str:
        text = _annotated(self.type, self.annotation)
        return f"{text} {self.name}" if self.name else text


@record
class FunctionSchema:
    """A parsed function schema."""

    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """The keyword-only arguments the operator writes: its outputs."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.is_write)

    def argument(self, name: str) -> Argument | None:
        """The argument called ``name``, if any."""
        for arg in self.arguments:
            if arg.name == name:
                return arg
        return None

    def __str__(self) -> str:
        args: list[str] = []
        star = False
        for arg in self.arguments:
            if arg.kwarg_only and not star:
                args.append("*")
                star = True
            args.append(str(arg))
        if len(self.returns) == 1:
            rets = str(self.returns[0])
        else:
            rets = f"({', '.join(map(str, self.returns))})"
        name = self.name.unqualified if self.name.namespace == DEFAULT_NAMESPACE else str(self.name)
        return f"{name}({', '.join(args)}) -> {rets}"


def parse_schema(text: str) -> FunctionSchema:
    """Parse a full function schema; raise SchemaSyntaxError with a 1-based column."""
    open_paren = text.find("(")
    if open_paren < 0:
        raise SchemaSyntaxError("expected '(' after the operator name", len(text) + 1)
    raw_name = text[:open_paren]
    stripped = raw_name.strip(" ")
    try:
        name = parse_operator_name(stripped)
    except SchemaSyntaxError as error:
        leading = len(raw_name) - len(raw_name.lstrip(" "))
        raise SchemaSyntaxError(error.message, leading + error.column) from None
    try:
        arguments, returns = _signature(text[open_paren:])
    except SchemaSyntaxError as error:
        raise SchemaSyntaxError(error.message, open_paren + error.column) from None
    return FunctionSchema(name, arguments, returns)


# Signatures repeat across operators (every unary out variant has the same
# one), so each distinct text is parsed once per process.
@functools.lru_cache(maxsize=4096)
def _signature(text: str) -> tuple[tuple[Argument, ...], tuple[Return, ...]]:
    """The arguments and returns of ``(args) -> returns``."""
    return _Parser(text).signature()


class _Grammar:
    """The grammar's pieces, each matched at the parser's position: compiled
    on first use (importing ``re`` costs ~4 ms, and most runs parse no schema)."""

    spaces = word = suffixes = None
    # One whole argument of the common shape, followed by ',' or ')'; a plain
    # default holds no space, bracket, quote or parenthesis.
    argument = None


def _grammar() -> type[_Grammar]:
    if _Grammar.word is None:
        import re

        _Grammar.spaces = re.compile(r" *")
        _Grammar.word = re.compile(r"\w+")
        _Grammar.suffixes = re.compile(r"(?:\?|\[\d*\])*")
        _Grammar.argument = re.compile(r" *(\w+)(\([^()]*\))?((?:\?|\[\d*\])*) +(\w+)"
                                       r"(?: *= *([^,()\[\]\"' ]+|\[[\d, ]*\]))? *(?=[,)])")
    return _Grammar


class _Parser:
    """Recursive descent over one signature, ``(args) -> returns``; positions are 0-based."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.grammar = _grammar()

    def error(self, message: str, pos: int | None = None) -> SchemaSyntaxError:
        return SchemaSyntaxError(message, (self.pos if pos is None else pos) + 1)

    def peek(self) -> str:
        """The next character after spaces ('' at the end)."""
        char = self.text[self.pos:self.pos + 1]
        if char == " ":
            self.pos = self.grammar.spaces.match(self.text, self.pos).end()
            char = self.text[self.pos:self.pos + 1]
        return char

    def found(self) -> str:
        """The word or character at the current position, for messages."""
        self.peek()
        word = self.grammar.word.match(self.text, self.pos)
        return word.group() if word else (self.text[self.pos] if self.pos < len(self.text) else "end of schema")

    def expect(self, token: str) -> None:
        self.peek()
        if not self.text.startswith(token, self.pos):
            found = self.text[self.pos:self.pos + 12] or "end of schema"
            raise self.error(f"expected '{token}' but found '{found}'")
        self.pos += len(token)

    def identifier(self, what: str) -> str:
        self.peek()
        word = self.grammar.word.match(self.text, self.pos)
        if word is None or not word.group().isidentifier() or not word.group().isascii():
            found = self.text[self.pos:self.pos + 12] or "end of schema"
            raise self.error(f"expected {what} but found '{found}'")
        self.pos = word.end()
        return word.group()

    def signature(self) -> tuple[tuple[Argument, ...], tuple[Return, ...]]:
        self.expect("(")
        arguments = self.arguments()
        self.expect("->")
        returns = self.returns()
        if self.peek():
            raise self.error(f"unexpected text after the returns: '{self.text[self.pos:]}'")
        return arguments, returns

    def arguments(self) -> tuple[Argument, ...]:
        args: list[Argument] = []
        names: set[str] = set()
        kwarg_only = False
        if self.peek() == ")":
            self.pos += 1
            return ()
        while True:
            if self.peek() == "*":
                if kwarg_only:
                    raise self.error("a second '*' in the arguments")
                self.pos += 1
                kwarg_only = True
            else:
                start = self.pos
                arg = self.argument(kwarg_only)
                if arg.name in names:
                    raise self.error(f"duplicate argument name '{arg.name}'", start)
                names.add(arg.name)
                args.append(arg)
            separator = self.peek()
            if separator == ")":
                self.pos += 1
                return tuple(args)
            if separator != ",":
                raise self.error(f"expected ',' or ')' after an argument, found '{self.found()}'")
            self.pos += 1

    def argument(self, kwarg_only: bool) -> Argument:
        # The common shape in one match: `Type(annotation)[] name=default`.
        match = self.grammar.argument.match(self.text, self.pos)
        if match is not None:
            base, annotation_text, suffixes, name, default = match.groups()
            annotation = _annotation(annotation_text[1:-1]) if annotation_text else None
            if base in KNOWN_BASE_TYPES and (annotation_text is None or annotation is not None) \
                    and name.isidentifier() and name.isascii():
                self.pos = match.end()
                return Argument(name, _apply_suffixes(base, suffixes), default, annotation, kwarg_only)
        # Step by step: other spacing and defaults, and every error's place.
        type_, annotation = self.type_with_annotation()
        name = self.identifier("an argument name")
        default = None
        if self.peek() == "=":
            self.pos += 1
            default = self.default_value()
        return Argument(name, type_, default, annotation, kwarg_only)

    def default_value(self) -> str:
        """The raw text of a default, up to the next ',' or ')' outside brackets and quotes."""
        self.peek()
        text, start, pos, depth, quote = self.text, self.pos, self.pos, 0, ""
        while pos < len(text):
            char = text[pos]
            if quote:
                if char == "\\":
                    pos += 1  # an escaped character, quote or backslash
                elif char == quote:
                    quote = ""
            elif char in "\"'":
                quote = char
            elif char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
            elif char in ",)" and depth == 0:
                break
            pos += 1
        if quote:
            raise self.error("unterminated string in a default value", start)
        value = text[start:pos].strip()
        if not value:
            raise self.error("missing default value after '='", start)
        self.pos = pos
        return value

    def type_with_annotation(self) -> tuple[Type, Annotation | None]:
        self.peek()
        start = self.pos
        base = self.identifier("a type")
        if base not in KNOWN_BASE_TYPES:
            raise self.error(f"unknown type '{base}'", start)
        annotation = self.annotation() if self.text.startswith("(", self.pos) else None
        suffixes = self.grammar.suffixes.match(self.text, self.pos)
        self.pos = suffixes.end()
        if self.text.startswith("[", self.pos):
            close = self.text.find("]", self.pos)
            if close < 0:
                raise self.error("unclosed '[' in a type")
            raise self.error(f"list size must be a number, not '{self.text[self.pos + 1:close]}'", self.pos + 1)
        return _apply_suffixes(base, suffixes.group()), annotation

    def annotation(self) -> Annotation:
        close = self.text.find(")", self.pos)
        if close < 0:
            raise self.error("unclosed '(' in an alias annotation")
        annotation = _annotation(self.text[self.pos + 1:close])
        if annotation is None:
            raise self.error(f"bad alias annotation '({self.text[self.pos + 1:close]})'", self.pos + 1)
        self.pos = close + 1
        return annotation

    def returns(self) -> tuple[Return, ...]:
        if self.peek() != "(":
            type_, annotation = self.type_with_annotation()
            name = self.identifier("a return name") if self.peek() else ""
            return (Return(type_, name, annotation),)
        self.pos += 1
        if self.peek() == ")":
            self.pos += 1
            return ()
        returns: list[Return] = []
        while True:
            type_, annotation = self.type_with_annotation()
            name = ""
            if self.peek() not in (",", ")", ""):
                name = self.identifier("a return name")
            returns.append(Return(type_, name, annotation))
            separator = self.peek()
            if separator == ")":
                self.pos += 1
                return tuple(returns)
            if separator != ",":
                raise self.error(f"expected ',' or ')' in the returns, found '{self.found()}'")
            self.pos += 1


@functools.lru_cache(maxsize=None)
def _apply_suffixes(base: str, suffixes: str) -> Type:
    """``base`` with ``?`` and ``[N]`` suffixes applied left to right (checked by the caller)."""
    type_: Type = BaseType(base)
    pos = 0
    while pos < len(suffixes):
        if suffixes[pos] == "?":
            type_ = OptionalType(type_)
            pos += 1
        else:
            close = suffixes.index("]", pos)
            size = suffixes[pos + 1:close]
            type_ = ListType(type_, int(size) if size else None)
            pos = close + 1
    return type_


@functools.lru_cache(maxsize=None)
def _annotation(body: str) -> Annotation | None:
    """The annotation written ``(body)``, or None when it is malformed."""
    before, arrow, after = body.partition("->")
    before = before.strip()
    sets = tuple(s.strip() for s in before.rstrip("!").split("|"))
    after_sets = tuple(s.strip() for s in after.split("|")) if arrow else ()
    if not all(a == "*" or (a.isidentifier() and a.isascii()) for a in sets + after_sets):
        return None
    return Annotation(sets, before.endswith("!"), after_sets)
