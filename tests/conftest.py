"""Shared fixtures: repository paths, the corpus manifest, the two environments."""

from __future__ import annotations

import json
import os
import shutil
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
# Its portable kernels' yaml (tests/test_executorch_tree.py, tests/test_kernel_sources.py).
TREE_PORTABLE_YAML = TREE / "kernels" / "portable" / "functions.yaml"
NO_TREE = (f"no ExecuTorch source tree at {TREE} (its kernels/portable/functions.yaml is missing): "
           "set ETSB_EXECUTORCH_TREE to an ExecuTorch checkout")


def have_tree() -> bool:
    """Whether :data:`TREE` holds an ExecuTorch source tree."""
    return TREE_PORTABLE_YAML.is_file()


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


# Seconds of tests (setup, call and teardown) per process group and per worker,
# gathered by the main process of a pytest-xdist run: which group sets the
# suite's wall time (the critical path) and how busy each process was.
GROUP_SECONDS: dict[str, float] = {}
GROUP_WORKER: dict[str, str] = {}


def pytest_runtest_logreport(report):
    """Adds a report's duration to its group (in the main process of a pytest-xdist run)."""
    worker = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", None)
    if worker is not None:
        group = process_group(report.nodeid)
        GROUP_SECONDS[group] = GROUP_SECONDS.get(group, 0.0) + report.duration
        GROUP_WORKER[group] = worker


def group_time_lines(seconds: dict[str, float], workers: dict[str, str], shown: int = 12) -> list[str]:
    """The table of :data:`GROUP_SECONDS`: each worker's total, then the longest groups."""
    if not seconds:
        return []
    totals: dict[str, float] = {}
    for group, spent in seconds.items():
        totals[workers[group]] = totals.get(workers[group], 0.0) + spent
    lines = ["time per process (tests' setup, call and teardown): "
             + ", ".join(f"{worker} {totals[worker]:.0f} s" for worker in sorted(totals))]
    longest = sorted(seconds, key=lambda group: (-seconds[group], group))[:shown]
    lines += [f"  {seconds[group]:7.0f} s  {workers[group]}  {group}" for group in longest]
    return lines


def pytest_terminal_summary(terminalreporter):
    """Print what tests left in :data:`SUMMARY_LINES`, and the time per process group."""
    for line in SUMMARY_LINES + group_time_lines(GROUP_SECONDS, GROUP_WORKER):
        terminalreporter.write_line(line)


# Test files that build in one shared place run one after the other, in one
# process, when the suite runs on several (pytest -n, pytest-xdist): the ones
# that build in this checkout's workspace (each would wait for the other's
# workspace lock), and those that use the same session fixture (bazel_examples,
# cmake_examples, installed: a session fixture is made once per process, so two
# processes would build it twice). Every other file is a group of its own: so
# are the files that run Bazel on an output base of their own (test_bazel7,
# test_bazel_consumer, test_remote_execution; no Bazel command writes
# bazel-* links into the checkout, helpers.BAZEL_BUILD), beside the shared one.
# A Bazel build of the checkout's own targets belongs on the shared one (in
# this group): a fresh output base builds the runner and CMSIS-NN again.
GROUPS = {
    "checkout workspace": ("test_examples", "test_op_corpus", "test_real_models", "test_executorch_tree",
                           "test_kernel_suite", "test_delegated", "test_kernel_checks", "test_no_tree", "test_llm"),
    # bazel_examples (and cmake_examples, which test_front_ends holds beside it).
    "bazel in the checkout": ("test_bazel", "test_front_ends", "test_bazel_deploy", "test_bazel_quantized",
                              "test_cmake"),
    "etsb's wheel": ("test_getting_started", "test_package"),  # the session fixture `installed`
}
# The groups that take longest, longest first (as CI's slowest durations show
# them, on 2 cores): each process takes the next group of this list when it is
# done with one, so the long builds start first and the short files fill in at
# the end. The groups not listed come after them, in file order.
LONGEST_FIRST = ("checkout workspace", "bazel in the checkout", "test_bazel7", "test_quantized", "test_aarch64",
                 "test_fuzz", "test_cortex_m", "test_cortex_m_kernels", "test_cmake_deploy", "test_quantized_suite", "test_tiers",
                 "test_bazel_consumer", "etsb's wheel", "test_static_runtime", "test_cmake_seeds",
                 "test_build_driver", "test_deploy", "test_reliability")
_GROUP_OF = {module: group for group, modules in GROUPS.items() for module in modules}


def process_group(nodeid: str) -> str:
    """The group a test runs in: its file's group, or its file."""
    module = Path(nodeid.split("::")[0]).stem
    return _GROUP_OF.get(module, module)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """pytest-xdist's scheduler by scope, each group one scope (whole groups go to one process),
    handing the groups out in :data:`LONGEST_FIRST` order (the order of the collection, sorted by
    :func:`pytest_collection_modifyitems`). pytest-xdist would otherwise order them by their number
    of tests, which put a few long builds (test_fuzz: 6 tests, minutes) last, alone on one process."""
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return process_group(nodeid)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """In a pytest-xdist worker (whose order the scheduler follows), the longest groups first."""
    if hasattr(config, "workerinput"):
        rank = {group: index for index, group in enumerate(LONGEST_FIRST)}
        items.sort(key=lambda item: rank.get(process_group(item.nodeid), len(rank)))


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """A worker's summary lines, printed by the main process at the end."""
    SUMMARY_LINES.extend(getattr(node, "workeroutput", {}).get("summary_lines", ()))


def pytest_sessionfinish(session):
    """A worker hands its summary lines to the main process."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["summary_lines"] = list(SUMMARY_LINES)


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


@pytest.fixture(scope="module")
def module_folders(request, tmp_path_factory):
    """Makes folders for a module's shared builds (``module_folders("fuzz")``),
    removed when the module ends with none of its tests failed, as
    ``tmp_path_retention_policy`` (pyproject.toml) removes a passing test's
    own: the largest module workspaces hold ~2 GB of a full run."""
    failed_before = request.session.testsfailed
    made: list[Path] = []

    def make(name: str) -> Path:
        made.append(tmp_path_factory.mktemp(name))
        return made[-1]

    yield make
    if request.session.testsfailed == failed_before:
        for folder in made:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def installed(tmp_path_factory):
    """etsb's wheel installed into a fresh virtual environment (helpers.install_etsb_wheel)."""
    from helpers import install_etsb_wheel

    return install_etsb_wheel(tmp_path_factory.mktemp("package"))


@pytest.fixture(scope="session")
def driver_examples():
    """The MLP and vendor examples built by etsb's driver (in this checkout's etsb-out)."""
    from front_end_helpers import Driver

    return Driver()


@pytest.fixture(scope="session")
def driver_mlp_generated(tmp_path_factory) -> Path:
    """The files etsb's driver generates for //examples/mlp:bin (helpers.generate_mlp_files), once a session."""
    from helpers import generate_mlp_files

    return generate_mlp_files(tmp_path_factory.mktemp("driver_mlp") / "ws")


@pytest.fixture(scope="session")
def bazel_examples(tmp_path_factory):
    """The MLP and vendor examples built by Bazel on a private output base (server stopped at the end)."""
    from front_end_helpers import BazelFrontEnd

    built = BazelFrontEnd(tmp_path_factory.mktemp("bazel") / "output_base")
    yield built
    built.bazel.close()


@pytest.fixture(scope="session")
def cmake_examples(tmp_path_factory):
    """examples/cmake configured and built with Ninja in a temporary directory."""
    from front_end_helpers import CMakeFrontEnd

    return CMakeFrontEnd(tmp_path_factory.mktemp("cmake") / "build")
