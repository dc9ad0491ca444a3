"""Backends: what runs a program's delegates, and the libraries that provide them.

A lowered program (e.g. to XNNPACK) holds delegate calls; the runtime looks up
each delegate's backend by id (``XnnpackBackend``) in the backends registered
when the process started, so a binary must link the library that registers
it. A selection records the ids it needs and who asked for them; a
:class:`BackendLibrary` declares which ids a library registers.

How a selection's backends travel in ``selected_operators.yaml`` (one
contract, used by its reader and its writer): ExecuTorch's tools refuse
unknown top-level keys, so each backend is a build feature
``executorch_backend:<id>``, and each of its sources a top-level
``debug_info`` line ``executorch_backend:<id> <- <source>``. Files stay
readable by ExecuTorch's own tools, and unions combine them like any feature.
"""

from __future__ import annotations

from selective_build.model.identifiers import is_identifier
from selective_build.model.records import record

BACKEND_FEATURE_PREFIX = "executorch_backend:"
_SOURCE_SEPARATOR = " <- "
# How debug_info names an explicit list of backends (the rules' `backends`).
BACKENDS_SOURCE = "--backends"
# The keys of a backend library declaration (readers/backend_yaml.py reads it, emit/backend_link.py writes it).
DECLARATION_KEYS = ("backends", "library", "needs")


@record
class BackendLibrary:
    """A library registering backends: the ids it registers, the shared
    library to link (``library``), the ones it needs beside it at run time
    (``needs``), and the declaration file it was read from."""

    backend_ids: tuple[str, ...]
    library: str
    needs: tuple[str, ...] = ()
    path: str = ""


def check_backend_id(text: str) -> str | None:
    """Why ``text`` cannot be a backend id (None when it can): ids are
    ASCII identifiers, as ExecuTorch's backends name themselves."""
    if not text:
        return "a backend id cannot be empty"
    if not is_identifier(text):
        return f"'{text}' is not a backend id (letters, digits and '_', e.g. XnnpackBackend)"
    return None


def backend_feature(backend_id: str) -> str:
    """The build feature recording ``backend_id``."""
    return BACKEND_FEATURE_PREFIX + backend_id


def backend_of_feature(feature: str) -> str | None:
    """The backend id a build feature records, or None for any other feature."""
    return feature[len(BACKEND_FEATURE_PREFIX):] if feature.startswith(BACKEND_FEATURE_PREFIX) else None


def backend_source_note(backend_id: str, source: str) -> str:
    """The top-level ``debug_info`` line saying ``source`` needs ``backend_id``."""
    return backend_feature(backend_id) + _SOURCE_SEPARATOR + source


def parse_backend_source_note(note: str) -> tuple[str, str] | None:
    """(backend id, source) of a line written by :func:`backend_source_note`, else None."""
    backend_id = backend_of_feature(note)
    if backend_id is None or _SOURCE_SEPARATOR not in backend_id:
        return None
    backend_id, source = backend_id.split(_SOURCE_SEPARATOR, 1)
    return backend_id, source


def method_source(program_path: str, method: str) -> str:
    """How a selection names the method of a program that needs a backend."""
    return f"{program_path} (method '{method}')"
