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

# The ExecuTorch source tree that tests marked `tree` build from: the snapshot
# beside the checkout, or the checkout ETSB_EXECUTORCH_TREE names.
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE") or REPO.parent / "shared" / "third_party" / "executorch")
NO_TREE = (f"no ExecuTorch source tree at {TREE} (its kernels/portable/functions.yaml is missing): "
           "set ETSB_EXECUTORCH_TREE to an ExecuTorch checkout")


def have_tree() -> bool:
    """Whether :data:`TREE` holds an ExecuTorch source tree."""
    return (TREE / "kernels" / "portable" / "functions.yaml").is_file()


# What the quick tier must never run: a test that does is missing its `build` mark.
TOOLCHAIN = ("g++", "gcc", "c++", "cc", "clang", "clang++", "cmake", "ninja", "bazel", "go")
QUICK_TIER_GUARD = pytest.StashKey[Path]()


def pytest_configure(config):
    """In the quick tier (``-m "not build"``), each toolchain command on PATH is
    one that fails naming itself, so that a test that builds without its
    `build` mark fails instead of slowing the tier down unnoticed."""
    if config.option.markexpr.replace(" ", "") != "notbuild":
        return
    import tempfile

    guard = Path(tempfile.mkdtemp(prefix="etsb-quick-tier-"))
    for tool in TOOLCHAIN:
        shim = guard / tool
        shim.write_text(f"#!/bin/sh\necho \"the quick tier ran '{tool}': mark this test @pytest.mark.build\" >&2\n"
                        "exit 97\n")
        shim.chmod(0o755)
    os.environ["PATH"] = f"{guard}{os.pathsep}{os.environ['PATH']}"
    config.stash[QUICK_TIER_GUARD] = guard


def pytest_unconfigure(config):
    """The quick tier's guard folder goes when the session ends."""
    guard = config.stash.get(QUICK_TIER_GUARD, None)
    if guard is not None:
        import shutil

        shutil.rmtree(guard, ignore_errors=True)


# Lines a test's fixture has to show after the run (figures, side by side): printed in the summary.
SUMMARY_LINES: list[str] = []


def pytest_terminal_summary(terminalreporter):
    """Print what tests left in :data:`SUMMARY_LINES`."""
    for line in SUMMARY_LINES:
        terminalreporter.write_line(line)


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
