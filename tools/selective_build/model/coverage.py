"""Which kernel libraries provide which operators: the catalog etsb consults
when a build needs an operator that none of its kernel yamls has.

Names only (``namespace::name.overload`` text): etsb's own libraries, read
from their kernel yamls, and ExecuTorch's, from the package data
``executorch_ops.yaml`` (``scripts/gen_executorch_ops.py``).
"""

from __future__ import annotations

from selective_build.model.names import OperatorName
from selective_build.model.records import record

ETSB = "etsb"
EXECUTORCH = "executorch"


@record
class KernelLibrary:
    """A kernel library: whose (:data:`ETSB` or :data:`EXECUTORCH`), its
    directory in that project (``kernels/quantized``), and its operators."""

    owner: str
    path: str
    operators: frozenset

    def provides(self, name: OperatorName) -> bool:
        """Whether the library has ``name``, or for a name without overload one of its overloads."""
        text = str(name)
        if text in self.operators:
            return True
        return not name.has_overload and any(op.startswith(text + ".") for op in self.operators)


@record
class KernelCatalog:
    """Every kernel library etsb knows, etsb's first, the ExecuTorch version
    the tree's libraries were listed from, and etsb's libraries whose yaml was
    not at hand (a build sandbox that has only the tool's own files)."""

    executorch_version: str
    libraries: tuple = ()
    unread: tuple = ()

    def providers(self, name: OperatorName, owner: str) -> tuple:
        """The libraries of ``owner`` that provide ``name``, in catalog order."""
        return tuple(library for library in self.libraries if library.owner == owner and library.provides(name))
