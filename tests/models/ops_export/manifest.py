"""The files of the corpus: ``cases.npz`` bytes and the manifest's entries."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from typing import Any

import numpy as np
import torch

from ops_cases.vocabulary import scalar_type_name
from ops_export.compare import tolerance
from ops_export.methods import Method
from ops_export.runtime import RuntimeCheck

MANIFEST_VERSION = 1
# Fixed zip member timestamps: a re-export writes byte-identical files.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def to_numpy(tensor: torch.Tensor) -> np.ndarray:
    """A tensor as numpy, bfloat16 as its uint16 bit patterns."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.view(torch.int16).numpy().view(np.uint16)
    return tensor.numpy()


def npy_bytes(array: np.ndarray) -> bytes:
    """The ``.npy`` encoding of an array."""
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """A deflated ``.npz`` with fixed timestamps (reproducible bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for key, array in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, npy_bytes(array))
    return buffer.getvalue()


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def tensor_entry(tensor: torch.Tensor, with_tolerance: bool) -> dict:
    """Manifest description of one input or output tensor."""
    entry = {
        "dtype": "bfloat16" if tensor.dtype == torch.bfloat16 else str(to_numpy(tensor).dtype),
        "scalar_type": scalar_type_name(tensor.dtype),
        "shape": list(tensor.shape),
    }
    if with_tolerance:
        entry["rtol"], entry["atol"] = tolerance(tensor.dtype)
    return entry


def jsonable(value: Any) -> Any:
    """A case parameter as JSON (dtypes by ScalarType name)."""
    if isinstance(value, torch.dtype):
        return scalar_type_name(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def method_entry(method: Method, described: dict, check: RuntimeCheck) -> dict:
    """Manifest description of one method."""
    outputs = [tensor_entry(t, True) for t in method.outputs]
    loosest = max(((o["rtol"], o["atol"]) for o in outputs), default=(0.0, 0.0))
    return {
        "dtype": scalar_type_name(method.dtype or method.outputs[0].dtype),
        "case": method.case.name,
        "description": method.case.description,
        "params": {k: jsonable(v) for k, v in sorted(method.params.items())},
        "inputs": [tensor_entry(t, False) for t in method.inputs],
        "outputs": outputs,
        "tolerance": "exact" if loosest == (0.0, 0.0) else {"rtol": loosest[0], "atol": loosest[1]},
        "operators": described["operators"],
        "kernel_keys": described["kernel_keys"],
        "max_abs_diff_runtime": (float(f"{check.diffs[method.name]:.3g}") if method.name in check.diffs
                                 else None),
        "executorch_matches": None if method.name in check.unrun else method.name not in check.mismatches,
    }


def manifest_text(manifest: dict) -> str:
    """The manifest as indented JSON with each method on one line (small,
    and a changed case is a one-line diff)."""
    methods: list[dict] = []
    shallow = {**manifest, "operators": {}}
    for name, entry in manifest["operators"].items():
        tokens = {}
        for method, description in entry["methods"].items():
            tokens[method] = f"@@method {len(methods)}@@"
            methods.append(description)
        shallow["operators"][name] = {**entry, "methods": tokens}
    text = json.dumps(shallow, indent=1, sort_keys=True)
    return re.sub(r'"@@method (\d+)@@"', lambda m: json.dumps(methods[int(m.group(1))], sort_keys=True),
                  text) + "\n"
