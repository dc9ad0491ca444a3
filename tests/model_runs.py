"""Running a built model binary on a corpus model's inputs and comparing its
outputs with torch's: shared by every test that builds binaries (the driver,
Bazel, CMake), so that all of them hold binaries to the same standard."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from conftest import MODELS_DIR, load_manifest


def method_meta(model: str, method: str = "forward") -> dict:
    """The manifest's record of one method: its input and output files."""
    return load_manifest()["models"][model]["methods"][method]


def run_model(binary: Path, model: str, out: Path, *extra: str, method: str = "forward",
              model_dir: Path | None = None) -> subprocess.CompletedProcess:
    """``binary`` on the corpus inputs of ``model.method``, writing its outputs to ``out``."""
    directory = model_dir or MODELS_DIR / model
    inputs = ",".join(str(directory / i["file"]) for i in method_meta(model, method)["inputs"])
    return subprocess.run([str(binary), "--model", str(directory / f"{model}.pte"), "--method", method,
                           "--inputs", inputs, "--output-dir", str(out), *extra], capture_output=True, text=True)


def assert_outputs_match(expected_files: list[Path], out: Path, label: str) -> None:
    """``out/output_<i>.npy`` equal torch's ``expected_files``: within rtol 1e-5,
    atol 1e-6 for floats, exactly otherwise, with the same dtype and shape."""
    for index, path in enumerate(expected_files):
        expected = np.load(path)
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (label, index)
        if np.issubdtype(expected.dtype, np.floating):
            np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=f"{label}[{index}]")
        else:
            np.testing.assert_array_equal(got, expected, err_msg=f"{label}[{index}]")


def assert_matches_torch(model: str, out: Path, method: str = "forward") -> None:
    """The outputs of ``run_model`` equal torch's for ``model.method``."""
    files = [MODELS_DIR / model / o["file"] for o in method_meta(model, method)["outputs"]]
    assert_outputs_match(files, out, f"{model}.{method}")


def stripped_size(path: Path, tmp_path: Path) -> int:
    """The size of ``path`` once stripped (a copy in ``tmp_path`` is stripped)."""
    stripped = tmp_path / (path.name + ".stripped")
    subprocess.run(["strip", "-o", str(stripped), str(path)], check=True)
    return stripped.stat().st_size
