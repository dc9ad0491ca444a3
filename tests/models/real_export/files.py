"""The files of the real corpora: ``.npy`` bytes, atomic writes, manifest
entries and the tolerance recorded for delegated programs."""

from __future__ import annotations

import hashlib
import io
import math
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from real_export.checking import METHOD

# The tolerance recorded for delegated programs:
# max(FACTOR * measured diff, RTOL * max |y|, FLOOR).
DELEGATED_TOLERANCE_FACTOR = 10.0
DELEGATED_TOLERANCE_RTOL = 1e-4
DELEGATED_TOLERANCE_FLOOR = 1e-5


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def npy_bytes(tensor: torch.Tensor) -> bytes:
    """The ``.npy`` encoding of a tensor."""
    buffer = io.BytesIO()
    np.save(buffer, tensor.numpy(), allow_pickle=False)
    return buffer.getvalue()


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename.

    A file already holding exactly ``data`` is left alone (mtime included).
    """
    if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def tensor_entries(kind: str, tensors: Sequence[torch.Tensor], files: dict[str, bytes]) -> list[dict]:
    """Manifest entries of the method's inputs or outputs (``kind``); their
    ``.npy`` bytes are added to ``files`` by file name."""
    entries = []
    for i, tensor in enumerate(tensors):
        file_name = f"{METHOD}.{kind}_{i}.npy"
        data = npy_bytes(tensor)
        files[file_name] = data
        entries.append({"file": file_name, "dtype": str(tensor.numpy().dtype),
                        "shape": list(tensor.shape), "sha256": sha256(data)})
    return entries


def significant(value: float) -> float:
    """A float rounded to 3 significant digits, for a readable manifest."""
    return float(f"{value:.3g}")


def significant_up(value: float) -> float:
    """A positive float rounded up to 3 significant digits."""
    exponent = math.floor(math.log10(value)) - 2
    return float(f"{math.ceil(value / 10.0**exponent)}e{exponent}")


def delegated_tolerance(runtime_diff: float, max_abs_output: float) -> float:
    """The absolute tolerance recorded for a delegated program (export_real.py's docstring)."""
    return significant_up(max(DELEGATED_TOLERANCE_FACTOR * runtime_diff,
                               DELEGATED_TOLERANCE_RTOL * max_abs_output,
                               DELEGATED_TOLERANCE_FLOOR))
