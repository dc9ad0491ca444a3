"""Helpers shared by the tests: running etsb as a user does, workspaces of
their own, compiling against the ExecuTorch wheel, and running a built model
binary on a corpus model's inputs to compare its outputs with torch's (every
test that builds binaries, whether through the driver, Bazel or CMake, holds
them to the same standard)."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import executorch
import numpy as np

from conftest import MODELS_DIR, REPO, VENV, load_manifest

ETSB = VENV / "bin" / "etsb"
# The ExecuTorch runtime wheel: headers in include/, libexecutorch.so in lib/.
ET = Path(executorch.__path__[0])
ET_INCLUDES = [f"-I{ET / 'include'}", f"-I{ET / 'include/executorch/runtime/core/portable_type/c10'}",
               "-DC10_USING_CUSTOM_GENERATED_MACROS"]
ET_LINK = [f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}"]
RUNNER = REPO / "tools" / "runner" / "runner.cpp"
TEST_KERNELS = REPO / "tests" / "data" / "kernels"
# What a workspace of its own needs from this checkout to build with etsb's rules.
WORKSPACE_PARTS = ("rules", "runtime", "tools")


def cxx(optimisation: str = "-O1") -> list[str]:
    """g++ with C++17 and the wheel's headers, at ``optimisation``."""
    return ["g++", "-std=c++17", optimisation, *ET_INCLUDES]


def compile_objects(jobs: list[tuple[list[str], Path, Path]], optimisation: str = "-O1") -> None:
    """Compile (extra flags, source, object) jobs two at a time; fail with the compiler's message."""
    def one(job):
        flags, source, obj = job
        return subprocess.run([*cxx(optimisation), *flags, "-c", str(source), "-o", str(obj)],
                              capture_output=True, text=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for (_, source, _), result in zip(jobs, pool.map(one, jobs)):
            assert result.returncode == 0, f"{source}:\n{result.stderr}"


def etsb(*argv: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """Run the installed etsb command line the way a user does."""
    return subprocess.run([str(ETSB), *argv], cwd=cwd, capture_output=True, text=True)


def new_workspace(root: Path, *extra_parts: str) -> Path:
    """A workspace at ``root`` (created) with etsb's rules, tools and runtime
    copied in, plus ``extra_parts`` of this checkout (e.g. ``kernels``)."""
    root.mkdir(parents=True)
    (root / "MODULE.bazel").write_text("")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "starlark")
    for part in (*WORKSPACE_PARTS, *extra_parts):
        shutil.copytree(REPO / part, root / part, ignore=ignore)
    return root


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
