"""docs/getting-started.md's blocks, run as written: the driver's, CMake's and Bazel's
(`<!-- getting-started: NAME -->` before a ```sh block), with etsb installed
from its wheel into a fresh virtual environment (the `installed` fixture:
what the install block does, offline) and that environment first on PATH,
in a folder outside the checkout; each binary's output matches torch."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

from conftest import MODELS_DIR, REPO
from helpers import assert_outputs_match, method_meta

pytestmark = pytest.mark.build

GUIDE = REPO / "docs" / "getting-started.md"


def blocks() -> dict[str, str]:
    """The guide's marked shell blocks, by name."""
    found = re.findall(r"<!-- getting-started: (\w+) -->\n```sh\n(.*?)\n```", GUIDE.read_text(), re.DOTALL)
    return dict(found)


def test_the_guide_marks_its_install_driver_and_cmake_blocks():
    assert set(blocks()) == {"install", "driver", "cmake", "bazel"}


@pytest.mark.parametrize("name, outputs", [("driver", "app/out"), ("cmake", "cmake-out"),
                                           ("bazel", "bazel-app/out")])
def test_a_guide_block_runs_as_written(installed, name, outputs, tmp_path):
    inputs = ",".join(str(MODELS_DIR / "mlp" / i["file"]) for i in method_meta("mlp")["inputs"])
    env = {**os.environ, "PATH": f"{installed.venv / 'bin'}:{os.environ['PATH']}",
           "XDG_CACHE_HOME": str(installed.cache), "MODEL": str(MODELS_DIR / "mlp" / "mlp.pte"), "INPUTS": inputs}
    env.pop("ETSB_STARLARK", None)
    if name == "bazel":
        # Bazel's output base under the test's folder (its default is in ~/.cache), and a small server heap.
        env["HOME"] = str(tmp_path / "home")
        env["JAVA_TOOL_OPTIONS"] = "-Xmx1g"
    run = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks()[name]], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    expected = [MODELS_DIR / "mlp" / o["file"] for o in method_meta("mlp")["outputs"]]
    assert_outputs_match(expected, tmp_path / outputs, f"getting-started {name}")
    if name == "driver":
        assert "size of //model:bin" in run.stdout, run.stdout
