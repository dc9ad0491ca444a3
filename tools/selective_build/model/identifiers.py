"""The characters of the names a build passes to etsb's commands, declared once.

Operator names (``namespace::name.overload``: three of them), backend ids and
dtype names are ASCII identifiers. :mod:`selective_build.model.names` and
:mod:`selective_build.model.backends` check with :func:`is_identifier`; the
Starlark rules, which cannot run etsb's tool while a BUILD file is evaluated,
spell the same characters (``rules/private/attrs.bzl``) and
tests/test_attr_checks.py holds them, and their verdicts, to these.
"""

from __future__ import annotations

# Spelt out: the `string` module imports `re` (4 ms, more than some commands' work).
IDENTIFIER_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
IDENTIFIER_CHARS = IDENTIFIER_START + "0123456789"


def is_identifier(text: str) -> bool:
    """Whether ``text`` is an ASCII identifier: one of IDENTIFIER_START, then
    IDENTIFIER_CHARS (what Python's ``isidentifier`` says of ASCII text, in C:
    operator names are read by the thousand)."""
    return text.isascii() and text.isidentifier()
