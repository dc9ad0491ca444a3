"""ATen operator schemas as data: the table ``op:`` entries of a kernel yaml
resolve against, and that model reading consults for ScalarType arguments.

Schemas are kept as text and parsed on first lookup, so that loading the table
costs a line scan, not 1500 parses.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from selective_build.errors import Location, UserError, did_you_mean

DEFAULT_ATEN_YAML = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "yaml", "aten_ops.yaml")


@dataclass(frozen=True)
class AtenSchemas:
    """ATen schemas by unqualified operator name (``add.out``), parsed on demand."""

    source: str
    texts: Mapping[str, str]

    def lookup(self, name: str):
        """The FunctionSchema of ``name`` (``add.out``), or None."""
        text = self.texts.get(name)
        return None if text is None else _parse_cached(text)

    def suggest(self, name: str) -> str:
        """`` (did you mean 'x'?)`` for the nearest known name, or ``""``."""
        return did_you_mean(name, self.texts)


@functools.lru_cache(maxsize=None)
def _parse_cached(text: str):
    from selective_build.schema import parse_schema

    return parse_schema(text)


def parse_aten_schemas(text: str, path: str) -> AtenSchemas:
    """Read a list of ``- func: <schema>`` entries: etsb's ``yaml/aten_ops.yaml``
    (one entry per line, read by a line scan) or a full ``native_functions.yaml``
    (read with PyYAML)."""
    texts: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("- func: ") and " #" not in line and line[8:9] not in "'\"":
            schema_text = line[8:].rstrip()
            texts[schema_text.partition("(")[0]] = schema_text
        elif line.strip() and not line.startswith("#"):
            texts = _texts_from_yaml(text, path)
            break
    if not texts:
        raise UserError("no '- func: <schema>' entries", Location(path))
    return AtenSchemas(path, MappingProxyType(texts))


def _texts_from_yaml(text: str, path: str) -> dict[str, str]:
    import yaml

    from selective_build.yaml_nodes import yaml_error

    try:
        data = yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError as error:
        raise yaml_error(error, path) from None
    if not isinstance(data, list):
        raise UserError("expected a list of '- func: <schema>' entries", Location(path))
    return {entry["func"].partition("(")[0].strip(): entry["func"] for entry in data
            if isinstance(entry, dict) and isinstance(entry.get("func"), str)}


def load_default_aten_schemas() -> AtenSchemas:
    """etsb's own ATen schema data, ``yaml/aten_ops.yaml``."""
    with open(DEFAULT_ATEN_YAML, encoding="utf-8") as handle:
        return parse_aten_schemas(handle.read(), "etsb's yaml/aten_ops.yaml")
