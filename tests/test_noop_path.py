"""The no-op build's own path (driver/fast.py): what it imports, and the kept
package search it trusts. A no-op `etsb build` must stay a few milliseconds
of Python beside ninja's own no-op, so the modules it imports are held to a
list here (the regression this guards: the command line importing the
platforms, which imported an emitter, which imported the program model), and
the workspace's packages are searched again only when a directory listing
changed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ETSB
from selective_build.driver import state
from selective_build.driver.layout import ninja_file
from selective_build.driver.platforms import output_dir
from selective_build.driver.plan import Plan, PlannedTarget

# Every module of etsb a no-op build may import: the command line, the no-op
# path, and the few values they need. Adding one here is a decision: each
# costs start-up time on every build.
NOOP_MODULES = {
    "selective_build", "selective_build.__main__", "selective_build.argv", "selective_build.arguments",
    "selective_build.commands", "selective_build.driver", "selective_build.driver.fast",
    "selective_build.driver.freshness", "selective_build.driver.idle", "selective_build.driver.layout", "selective_build.driver.plan",
    "selective_build.driver.platforms", "selective_build.driver.rc", "selective_build.driver.running",
    "selective_build.driver.state", "selective_build.model", "selective_build.model.errors",
    "selective_build.model.front_ends", "selective_build.model.records", "selective_build.readers",
    "selective_build.readers.etsb_root",
}
# Standard modules a no-op never needs (each costs milliseconds): data formats, processes, typing,
# regular expressions (the console script pip generates imports re first: tools/etsb is etsb's launcher).
NOT_IMPORTED = {"json", "subprocess", "dataclasses", "typing", "inspect", "argparse", "pathlib", "threading",
                "hashlib", "shutil", "tempfile", "yaml", "flatbuffers", "importlib.util", "re"}
# The output folder of a build given no --platform or --config.
FOLDER = output_dir({})


def _noop_workspace(root: Path, patterns: list[str]) -> None:
    """A workspace whose kept plan holds for ``etsb build PATTERNS``: a package,
    a ninja file with one phony target (real ninja, nothing to compile), and the
    state a build would have saved with them."""
    (root / "p").mkdir(parents=True)
    (root / "MODULE.bazel").write_text("")
    (root / "p" / "BUILD").write_text("# a package\n")
    (root / "p" / "f.txt").write_text("an output\n")
    (root / FOLDER).mkdir(parents=True)
    (root / ninja_file(FOLDER)).write_text("build p$:t: phony p/f.txt\n")
    key = state.plan_key(str(root), "", patterns, {}, state.executorch_tree(None))
    plan = Plan(("p:t",), (PlannedTarget("//p:t", "genrule", ("p/f.txt",), binary=True),))
    state.save_state(str(root), FOLDER, state.make_state(str(root), FOLDER, key, state.package_listings(str(root)),
                                                         [], plan, {}))


def _imported(stderr: str) -> set[str]:
    """The modules ``python -X importtime`` reported importing."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_a_noop_build_imports_only_the_noop_path(tmp_path):
    """`etsb build` (the console script, as a user runs it) on a plan that
    holds goes to ninja without importing anything of etsb beyond
    NOOP_MODULES. (In the quick tier, ninja on PATH is the guard that fails
    naming itself: the no-op path has imported all it imports by then.)"""
    root = tmp_path / "w"
    env = {k: v for k, v in os.environ.items() if k != "EXECUTORCH_ROOT"}
    _noop_workspace(root, ["//p:t"])
    result = subprocess.run([sys.executable, "-X", "importtime", str(ETSB), "build", "//p:t"], cwd=root, env=env,
                            capture_output=True, text=True)
    quick_tier_guard = "the quick tier ran 'ninja'" in result.stdout
    assert result.returncode == 0 or quick_tier_guard, result.stdout + result.stderr
    assert quick_tier_guard or ("ninja: no work to do." in result.stdout and "//p:t: p/f.txt" in result.stdout)
    imported = _imported(result.stderr)
    # The no-op path ran (the full driver's workspace module was never needed).
    assert "selective_build.driver.fast" in imported and "selective_build.driver.workspace" not in imported
    ours = {m for m in imported if m.startswith("selective_build")}
    assert ours <= NOOP_MODULES, f"the no-op build imports more of etsb: {sorted(ours - NOOP_MODULES)}"
    assert not imported & NOT_IMPORTED, f"the no-op build imports {sorted(imported & NOT_IMPORTED)}"


@pytest.fixture
def kept(tmp_path, monkeypatch):
    """A workspace with a kept plan, directories trusted as soon as listed."""
    monkeypatch.setattr(state, "_RACY_NS", 0)
    monkeypatch.delenv("EXECUTORCH_ROOT", raising=False)
    root = tmp_path / "w"
    _noop_workspace(root, ["//..."])
    return root


def _current(root: Path):
    saved = state.load_state(str(root), FOLDER)
    key = state.plan_key(str(root), "", ["//..."], {}, state.executorch_tree(None))
    plan, renewed = state.current_plan(saved, str(root), FOLDER, key)
    return plan, renewed, saved


def test_the_kept_packages_hold_while_no_listing_changes(kept):
    plan, renewed, _ = _current(kept)
    assert plan is not None and plan.ninja_targets == ("p:t",) and not renewed


def test_a_new_package_makes_the_plan_again(kept):
    (kept / "p" / "q").mkdir()
    (kept / "p" / "q" / "BUILD").write_text("")
    assert _current(kept)[0] is None


def test_a_new_file_that_is_no_package_keeps_the_plan_and_renews_the_listings(kept):
    (kept / "p" / "notes.txt").write_text("")
    plan, renewed, saved = _current(kept)
    assert plan is not None and renewed
    assert state.stamps_hold(str(kept), saved["listings"])
    assert saved["listings"] == state.packed_stamps(str(kept), saved["listings"][0])


def test_a_package_removed_makes_the_plan_again(kept):
    (kept / "p" / "BUILD").unlink()
    assert _current(kept)[0] is None


def test_a_directory_listed_as_it_changes_is_not_trusted(tmp_path):
    (tmp_path / "a").mkdir()
    packages, listings = state.package_listings(str(tmp_path))
    assert packages == [] and listings["a"] is None and listings[""] is None


def _finishing(code: str) -> subprocess.CompletedProcess:
    """A Python process running ``code`` that ends with etsb's ``finish``, its output piped (so buffered)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run([sys.executable, "-c", f"from selective_build.__main__ import finish\n{code}"],
                          env=env, capture_output=True, text=True, timeout=60)


def test_finish_flushes_what_was_printed_and_exits_with_the_status():
    """The quick exit (nothing registered to run at exit) still delivers buffered output and the status."""
    ended = _finishing("import sys\nprint('out', end='')\nprint('err', end='', file=sys.stderr)\nfinish(3)")
    assert (ended.returncode, ended.stdout, ended.stderr) == (3, "out", "err")


def test_finish_runs_what_is_registered_at_exit():
    """An atexit callback (a tool that cleans up after itself) still runs: finish takes the ordinary exit."""
    ended = _finishing("import atexit\natexit.register(print, 'cleaned')\nprint('out')\nfinish(4)")
    assert (ended.returncode, ended.stdout) == (4, "out\ncleaned\n")


def test_finish_waits_for_threads():
    """A thread still working when the command returns finishes its work before the process ends."""
    ended = _finishing("import threading, time\n"
                       "threading.Thread(target=lambda: (time.sleep(0.3), print('late'))).start()\nfinish(5)")
    assert (ended.returncode, ended.stdout) == (5, "late\n")
