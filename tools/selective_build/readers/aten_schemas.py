"""ATen operator schemas as data: the table ``op:`` entries of a kernel yaml
resolve against, and that model reading consults for ScalarType arguments.

Schemas are kept as text and parsed on first lookup, so that loading the table
costs a line scan, not 1500 parses.
"""

from __future__ import annotations

import os
from types import MappingProxyType

from selective_build.model.errors import Location, UserError, did_you_mean
from selective_build.model.memo import memoized
from selective_build.model.records import record
from selective_build.model.schema import FunctionSchema
from selective_build.model.schema_parser import parse_schema

TYPE_CHECKING = False  # typing's own flag, without importing typing (nor collections: start-up time)
if TYPE_CHECKING:
    from collections.abc import Mapping

# Package data (selective_build/data), found beside the package wherever it is installed.
DEFAULT_ATEN_YAML = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                                 "aten_ops.yaml")
DEFAULT_ATEN_SOURCE = "etsb's aten_ops.yaml"


@record
class AtenSchemas:
    """ATen schemas by unqualified operator name (``add.out``), parsed on demand."""

    source: str
    texts: Mapping[str, str]

    def lookup(self, name: str) -> FunctionSchema | None:
        """The FunctionSchema of ``name`` (``add.out``), or None."""
        text = self.texts.get(name)
        return None if text is None else _parse_cached[text]

    def suggest(self, name: str) -> str:
        """`` (did you mean 'x'?)`` for the nearest known name, or ``""``."""
        return did_you_mean(name, self.texts)


@memoized
def _parse_cached(text: str) -> FunctionSchema:
    return parse_schema(text)


def parse_aten_schemas(text: str, path: str) -> AtenSchemas:
    """Read a list of ``- func: <schema>`` entries: etsb's ``aten_ops.yaml``
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
    """Name -> schema text of each ``func:`` of a full ``native_functions.yaml``
    (entries are mappings with more keys than etsb reads)."""
    from selective_build.readers.node_reader import NodeReader
    from selective_build.readers.yaml_nodes import MAPPING, SEQUENCE, str_of

    class Reader(NodeReader):
        def read(self, root) -> dict[str, str]:
            if root is None or root.id != SEQUENCE:
                self.problem(root if root is not None else Location(path),
                             "expected a list of '- func: <schema>' entries")
                return {}
            texts = {}
            for entry in root.value:
                pairs = (self.mapping(entry, "an entry") or ()) if entry.id == MAPPING else ()
                func = next((value for key, value in pairs if key.value == "func"), None)
                schema_text = str_of(func) if func is not None else None
                if schema_text is not None:
                    texts[schema_text.partition("(")[0].strip()] = schema_text
            return texts

    return Reader(path).read_text(text)


def load_default_aten_schemas() -> AtenSchemas:
    """etsb's own ATen schema data, ``selective_build/data/aten_ops.yaml``."""
    from selective_build.readers.files import read_text

    return parse_aten_schemas(read_text(DEFAULT_ATEN_YAML, "package data file"), DEFAULT_ATEN_SOURCE)
