"""The parser of the function-schema language (:mod:`selective_build.model.schema`).

:func:`parse_schema` turns ``ns::name.overload(Type arg=default, *, Tensor(a!) out) -> Tensor(a!)``
into an immutable :class:`~selective_build.model.schema.FunctionSchema`; a
syntax error raises :class:`~selective_build.model.names.SchemaSyntaxError`
with the 1-based column in the text, which callers map to a place in their file.
"""

from __future__ import annotations

import sys

from selective_build.model.memo import memoized
from selective_build.model.names import SchemaSyntaxError, parse_operator_name
from selective_build.model.schema import (KNOWN_BASE_TYPES, Annotation, Argument, BaseType, FunctionSchema,
                                          ListType, OptionalType, Return, Type)


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
        arguments, returns = _signature[text[open_paren:]]
    except SchemaSyntaxError as error:
        raise SchemaSyntaxError(error.message, open_paren + error.column) from None
    return FunctionSchema(name, arguments, returns)


# Signatures repeat across operators (every unary out variant has the same
# one), so each distinct text is parsed once per process.
@memoized(limit=4096)
def _signature(text: str) -> tuple[tuple[Argument, ...], tuple[Return, ...]]:
    """The arguments and returns of ``(args) -> returns``."""
    global _parsed, _common
    _parsed += 1
    if _common is _common_argument and (_parsed >= REGEX_AFTER or "re" in sys.modules):
        _common = _regex_common_argument()
    return _Parser(text).signature()


# The common argument is read by hand (_common_argument) for the first
# signatures a process parses, and from the REGEX_AFTER-th on by one regular
# expression, the same reading in C (tests/test_schema.py holds them equal):
# importing ``re`` costs about what the hand scan loses to it over 400
# signatures, so a command reading one kernel yaml never imports it and one
# reading thousands of operators pays it back. A process that has imported
# ``re`` already takes the expression at once.
REGEX_AFTER = 400
_parsed = 0  # signatures parsed in this process


def _regex_common_argument():
    """_common_argument as one regular expression match."""
    import re

    expression = re.compile(r" *(\w+)(\([^()]*\))?((?:\?|\[\d*\])*) +(\w+)"
                            r"(?: *= *([^,()\[\]\"' ]+|\[[\d, ]*\]))? *(?=[,)])")

    def common_argument(text: str, pos: int):
        match = expression.match(text, pos)
        return match and (*match.groups(), match.end())

    return common_argument


# The grammar's pieces are scanned by hand, not matched by regular expressions:
# importing ``re`` (with enum, functools and collections) costs a merge-yaml
# command a tenth of its instructions. Each gives the end of its piece at ``pos``.
_ASCII_WORD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"


def _spaces_end(text: str, pos: int) -> int:
    """After the spaces at ``pos`` (`` *``)."""
    while text.startswith(" ", pos):  # none or one, nearly always
        pos += 1
    return pos


def _word_end(text: str, pos: int) -> int:
    """After the word at ``pos`` (``\\w*``: letters, digits and '_', any script); ``pos`` when none."""
    end = len(text) - len(text[pos:].lstrip(_ASCII_WORD))
    while end < len(text) and text[end].isalnum():  # a letter or digit beyond ASCII, then maybe more
        end = len(text) - len(text[end + 1:].lstrip(_ASCII_WORD))
    return end


def _suffixes_end(text: str, pos: int) -> int:
    """After the type suffixes at ``pos`` (``(?:\\?|\\[\\d*\\])*``: '?', '[]', '[N]')."""
    while pos < len(text):
        if text[pos] == "?":
            pos += 1
            continue
        close = pos + 1
        while close < len(text) and text[close].isdecimal():
            close += 1
        if text[pos] != "[" or not text.startswith("]", close):
            break
        pos = close + 1
    return pos


def _list_default_end(text: str, pos: int) -> int:
    """After a list default of numbers at ``pos`` (``\\[[\\d, ]*\\]``); ``pos`` when none."""
    if not text.startswith("[", pos):
        return pos
    close = pos + 1
    while close < len(text) and (text[close].isdecimal() or text[close] in ", "):
        close += 1
    return close + 1 if text.startswith("]", close) else pos


_PLAIN_DEFAULT_STOPS = frozenset(",()[]\"' ")


def _common_argument(text: str, pos: int):
    """One whole argument of the common shape at ``pos``, followed by ',' or ')':
    ``Type(annotation)[] name=default`` with single spaces or more, a plain
    default holding no space, bracket, quote or parenthesis (or a list of
    numbers). ``(base, annotation text or None, suffixes, name, default or None,
    end)``, or None for any other text (the step-by-step parse reads that)."""
    # Inline where it pays: this runs once per argument of every schema read.
    start = pos
    while text.startswith(" ", start):
        start += 1
    pos = _word_end(text, start)
    if pos == start:
        return None
    base, annotation_text = text[start:pos], None
    if text.startswith("(", pos):
        close, inner = text.find(")", pos + 1), text.find("(", pos + 1)
        if close < 0 or 0 <= inner < close:
            return None
        annotation_text, pos = text[pos:close + 1], close + 1
    end = _suffixes_end(text, pos) if text.startswith(("?", "["), pos) else pos
    suffixes, start = text[pos:end], end
    while text.startswith(" ", start):
        start += 1
    pos = _word_end(text, start)
    if start == end or pos == start:
        return None
    name, default, after = text[start:pos], None, pos
    while text.startswith(" ", after):
        after += 1
    if text.startswith("=", after):
        start = after + 1
        while text.startswith(" ", start):
            start += 1
        end = _list_default_end(text, start)
        if end == start:
            while end < len(text) and text[end] not in _PLAIN_DEFAULT_STOPS:
                end += 1
        if end == start:
            return None
        default, after = text[start:end], end
        while text.startswith(" ", after):
            after += 1
    if not text.startswith((",", ")"), after):
        return None
    return base, annotation_text, suffixes, name, default, after


_common = _common_argument  # the reader of the common argument in use (see REGEX_AFTER)


class _Parser:
    """Recursive descent over one signature, ``(args) -> returns``; positions are 0-based."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, message: str, pos: int | None = None) -> SchemaSyntaxError:
        return SchemaSyntaxError(message, (self.pos if pos is None else pos) + 1)

    def peek(self) -> str:
        """The next character after spaces ('' at the end)."""
        char = self.text[self.pos:self.pos + 1]
        if char == " ":
            self.pos = _spaces_end(self.text, self.pos)
            char = self.text[self.pos:self.pos + 1]
        return char

    def found(self) -> str:
        """The word or character at the current position, for messages."""
        self.peek()
        end = _word_end(self.text, self.pos)
        if end > self.pos:
            return self.text[self.pos:end]
        return self.text[self.pos] if self.pos < len(self.text) else "end of schema"

    def expect(self, token: str) -> None:
        self.peek()
        if not self.text.startswith(token, self.pos):
            found = self.text[self.pos:self.pos + 12] or "end of schema"
            raise self.error(f"expected '{token}' but found '{found}'")
        self.pos += len(token)

    def identifier(self, what: str) -> str:
        self.peek()
        end = _word_end(self.text, self.pos)
        word = self.text[self.pos:end]
        if not word.isidentifier() or not word.isascii():
            found = self.text[self.pos:self.pos + 12] or "end of schema"
            raise self.error(f"expected {what} but found '{found}'")
        self.pos = end
        return word

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
        match = _common(self.text, self.pos)
        if match is not None:
            base, annotation_text, suffixes, name, default, end = match
            annotation = _annotation[annotation_text[1:-1]] if annotation_text else None
            if base in KNOWN_BASE_TYPES and (annotation_text is None or annotation is not None) \
                    and name.isidentifier() and name.isascii():
                self.pos = end
                return Argument(name, _apply_suffixes[base, suffixes], default, annotation, kwarg_only)
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
        start, self.pos = self.pos, _suffixes_end(self.text, self.pos)
        if self.text.startswith("[", self.pos):
            close = self.text.find("]", self.pos)
            if close < 0:
                raise self.error("unclosed '[' in a type")
            raise self.error(f"list size must be a number, not '{self.text[self.pos + 1:close]}'", self.pos + 1)
        return _apply_suffixes[base, self.text[start:self.pos]], annotation

    def annotation(self) -> Annotation:
        close = self.text.find(")", self.pos)
        if close < 0:
            raise self.error("unclosed '(' in an alias annotation")
        annotation = _annotation[self.text[self.pos + 1:close]]
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


@memoized(spread=True)
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


@memoized
def _annotation(body: str) -> Annotation | None:
    """The annotation written ``(body)``, or None when it is malformed."""
    before, arrow, after = body.partition("->")
    before = before.strip()
    sets = tuple(s.strip() for s in before.rstrip("!").split("|"))
    after_sets = tuple(s.strip() for s in after.split("|")) if arrow else ()
    if not all(a == "*" or (a.isidentifier() and a.isascii()) for a in sets + after_sets):
        return None
    return Annotation(sets, before.endswith("!"), after_sets)
