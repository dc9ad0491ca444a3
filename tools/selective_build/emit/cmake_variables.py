"""CMake variables as a script of ``set()`` commands, for a CMakeLists.txt to
``include()``: each value a bracket argument, so that nothing in it
(``$``, quotes, backslashes) is read by CMake. Values in, text out."""

from __future__ import annotations

from collections.abc import Mapping

from selective_build.model.errors import UserError


def render_cmake_variables(variables: Mapping[str, str | tuple[str, ...]], origin: str) -> str:
    """``set(NAME [[value]])`` for each variable (a tuple becomes a CMake list),
    under a comment naming ``origin``, what wrote it. A list item holding ';'
    (a path) cannot be one item of a CMake list: a UserError."""
    lines = [f"# Written by {origin}: do not edit."]
    for name, value in variables.items():
        if isinstance(value, tuple):
            bad = [item for item in value if ";" in item]
            if bad:
                raise UserError(f"{name}: '{bad[0]}' holds ';', which would split it in a CMake list")
            value = ";".join(value)
        lines.append(f"set({name} {_bracket(value)})")
    return "\n".join(lines) + "\n"


def _bracket(text: str) -> str:
    """``text`` as a CMake bracket argument, with as many ``=`` as it needs."""
    equals = ""
    while f"]{equals}]" in text:
        equals += "="
    return f"[{equals}[{text}]{equals}]"
