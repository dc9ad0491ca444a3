"""An array as a ``.npy`` file (numpy's format, version 1.0, written without
numpy): the magic string, the version, a dict-literal header padded so that
the data starts on a 64-byte boundary, then the data in C order."""

from __future__ import annotations

import struct
from collections.abc import Sequence

from selective_build.model.dtypes import NPY_DESCRS, NPY_MAGIC, SCALAR_TYPE_NAMES

_DESCR_OF = {name: descr for descr, name in NPY_DESCRS.items()}
_ALIGNMENT = 64


def can_hold(dtype: int) -> bool:
    """Whether a ``.npy`` file can hold elements of ScalarType ``dtype`` (numpy has no BFloat16, for one)."""
    return SCALAR_TYPE_NAMES.get(dtype) in _DESCR_OF


def npy_bytes(dtype: int, shape: Sequence[int], data: bytes) -> bytes:
    """The ``.npy`` file of an array of ScalarType ``dtype`` and ``shape`` whose
    C-order bytes are ``data`` (``dtype`` must be one :func:`can_hold`)."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
        _DESCR_OF[SCALAR_TYPE_NAMES[dtype]], tuple(shape))
    unpadded = len(NPY_MAGIC) + 2 + 2 + len(header) + 1
    header += " " * (-unpadded % _ALIGNMENT) + "\n"
    return NPY_MAGIC + b"\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1") + data
