"""Reading a backend library declaration (``backend_library.yaml``).

A declaration says which backends a library registers when it is loaded, the
shared library to link for them, and the libraries it needs beside it at run
time::

    backends: [XnnpackBackend]
    library: etsb-out/bin/runtime/libexecutorch_backend_xnnpack.so
    needs: [etsb-out/bin/runtime/libexecutorch_threadpool.so]

One file may declare several libraries as a list of such mappings (the
runtime wheel's backend libraries, declared by one action:
``//runtime:wheel_backends``). Paths are as the build's actions see them
(the rules write them with ``$(location)``). Every problem is reported with
its line and column.
"""

from __future__ import annotations

from selective_build.model.backends import DECLARATION_KEYS, BackendLibrary, check_backend_id
from selective_build.model.errors import Location
from selective_build.readers.node_reader import NodeReader
from selective_build.readers.yaml_nodes import SEQUENCE

KEYS = DECLARATION_KEYS
_KEYS = frozenset(KEYS)


class _DeclarationReader(NodeReader):
    """Reads a file of backend library declarations: one, or a list of them."""

    def read(self, root) -> tuple[BackendLibrary, ...] | None:
        if root is None:
            self.problem(Location(self.path), "empty file; expected a backend library declaration with "
                                              "'backends' and 'library'")
            return None
        if root.id != SEQUENCE:
            library = self.one(root)
            return None if library is None else (library,)
        if not root.value:
            self.problem(root, "the list declares no backend library")
        libraries = [self.one(node) for node in root.value]
        if self.problems:
            return None
        return tuple(libraries)

    def one(self, root) -> BackendLibrary | None:
        """One declaration (a mapping), or None (reported)."""
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


def parse_backend_libraries(text: str, path: str) -> tuple[BackendLibrary, ...]:
    """Parse a declaration file's text (one declaration or a list); raise UserError with every problem."""
    return _DeclarationReader(path).read_text(text)
