"""Reading a backend library declaration (``backend_library.yaml``).

A declaration says which backends a library registers when it is loaded, the
shared library to link for them, and the libraries it needs beside it at run
time::

    backends: [XnnpackBackend]
    library: etsb-out/bin/runtime/libexecutorch_backend_xnnpack.so
    needs: [etsb-out/bin/runtime/libexecutorch_threadpool.so]

Paths are as the build's actions see them (the rules write them with
``$(location)``). Every problem is reported with its line and column.
"""

from __future__ import annotations

from selective_build.model.backends import DECLARATION_KEYS, BackendLibrary, check_backend_id
from selective_build.model.errors import Location
from selective_build.readers.node_reader import NodeReader

KEYS = DECLARATION_KEYS
_KEYS = frozenset(KEYS)


class _DeclarationReader(NodeReader):
    """Reads one backend library declaration."""

    def read(self, root) -> BackendLibrary | None:
        if root is None:
            self.problem(Location(self.path), "empty file; expected a backend library declaration with "
                                              "'backends' and 'library'")
            return None
        fields = self.fields(root, "a backend library declaration", _KEYS, ", ".join(KEYS))
        if fields is None:
            return None
        for key in ("backends", "library"):
            if key not in fields:
                self.problem(root, f"the declaration has no '{key}'")
        ids = []
        if "backends" in fields:
            ids = self.strings(fields["backends"], "backends")
            if not ids and not self.problems:
                self.problem(fields["backends"], "'backends' lists no backend id")
            for backend_id in ids:
                problem = check_backend_id(backend_id)
                if problem:
                    self.problem(fields["backends"], problem)
            if len(set(ids)) != len(ids):
                self.problem(fields["backends"], "'backends' names a backend twice")
        library = self.string(fields["library"], "library") if "library" in fields else None
        needs = self.strings(fields["needs"], "needs") if "needs" in fields else []
        if self.problems or library is None:
            return None
        return BackendLibrary(tuple(sorted(ids)), library, tuple(needs), self.path)


def parse_backend_library(text: str, path: str) -> BackendLibrary:
    """Parse a declaration's text; raise UserError with every problem."""
    return _DeclarationReader(path).read_text(text)
