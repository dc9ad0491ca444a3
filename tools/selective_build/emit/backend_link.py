"""What etsb writes about backend libraries: a library's declaration
(:func:`render_backend_declaration`), and the linker script that links a
binary's backend libraries (:func:`render_backend_link_script`).

Which backends a binary needs is known only once its models are read (a
build action), not when the build files are evaluated; so the generated
library carries a small GNU ld script naming exactly those libraries, which
the link takes as an input (ld reads a file that is not an object or archive
as a script). ``INPUT`` adds each library as if named on the command line; a
backend registers itself when loaded, so nothing refers to it and it must be
linked without ``--as-needed``.
"""

from __future__ import annotations

from collections.abc import Sequence

from selective_build.emit.yaml_text import scalar
from selective_build.model.backends import DECLARATION_KEYS, BackendLibrary


def _quoted(path: str) -> str:
    if '"' in path or "\n" in path:
        raise ValueError(f"a library path with a quote or a newline cannot go in a linker script: {path!r}")
    return f'"{path}"'


def render_backend_link_script(libraries: Sequence[BackendLibrary]) -> str:
    """A GNU ld script linking ``libraries`` (a comment alone when there are none)."""
    lines = ["/* Backend libraries linked by etsb: the backends this binary's programs delegate to. */"]
    for library in libraries:
        lines.append(f"/* {', '.join(library.backend_ids)} */")
        lines.append(f"INPUT({_quoted(library.library)})")
    return "\n".join(lines) + "\n"


def render_backend_declaration(backend_ids: Sequence[str], library: str, needs: Sequence[str]) -> str:
    """The ``backend_library.yaml`` text declaring that ``library`` registers ``backend_ids``."""
    backends, library_key, needs_key = DECLARATION_KEYS
    return (f"# The backends {library.rpartition('/')[2]} registers when it is loaded (etsb backend-library).\n"
            f"{backends}: [{', '.join(backend_ids)}]\n"
            f"{library_key}: {scalar(library)}\n"
            f"{needs_key}: [{', '.join(scalar(path) for path in needs)}]\n")
