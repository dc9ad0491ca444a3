"""Shared fixtures: repository paths, the corpus manifest, the two environments."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
MODELS_DIR = REPO / "tests" / "models"
VENV = REPO / ".venv"
EXPORT_VENV = REPO / ".venv-export"

# The ExecuTorch source tree that tests marked `tree` build from: the snapshot
# beside the checkout, or the checkout ETSB_EXECUTORCH_TREE names.
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE") or REPO.parent / "shared" / "third_party" / "executorch")
NO_TREE = (f"no ExecuTorch source tree at {TREE} (its kernels/portable/functions.yaml is missing): "
           "set ETSB_EXECUTORCH_TREE to an ExecuTorch checkout")


def have_tree() -> bool:
    """Whether :data:`TREE` holds an ExecuTorch source tree."""
    return (TREE / "kernels" / "portable" / "functions.yaml").is_file()


def pytest_runtest_setup(item):
    """A `tree` test without a tree is skipped with the one reason, or fails
    when ETSB_REQUIRE_TREE=1 (CI has the tree: nothing may be skipped there)."""
    if item.get_closest_marker("tree") and not have_tree():
        if os.environ.get("ETSB_REQUIRE_TREE") == "1":
            pytest.fail(f"{NO_TREE}; ETSB_REQUIRE_TREE=1 makes a missing tree a failure", pytrace=False)
        pytest.skip(NO_TREE)

# Property-based tests are derandomised in CI so that a run is reproducible.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def load_manifest() -> dict:
    """The corpus manifest written by tests/models/export.py."""
    return json.loads((MODELS_DIR / "manifest.json").read_text())


@pytest.fixture(scope="session")
def manifest() -> dict:
    """The corpus manifest, once per session."""
    return load_manifest()


@pytest.fixture(scope="session")
def export_python() -> Path:
    """The export environment's Python (torch + full ExecuTorch); scripts/test.sh creates it."""
    python = EXPORT_VENV / "bin" / "python"
    assert python.exists(), "no .venv-export: run scripts/setup.sh --export-env (scripts/test.sh does)"
    return python


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """etsb's wheel installed into a fresh virtual environment (helpers.install_etsb_wheel)."""
    from helpers import install_etsb_wheel

    return install_etsb_wheel(tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="session")
def driver_examples():
    """The MLP and vendor examples built by etsb's driver (in this checkout's etsb-out)."""
    from helpers import Driver

    return Driver()


@pytest.fixture(scope="session")
def bazel_examples(tmp_path_factory):
    """The MLP and vendor examples built by Bazel on a private output base (server stopped at the end)."""
    from helpers import BazelFrontEnd

    built = BazelFrontEnd(tmp_path_factory.mktemp("bazel") / "output_base")
    yield built
    built.bazel.close()


@pytest.fixture(scope="session")
def cmake_examples(tmp_path_factory):
    """examples/cmake configured and built with Ninja in a temporary directory."""
    from helpers import CMakeFrontEnd

    return CMakeFrontEnd(tmp_path_factory.mktemp("cmake") / "build")
