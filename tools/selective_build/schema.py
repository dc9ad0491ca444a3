"""The function-schema language of ATen's ``native_functions.yaml``.

A schema reads ``ns::name.overload(Type arg=default, *, Tensor(a!) out) -> Tensor(a!)``.
:func:`parse_schema` turns such text into an immutable :class:`FunctionSchema`;
a syntax error raises :class:`SchemaSyntaxError` with the 1-based column in the
text, which callers map to a place in their file.

This module only parses. What ExecuTorch accepts (out variants, supported
argument types) is decided in :mod:`selective_build.kernel_yaml`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

DEFAULT_NAMESPACE = "aten"

# Every base type the schema language knows; ExecuTorch supports a subset.
KNOWN_BASE_TYPES = frozenset({
    "Tensor", "int", "SymInt", "float", "SymFloat", "bool", "SymBool", "str",
    "Scalar", "ScalarType", "MemoryFormat", "Device", "DeviceIndex", "Layout",
    "Generator", "Dimname", "Storage", "Stream", "QScheme", "ConstQuantizerPtr",
    "GraphModule", "Any",
})


class SchemaSyntaxError(ValueError):
    """A schema that does not parse; ``column`` counts from 1 within the schema text."""

    def __init__(self, message: str, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class OperatorName:
    """``namespace::name.overload``; ``overload`` is ``""`` when there is none."""

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

    def __str__(self) -> str:
        return f"{self.namespace}::{self.unqualified}"


def parse_operator_name(text: str) -> OperatorName:
    """Parse ``[ns::]name[.overload]``; the namespace defaults to ``aten``."""
    namespace, sep, rest = text.rpartition("::")
    if not sep:
        namespace = DEFAULT_NAMESPACE
    elif not _is_identifier(namespace):
        raise SchemaSyntaxError(f"bad namespace {namespace!r}", 1)
    name, _, overload = rest.partition(".")
    start = len(text) - len(rest) + 1
    if not _is_identifier(name):
        raise SchemaSyntaxError(f"bad operator name {name!r}", start)
    if overload and not _is_identifier(overload):
        raise SchemaSyntaxError(f"bad overload name {overload!r}", start + len(name) + 1)
    if _ and not overload:
        raise SchemaSyntaxError("empty overload name after '.'", start + len(name) + 1)
    return OperatorName(namespace, name, overload)


@dataclass(frozen=True, slots=True)
class BaseType:
    """A plain type: ``Tensor``, ``int``, ``Scalar``..."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True)
class OptionalType:
    """``T?``."""

    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True, slots=True)
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
    while not isinstance(type_, BaseType):
        type_ = type_.elem
    return type_


def is_single_tensor(type_: Type) -> bool:
    """``Tensor`` or ``Tensor?``: the arguments that contribute to a kernel key."""
    if isinstance(type_, OptionalType):
        type_ = type_.elem
    return isinstance(type_, BaseType) and type_.name == "Tensor"


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Return:
    """One returned value of a schema; ``name`` may be empty."""

    type: Type
    name: str = ""
    annotation: Annotation | None = None

    def __str__(self) -> str:
        text = _annotated(self.type, self.annotation)
        return f"{text} {self.name}" if self.name else text


@dataclass(frozen=True, slots=True)
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


def _is_identifier(text: str) -> bool:
    return text.isidentifier() and text.isascii()


class _Parser:
    """Recursive descent over one schema string; positions are 0-based."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> SchemaSyntaxError:
        return SchemaSyntaxError(message, (self.pos if pos is None else pos) + 1)

    def skip_space(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] == " ":
            pos += 1
        self.pos = pos

    def next_token(self) -> str:
        """The word or character at the current position, for messages."""
        self.skip_space()
        text, pos = self.text, self.pos
        end = pos
        while end < len(text) and (text[end].isalnum() or text[end] == "_"):
            end += 1
        return text[pos:max(end, pos + 1)] or "end of schema"

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, token: str) -> None:
        self.skip_space()
        if not self.text.startswith(token, self.pos):
            found = self.text[self.pos:self.pos + 12] or "end of schema"
            raise self.error(f"expected '{token}' but found '{found}'")
        self.pos += len(token)

    def identifier(self, what: str) -> str:
        self.skip_space()
        start = pos = self.pos
        text = self.text
        while pos < len(text) and (text[pos].isalnum() or text[pos] == "_"):
            pos += 1
        word = text[start:pos]
        if not word or not _is_identifier(word):
            found = text[start:start + 12] or "end of schema"
            raise self.error(f"expected {what} but found '{found}'")
        self.pos = pos
        return word

    def schema(self) -> FunctionSchema:
        self.skip_space()
        open_paren = self.text.find("(", self.pos)
        if open_paren < 0:
            raise self.error("expected '(' after the operator name", len(self.text))
        raw_name = self.text[self.pos:open_paren].strip()
        try:
            name = parse_operator_name(raw_name)
        except SchemaSyntaxError as error:
            raise self.error(error.message, self.pos + error.column - 1) from None
        self.pos = open_paren + 1
        arguments = self.arguments()
        self.expect("->")
        returns = self.returns()
        self.skip_space()
        if self.pos != len(self.text):
            raise self.error(f"unexpected text after the returns: '{self.text[self.pos:]}'")
        return FunctionSchema(name, arguments, returns)

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
                type_, annotation = self.type_with_annotation()
                name = self.identifier("an argument name")
                if name in names:
                    raise self.error(f"duplicate argument name '{name}'", start)
                names.add(name)
                default = None
                if self.peek() == "=":
                    self.pos += 1
                    default = self.default_value()
                args.append(Argument(name, type_, default, annotation, kwarg_only))
            separator = self.peek()
            if separator == ")":
                self.pos += 1
                return tuple(args)
            if separator != ",":
                raise self.error(f"expected ',' or ')' after an argument, found '{self.next_token()}'")
            self.pos += 1

    def default_value(self) -> str:
        """The raw text of a default, up to the next top-level ',' or ')'."""
        self.skip_space()
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
        start = self.pos
        base = self.identifier("a type")
        if base not in KNOWN_BASE_TYPES:
            raise self.error(f"unknown type '{base}'", start + (len(self.text[start:]) - len(self.text[start:].lstrip(" "))))
        annotation = None
        if self.text.startswith("(", self.pos):
            annotation = self.annotation()
        type_: Type = BaseType(base)
        while True:
            if self.text.startswith("?", self.pos):
                self.pos += 1
                type_ = OptionalType(type_)
            elif self.text.startswith("[", self.pos):
                close = self.text.find("]", self.pos)
                if close < 0:
                    raise self.error("unclosed '[' in a type")
                size_text = self.text[self.pos + 1:close]
                if size_text and not size_text.isdigit():
                    raise self.error(f"list size must be a number, not '{size_text}'", self.pos + 1)
                type_ = ListType(type_, int(size_text) if size_text else None)
                self.pos = close + 1
            else:
                return type_, annotation

    def annotation(self) -> Annotation:
        close = self.text.find(")", self.pos)
        if close < 0:
            raise self.error("unclosed '(' in an alias annotation")
        body = self.text[self.pos + 1:close]
        before, arrow, after = body.partition("->")
        before = before.strip()
        is_write = before.endswith("!")
        sets = tuple(s.strip() for s in before.rstrip("!").split("|"))
        after_sets = tuple(s.strip() for s in after.split("|")) if arrow else ()
        for alias in sets + after_sets:
            if not (alias == "*" or _is_identifier(alias)):
                raise self.error(f"bad alias annotation '({body})'", self.pos + 1)
        self.pos = close + 1
        return Annotation(sets, is_write, after_sets)

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
                raise self.error(f"expected ',' or ')' in the returns, found '{self.next_token()}'")
            self.pos += 1


# The fast path: one regular expression cuts the argument list into pieces, one
# per argument, and another reads each distinct piece. Text they do not match
# goes to _Parser, which either accepts it or says precisely what is wrong.
_DEFAULT = r"(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|\[[^\]]*\]|[^,()\[\]\"' ]+)"
_ARGUMENT = re.compile(r" *(\w+)(\([^()]*\))?((?:\?|\[\d*\])*) +(\w+) *(?:= *(" + _DEFAULT + r") *)?")
# One argument or '*' with its comma: an argument list is a run of these.
_PIECE = re.compile(r" *(?:\*|\w+(?:\([^()]*\))?(?:\?|\[\d*\])* +\w+ *(?:= *" + _DEFAULT + r" *)?) *(?:,|\Z)")
_RETURN = re.compile(r" *(\w+)(\([^()]*\))?((?:\?|\[\d*\])*)(?: +(\w+))? *([,)]|$)")
_NAME = re.compile(r" *(?:(\w+)::)?(\w+)(?:\.(\w+))?\(")


@functools.lru_cache(maxsize=None)
def _fast_type(base: str, suffixes: str) -> Type | None:
    if base not in KNOWN_BASE_TYPES:
        return None
    type_: Type = BaseType(base)
    pos = 0
    while pos < len(suffixes):  # the regex guarantees '?' or '[digits]' pieces
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
def _fast_annotation(text: str) -> Annotation | None:
    body = text[1:-1]
    before, arrow, after = body.partition("->")
    before = before.strip()
    sets = tuple(s.strip() for s in before.rstrip("!").split("|"))
    after_sets = tuple(s.strip() for s in after.split("|")) if arrow else ()
    if not all(a == "*" or _is_identifier(a) for a in sets + after_sets):
        return None
    return Annotation(sets, before.endswith("!"), after_sets)


def _fast_parse(text: str) -> FunctionSchema | None:
    match = _NAME.match(text)
    if match is None:
        return None
    namespace, name, overload = match.groups()
    # Split at the first '->': text that makes this split wrong (an arrow in an
    # annotation or a default) fails one of the two parts and goes to _Parser.
    arrow = text.find("->", match.end())
    if arrow < 0:
        return None
    head = text[match.end():arrow].rstrip(" ")
    if not head.endswith(")"):
        return None
    arguments = _fast_arguments(head[:-1])
    returns = _fast_returns(text[arrow + 2:].strip(" "))
    if arguments is None or returns is None:
        return None
    return FunctionSchema(OperatorName(namespace or DEFAULT_NAMESPACE, name, overload or ""), arguments, returns)


# Argument and return lists repeat across operators (every unary out variant
# has the same ones), so each distinct text is parsed once per process.
@functools.lru_cache(maxsize=4096)
def _fast_arguments(text: str) -> tuple[Argument, ...] | None:
    """The arguments between a schema's parentheses, or None to defer to _Parser."""
    if not text.strip(" "):
        return ()
    pieces = _PIECE.findall(text)
    if sum(map(len, pieces)) != len(text):  # the pieces must tile the text
        return None
    args: list[Argument] = []
    kwarg_only = False
    for piece in pieces:
        if piece.strip(" ,") == "*":
            if kwarg_only:
                return None
            kwarg_only = True
            continue
        arg = _fast_argument(piece.rstrip(","), kwarg_only)
        if arg is None:
            return None
        args.append(arg)
    if pieces[-1].endswith(",") or len({a.name for a in args}) != len(args):
        return None
    return tuple(args)


@functools.lru_cache(maxsize=4096)
def _fast_argument(text: str, kwarg_only: bool) -> Argument | None:
    """One argument (``Tensor(a!) out``, ``int[2] stride=[1, 1]``), or None."""
    match = _ARGUMENT.fullmatch(text)
    if match is None:
        return None
    base, annotation_text, suffixes, name, default = match.groups()
    type_ = _fast_type(base, suffixes)
    annotation = _fast_annotation(annotation_text) if annotation_text else None
    if type_ is None or (annotation_text and annotation is None):
        return None
    return Argument(name, type_, default, annotation, kwarg_only)


@functools.lru_cache(maxsize=1024)
def _fast_returns(text: str) -> tuple[Return, ...] | None:
    """A schema's returns (the text after '->'), or None to defer to _Parser."""
    returns: list[Return | None] = []
    if text.startswith("("):
        pos = 1
        if text == "()":
            pos = len(text)
        while pos < len(text):
            ret = _RETURN.match(text, pos)
            if ret is None or ret.group(5) == "":
                return None
            returns.append(_fast_return(ret))
            pos = ret.end()
            if ret.group(5) == ")":
                break
        if text[pos:].strip():
            return None
    else:
        ret = _RETURN.match(text)
        if ret is None or ret.group(5) != "" or ret.end() != len(text):
            return None
        returns.append(_fast_return(ret))
    if None in returns:
        return None
    return tuple(returns)


def _fast_return(match) -> Return | None:
    base, annotation_text, suffixes, name, _ = match.groups()
    type_ = _fast_type(base, suffixes)
    annotation = _fast_annotation(annotation_text) if annotation_text else None
    if type_ is None or (annotation_text and annotation is None):
        return None
    return Return(type_, name or "", annotation)


def parse_schema(text: str) -> FunctionSchema:
    """Parse a full function schema; raise :class:`SchemaSyntaxError` with a column."""
    return _fast_parse(text) or _Parser(text).schema()


def parse_schema_precisely(text: str) -> FunctionSchema:
    """Parse with the character-by-character parser alone (tests compare both paths)."""
    return _Parser(text).schema()
