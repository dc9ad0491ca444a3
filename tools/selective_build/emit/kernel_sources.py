"""kernel-sources' outputs: the list of sources to compile, the names their
dtype switches may take, the wrapper sources that let a build system
fixing its sources when configuring (CMake) compile only those listed, and
the lines naming the libraries the catalogue chose (gen-bindings' too, under
Buck2)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence


# Before a listed source: its library's own object serves (no dtype selection reaches its switches).
PLAIN_MARK = "="


def render_source_list(prefix: str, sources: Sequence[str], plain: Collection[str] = ()) -> str:
    """One source a line, each joined to ``prefix``; those of ``plain`` after :data:`PLAIN_MARK`."""
    return "".join((PLAIN_MARK if source in plain else "") + os.path.join(prefix, source) + "\n"
                   for source in sources)


def render_switch_names(names: Mapping[str, Sequence[str]]) -> str:
    """``name operator...`` a line (what gen-op-variants --switch-names reads)."""
    return "".join(f"{name} {' '.join(operators)}\n" for name, operators in names.items())


def render_wrappers(libraries: Sequence[Sequence[str]], needed: set[str], first: str | None) -> dict[str, str]:
    """One wrapper per compiled source of each library, by its path
    ``k/i_NAME`` (the i-th source of the k-th library): including the source
    (after the header ``first``, if any) when ``needed`` lists it, else a
    comment, which compiles in milliseconds."""
    prelude = f'#include "{os.path.abspath(first)}"\n' if first else ""
    wrappers = {}
    for place, sources in enumerate(libraries):
        for number, path in enumerate(sources):
            text = (f'{prelude}#include "{os.path.abspath(path)}"\n' if path in needed
                    else f"// {os.path.basename(path)}: not needed by this selection\n")
            wrappers[os.path.join(str(place), f"{number}_{os.path.basename(path)}")] = text
    return wrappers


def render_chosen(served: Mapping[str, Sequence[str]]) -> str:
    """``etsb: LIBRARY serves OP, ... (chosen from the model)``, a line per library of ``served`` (stderr)."""
    return "".join(f"etsb: {library} serves {', '.join(operators)} (chosen from the model)\n"
                   for library, operators in served.items())
