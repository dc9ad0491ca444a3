"""A ``.npy`` array's dtype, shape and bytes, for embedding a model's inputs
(numpy's format, read without numpy: a magic string, a version, a header
that is a Python dict literal, then the data in C order)."""

from __future__ import annotations

import ast
import struct

from selective_build.model.dtypes import NPY_DESCRS, NPY_MAGIC, SCALAR_TYPES
from selective_build.model.errors import Location, UserError
from selective_build.model.records import record
from selective_build.readers.files import read_bytes



@record
class Array:
    """An array of a ``.npy`` file: its dtype (ScalarType number), shape and bytes in C order."""

    dtype: int
    shape: tuple[int, ...]
    data: bytes


def read_npy(path: str) -> Array:
    """The array in the ``.npy`` file at ``path``; anything else is a UserError naming it."""
    blob = read_bytes(path, ".npy file")

    def bad(what: str) -> UserError:
        return UserError(f"not a .npy array etsb can read: {what}", Location(path))

    if len(blob) < 10 or not blob.startswith(NPY_MAGIC):
        raise bad("it does not start with numpy's magic string")
    major = blob[6]
    if major not in (1, 2, 3):
        raise bad(f"format version {major} is not one of 1, 2, 3")
    header_bytes, start = (struct.unpack_from("<H", blob, 8)[0], 10) if major == 1 else \
        (struct.unpack_from("<I", blob, 8)[0] if len(blob) >= 12 else 1 << 40, 12)
    if start + header_bytes > len(blob):
        raise bad("the header runs past the end of the file")
    try:
        header = ast.literal_eval(blob[start:start + header_bytes].decode("latin-1"))
    except (ValueError, SyntaxError):
        raise bad("the header is not a dict literal") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise bad("the header is not numpy's {'descr', 'fortran_order', 'shape'}")
    descr, shape = header["descr"], header["shape"]
    if descr not in NPY_DESCRS:
        raise bad(f"dtype {descr!r} is not one of {', '.join(NPY_DESCRS)}")
    if header["fortran_order"] is not False:
        raise bad("it is in Fortran order; save it in C order")
    if not isinstance(shape, tuple) or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise bad(f"shape {shape!r} is not a tuple of sizes")
    count = 1
    for n in shape:
        count *= n
    itemsize = int(descr[2:])  # numpy's dtype strings end in the element's bytes
    data = blob[start + header_bytes:]
    if len(data) != count * itemsize:
        raise bad(f"shape {list(shape)} of {descr} takes {count * itemsize} bytes; the file has {len(data)}")
    return Array(SCALAR_TYPES[NPY_DESCRS[descr]], shape, data)
