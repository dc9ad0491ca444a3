"""The test tiers and the tree switch, checked by running pytest on this suite:
the quick tier selects no test that builds, and a test that needs an ExecuTorch
tree is skipped with its reason where there is none, or fails under
ETSB_REQUIRE_TREE=1 (as CI sets it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from conftest import REPO

TREE_TEST = "tests/test_executorch_tree.py::test_every_portable_yaml_entry_registers_in_one_binary"


def pytest_run(*argv: str, **environment: str) -> subprocess.CompletedProcess:
    """pytest in a child process, on this checkout, with ``environment`` added."""
    env = {name: value for name, value in os.environ.items() if name != "ETSB_REQUIRE_TREE"}
    env.update(environment)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *argv], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def test_without_a_tree_its_tests_are_skipped_with_the_reason(tmp_path):
    result = pytest_run("-m", "tree", "-rs", "-q", ETSB_EXECUTORCH_TREE=str(tmp_path / "none"))
    assert result.returncode == 0, result.stdout[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " skipped" in summary and "passed" not in summary and "failed" not in summary, summary
    assert f"no ExecuTorch source tree at {tmp_path / 'none'}" in result.stdout
    assert "set ETSB_EXECUTORCH_TREE to an ExecuTorch checkout" in result.stdout


def test_a_required_tree_that_is_missing_fails(tmp_path):
    result = pytest_run(TREE_TEST, "-q", ETSB_EXECUTORCH_TREE=str(tmp_path / "none"), ETSB_REQUIRE_TREE="1")
    assert result.returncode == 1, result.stdout[-3000:]
    assert "ETSB_REQUIRE_TREE=1 makes a missing tree a failure" in result.stdout
    assert "1 error" in result.stdout.strip().splitlines()[-1]  # failed in its set-up


def test_the_quick_tier_selects_no_test_that_builds():
    quick = pytest_run("-m", "not build", "--collect-only", "-q")
    everything = pytest_run("--collect-only", "-q")
    assert quick.returncode == everything.returncode == 0, quick.stdout[-2000:] + everything.stdout[-2000:]
    chosen = {line for line in quick.stdout.splitlines() if "::" in line}
    every = {line for line in everything.stdout.splitlines() if "::" in line}
    builds = every - chosen
    # Each module that compiles as a whole stays out of the quick tier, and the
    # pure modules are in it.
    for module in ("test_cmake.py", "test_bazel.py", "test_op_corpus.py", "test_executorch_tree.py", "test_package.py"):
        assert any(line.startswith(f"tests/{module}::") for line in builds), module
        assert not any(line.startswith(f"tests/{module}::") for line in chosen), module
    for module in ("test_merge.py", "test_selection.py", "test_pte.py", "test_macros.py", "test_architecture.py"):
        assert any(line.startswith(f"tests/{module}::") for line in chosen), module
    assert 400 < len(chosen) < len(every)


def test_the_process_groups_name_test_files_that_exist():
    """tests/conftest.py's groups for pytest-xdist: a renamed file would silently leave its group."""
    from conftest import GROUPS, LONGEST_FIRST

    modules = {path.stem for path in (REPO / "tests").glob("test_*.py")}
    grouped = [module for members in GROUPS.values() for module in members]
    assert set(grouped) <= modules and len(grouped) == len(set(grouped)), set(grouped) - modules
    assert set(LONGEST_FIRST) <= modules | set(GROUPS), set(LONGEST_FIRST) - modules - set(GROUPS)


def test_the_files_of_a_session_fixture_are_one_group():
    """A session fixture is made once per process: the files that take one
    (as an argument) run in one process, or its build would be made twice."""
    from conftest import process_group

    for fixture in ("bazel_examples", "cmake_examples", "installed"):
        users = {path.stem for path in (REPO / "tests").glob("test_*.py")
                 if re.search(rf"def \w+\([^)]*\b{fixture}\b", path.read_text())}
        groups = {process_group(f"tests/{module}.py::test") for module in users}
        assert users and len(groups) == 1, (fixture, users, groups)


def test_a_bad_process_count_is_refused():
    result = subprocess.run(["bash", str(REPO / "scripts/test.sh"), "--quick"], cwd=REPO, capture_output=True,
                            text=True, env={**os.environ, "ETSB_TEST_PROCESSES": "two"}, timeout=60)
    assert result.returncode == 2 and "ETSB_TEST_PROCESSES is 'two', not a number" in result.stderr, result.stderr


def test_files_of_one_group_run_in_one_process():
    """Under pytest -n, the quick tests of two files of the checkout-workspace group share a worker."""
    # One quick test of each file is enough to see where each ran (and costs no build).
    result = pytest_run("-n", "2", "-v", "-m", "not build", "-k", "gtest_output_is_read or named_alone",
                        "tests/test_kernel_suite.py", "tests/test_no_tree.py")
    assert result.returncode == 0, result.stdout[-3000:]
    passed = [line for line in result.stdout.splitlines() if line.startswith("[gw") and " PASSED " in line]
    assert {line.split(" PASSED ")[1].split("::")[0] for line in passed} == \
        {"tests/test_kernel_suite.py", "tests/test_no_tree.py"}, result.stdout[-3000:]
    assert len({line.split("]")[0] for line in passed}) == 1, result.stdout[-3000:]


class _Process:
    """A stand-in for a pytest-xdist worker: records the tests it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent += indexes

    def shutdown(self) -> None:
        self.shutting_down = True


def test_the_longest_groups_are_handed_out_first():
    """The scheduler of tests/conftest.py gives each process the next group of
    LONGEST_FIRST when it is done, before a group with more (quick) tests."""
    import conftest

    many = [f"tests/test_macros.py::test_{index}" for index in range(50)]
    # Three tests a group: a process is sent the next group when it has two or fewer left.
    few = [f"tests/{module}.py::test_{index}" for module in ("test_fuzz", "test_aarch64", "test_examples",
                                                             "test_bazel") for index in range(3)]
    items = [SimpleNamespace(nodeid=nodeid) for nodeid in many + few]
    conftest.pytest_collection_modifyitems(SimpleNamespace(workerinput={}), items)
    collection = [item.nodeid for item in items]
    config = SimpleNamespace(option=SimpleNamespace(loadscopereorder=True),
                             getvalue=lambda name: ["2*popen"] if name == "tx" else None)
    scheduler = conftest.pytest_xdist_make_scheduler(config, None)
    first, second = _Process("gw0"), _Process("gw1")
    for process in (first, second):
        scheduler.add_node(process)
    for process in (first, second):
        scheduler.add_node_collection(process, collection)
    scheduler.schedule()

    def groups(process: _Process) -> list[str]:
        return list(dict.fromkeys(conftest.process_group(collection[index]) for index in process.sent))

    assert groups(first) == ["checkout workspace"] and groups(second) == ["bazel in the checkout"]
    for index in list(second.sent):
        scheduler.mark_test_complete(second, index)
    assert groups(second) == ["bazel in the checkout", "test_aarch64"]
    for index in second.sent[3:]:
        scheduler.mark_test_complete(second, index)
    assert groups(second) == ["bazel in the checkout", "test_aarch64", "test_fuzz"]


def test_the_time_per_group_is_summed_per_worker():
    """The main process adds each report's seconds to its file's group and prints
    each worker's total, then the groups longest first."""
    import conftest

    seconds: dict[str, float] = {}
    workers: dict[str, str] = {}
    reports = [("tests/test_examples.py::test_a", "gw0", 300.0), ("tests/test_op_corpus.py::test_b", "gw0", 50.5),
               ("tests/test_fuzz.py::test_c", "gw1", 120.0), ("tests/test_merge.py::test_d", "gw1", 1.0)]
    saved = dict(conftest.GROUP_SECONDS), dict(conftest.GROUP_WORKER)
    conftest.GROUP_SECONDS.clear()
    conftest.GROUP_WORKER.clear()
    try:
        for nodeid, worker, duration in reports:
            conftest.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=duration,
                                                              node=SimpleNamespace(gateway=SimpleNamespace(id=worker))))
        # A report of a run without workers (no node) counts nowhere.
        conftest.pytest_runtest_logreport(SimpleNamespace(nodeid="tests/test_fuzz.py::test_e", duration=9.0))
        seconds, workers = dict(conftest.GROUP_SECONDS), dict(conftest.GROUP_WORKER)
    finally:
        conftest.GROUP_SECONDS.clear()
        conftest.GROUP_WORKER.clear()
        conftest.GROUP_SECONDS.update(saved[0])
        conftest.GROUP_WORKER.update(saved[1])
    assert conftest.group_time_lines(seconds, workers, shown=2) == [
        "time per process (tests' setup, call and teardown): gw0 350 s, gw1 121 s",
        "      350 s  gw0  checkout workspace",
        "      120 s  gw1  test_fuzz"]
    assert conftest.group_time_lines({}, {}) == []


MODULE_FOLDER_TESTS = '''
import os
import pathlib

import pytest

@pytest.fixture(scope="module")
def folder(module_folders, request):
    made = module_folders("shared")
    (made / "built").write_text("x")
    (pathlib.Path(os.environ["RECORD"]) / request.module.__name__).write_text(str(made))
    return made

def test_it(folder):
    assert {passes}
'''


def test_a_module_folder_goes_when_its_module_passed_and_stays_when_it_failed(tmp_path):
    """conftest.module_folders: the passing module's folder is removed as the module ends, the failing one's kept."""
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('etsb_conftest', {str(REPO / 'tests' / 'conftest.py')!r})\n"
        "etsb_conftest = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(etsb_conftest)\n"
        "module_folders = etsb_conftest.module_folders\n")
    (tests / "test_passes.py").write_text(MODULE_FOLDER_TESTS.format(passes="True"))
    (tests / "test_fails.py").write_text(MODULE_FOLDER_TESTS.format(passes="False"))
    base = tmp_path / "base"
    result = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", f"--basetemp={base}",
                             "-o", "tmp_path_retention_policy=all", "test_fails.py", "test_passes.py"],
                            cwd=tests, env={**os.environ, "RECORD": str(tmp_path)}, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 1 and "1 failed, 1 passed" in result.stdout, result.stdout[-3000:]
    kept, removed = (Path((tmp_path / f"test_{name}").read_text()) for name in ("fails", "passes"))
    assert (kept / "built").is_file()
    assert not removed.exists() and removed.parent == kept.parent
