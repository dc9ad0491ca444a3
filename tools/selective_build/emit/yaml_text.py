"""YAML text pieces shared by the emitters."""

from __future__ import annotations

from selective_build.model.yaml_scalars import STR, resolve_plain

# Characters that give a plain scalar another meaning at its start.
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")


def scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when a YAML 1.1 reader gives back the
    same string (no indicator at its start, no ': ' or ' #' inside, no
    surrounding space, not a null, bool or number), else double-quoted."""
    if text and text.isprintable() and text == text.strip() and ": " not in text and " #" not in text \
            and not text.endswith(":") and _plain_start(text) and resolve_plain(text) == STR:
        return text
    return _double_quoted(text)


def _double_quoted(text: str) -> str:
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char.isprintable() and code not in (0x85, 0x2028, 0x2029) and not 0xD800 <= code < 0xE000:
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


def _plain_start(text: str) -> bool:
    if text[0] not in _INDICATORS:
        return True
    # '-', '?' and ':' may start a plain scalar when a non-space follows.
    return text[0] in "-?:" and len(text) > 1 and text[1] != " "
