"""Which backend libraries a selection needs: a pure function of the selection
and the declared libraries, failing with every backend no library provides."""

from __future__ import annotations

from collections.abc import Sequence

from selective_build.model.backends import BackendLibrary
from selective_build.model.errors import Location, Problem, UserError
from selective_build.model.selection import Selection


def libraries_for(selection: Selection, libraries: Sequence[BackendLibrary]) -> tuple[BackendLibrary, ...]:
    """The declared libraries providing the selection's backends, in the order
    given (each once). A backend that no library provides, or that two
    provide, is an error naming the sources that need it (the model and
    method) and the libraries declared."""
    providers: dict[str, list[BackendLibrary]] = {}
    for library in libraries:
        for backend_id in library.backend_ids:
            providers.setdefault(backend_id, []).append(library)
    declared = ", ".join(f"{lib.path or lib.library} ({', '.join(lib.backend_ids)})" for lib in libraries) or "none"
    problems, chosen = [], []
    for backend_id, sources in selection.backends.items():
        found = providers.get(backend_id, [])
        if not found:
            first, *others = sources or ("the selection",)
            also = f" (also needed by {'; '.join(others)})" if others else ""
            problems.append(Problem(f"needs backend '{backend_id}', which no backend library of this build "
                                    f"provides{also}; declared: {declared}. Link the library that registers it "
                                    f"(the rules' backend_deps)", Location(first)))
        elif len({lib.library for lib in found}) > 1:
            problems.append(Problem(f"backend '{backend_id}' is provided by more than one backend library: "
                                    + ", ".join(lib.path or lib.library for lib in found), Location(found[1].path)))
        elif found[0] not in chosen:
            chosen.append(found[0])
    if problems:
        raise UserError.of(problems)
    return tuple(lib for lib in libraries if lib in chosen)
