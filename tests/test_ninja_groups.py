"""The ninja file's phony groups (driver/ninja.py): a long list of inputs that
edges share is written once, as a phony edge, so that the ninja file a no-op
build parses stays small; ninja still rebuilds every edge whose grouped input
changed, and restat edges keep their inputs listed (ninja would run them at
every build otherwise)."""

from __future__ import annotations

import subprocess
import time

import pytest

from selective_build.driver.analysis import Action
from selective_build.driver.layout import INPUT_GROUPS
from selective_build.driver.ninja import GROUP_AT, render

HEADERS = tuple(f"h{i}.h" for i in range(GROUP_AT))


def _actions(restat_too: bool = True) -> list[Action]:
    """Two compiles reading the same headers (as a library's do), and a restat action reading them all."""
    compiles = [Action((f"{name}.o",), (f"{name}.c",), f"cat {name}.c {' '.join(HEADERS)} > {name}.o",
                       f"CXX {name}.c (//p:lib)", order_only=HEADERS, depfile=False)
                for name in ("a", "b")]
    listing = Action(("list.txt",), HEADERS, "cp list.in list.txt.tmp && (cmp -s list.txt.tmp list.txt || "
                     "mv list.txt.tmp list.txt)", "GEN //p:list", implicit=("list.in",), restat=True)
    return compiles + ([listing] if restat_too else [])


def _render(actions: list[Action]) -> str:
    sources = {path for action in actions for path in (*action.inputs, *action.order_only, *action.implicit)}
    return render(actions, {"//p:lib": ("a.o", "b.o")}, sources, lambda path: f"stamps/{path}")


def test_a_shared_long_list_is_written_once():
    text = _render(_actions(restat_too=False))
    stamps = " ".join(f"stamps/{h}" for h in HEADERS)
    edges = "\n".join(line for line in text.splitlines() if line.startswith("build "))
    assert edges.count(stamps) == 1 and edges.count(" ".join(HEADERS)) == 1, text
    assert f"build {INPUT_GROUPS}/1: phony {stamps}" in text and f"build {INPUT_GROUPS}/2: phony " in text
    for name in ("a", "b"):  # each compile: its own source's stamp, then the groups
        assert (f"build {name}.o: run {name}.c | stamps/{name}.c {INPUT_GROUPS}/1 || {INPUT_GROUPS}/2"
                in text), text


def test_a_short_list_and_a_restat_edges_inputs_stay_listed():
    short = render([Action(("x",), ("y",), "cp y x", "GEN //p:x", order_only=HEADERS[:GROUP_AT - 1])], {},
                   set(), str)
    assert INPUT_GROUPS not in short and f"|| {' '.join(HEADERS[:GROUP_AT - 1])}" in short
    restat_line = next(line for line in _render(_actions()).splitlines() if line.startswith("build list.txt:"))
    assert INPUT_GROUPS not in restat_line and " ".join(f"stamps/{h}" for h in HEADERS) in restat_line


def _ninja(root) -> list[str]:
    """Run ninja in ``root``; the descriptions of the edges it ran."""
    result = subprocess.run(["ninja"], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return [line.split("] ", 1)[1] for line in result.stdout.splitlines() if line.startswith("[")]


@pytest.mark.build
def test_ninja_rebuilds_what_a_grouped_input_changes_and_a_noop_runs_nothing(tmp_path):
    for path in ("a.c", "b.c", "list.in", *HEADERS):
        (tmp_path / path).write_text(path)
    (tmp_path / "stamps").mkdir()
    for path in ("a.c", "b.c", "list.in", *HEADERS):
        (tmp_path / "stamps" / path).write_text("digest 1")
    (tmp_path / "build.ninja").write_text(_render(_actions()))
    assert sorted(_ninja(tmp_path)) == ["CXX a.c (//p:lib)", "CXX b.c (//p:lib)", "GEN //p:list"]
    assert _ninja(tmp_path) == []  # the restat edge is not run again
    time.sleep(0.05)  # past the clock's tick: the stamp written next is newer than the outputs, as etsb writes it
    (tmp_path / "stamps" / HEADERS[-1]).write_text("digest 2")  # a header's content changed
    assert sorted(_ninja(tmp_path)) == ["CXX a.c (//p:lib)", "CXX b.c (//p:lib)", "GEN //p:list"]
    assert _ninja(tmp_path) == []
