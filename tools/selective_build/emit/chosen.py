"""The build's lines naming the kernel libraries the catalogue chose for a
model: one a library, with the operators it serves (stderr)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def render_chosen(served: Mapping[str, Sequence[str]]) -> str:
    """``etsb: LIBRARY serves OP, ... (chosen from the model)``, a line per library of ``served``."""
    return "".join(f"etsb: {library} serves {', '.join(operators)} (chosen from the model)\n"
                   for library, operators in served.items())
