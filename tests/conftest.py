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
