"""How YAML 1.1 types a plain scalar, as PyYAML's safe loader does: the one
rule that the yaml reader (typing what it reads) and the yaml emitters
(quoting what would read back as another type) share."""

from __future__ import annotations

NULL, BOOL, INT, FLOAT, STR = "null", "bool", "int", "float", "str"
# Plain scalars PyYAML reads as neither: dates and times, and the merge ('<<')
# and value ('=') keys.
TIMESTAMP, MERGE, VALUE = "timestamp", "merge", "value"

NULLS = frozenset(("", "~", "null", "Null", "NULL"))
BOOLS = frozenset("yes Yes YES no No NO true True TRUE false False FALSE on On ON off Off OFF".split())
TRUE_WORDS = frozenset("yes Yes YES true True TRUE on On ON".split())
# Plain words that are not strings, and the characters a number or a date can start with.
PLAIN_WORDS = {**dict.fromkeys(NULLS, NULL), **dict.fromkeys(BOOLS, BOOL), "<<": MERGE, "=": VALUE}
NUMBER_STARTS = frozenset("0123456789-+.")

_number_patterns = None


def _numbers():
    """PyYAML's safe resolver patterns for int and float (compiled on first use:
    most runs never type a number-like scalar, and ``re`` costs ~8 ms to import)."""
    global _number_patterns
    if _number_patterns is None:
        import re

        _number_patterns = (
            re.compile(r"[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+|[1-9][0-9_]*(?::[0-5]?[0-9])+)\Z"),
            re.compile(r"(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
                       r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"),
            # A date (2001-12-14), or a date and time with an optional fraction and zone.
            re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\Z|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}"
                       r":[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?\Z"),
        )
    return _number_patterns


def resolve_plain(text: str) -> str:
    """The type PyYAML's safe loader gives a plain scalar: null, bool, int,
    float, timestamp, merge, value, or str."""
    word = PLAIN_WORDS.get(text)
    if word is not None:
        return word
    if text[:1] in NUMBER_STARTS:
        integer, floating, timestamp = _numbers()
        if integer.match(text):
            return INT
        if floating.match(text):
            return FLOAT
        if timestamp.match(text):
            return TIMESTAMP
    return STR
