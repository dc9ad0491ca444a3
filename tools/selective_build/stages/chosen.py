"""Which of the catalogue's kernel libraries serve a model's operators, for
the build to say so (etsb's driver and Bazel learn it from the kernels'
sources, `kernel-sources --say-libraries`; Buck2, which compiles whole
libraries, from their yamls, `gen-bindings --say-library`). Pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def served(operators: Iterable[str], libraries: Sequence[tuple[str, frozenset]]) -> dict[str, tuple[str, ...]]:
    """The operators of ``operators`` each library of ``libraries`` ((name,
    the operator names its yaml has), in the catalogue's order) serves, each
    from the first having it, by name in that order; a library serving none,
    and an operator none has, left out."""
    found: dict[str, set[str]] = {}
    for operator in operators:
        library = next((name for name, names in libraries if operator in names), None)
        if library is not None:
            found.setdefault(library, set()).add(operator)
    return {name: tuple(sorted(found[name])) for name, _ in libraries if name in found}
