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
# The operators of ExecuTorch 1.5.1's kernels/portable/functions.yaml (one kernel each) and of
# its custom_ops.yaml: the tests read that release's yaml (third_party/executorch, the wheel), so
# another release changes these counts here only.
PORTABLE_OPERATORS = 209
PORTABLE_CUSTOM_OPERATORS = 2

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
