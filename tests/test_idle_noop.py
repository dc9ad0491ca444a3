"""The no-op build that answers without ninja (driver/idle.py): once ninja
has had nothing to do, `etsb build` says so itself while none of the files
ninja looked at has changed, and runs ninja again on any change of any kind:
a BUILD file, a .bzl file it loads, a source (also one replaced by a file with
the same time and size, also after another configuration's build rewrote its
digest stamp), a header the compiler read (from ninja's deps log),
an output deleted or made older, ninja's own log, the --define values, the
configuration and the ExecuTorch tree. Each case is a real build of a small
workspace (a genrule and a one-file binary: no kernels, quick), checked by
what was rebuilt; plus the readers of ninja's files against ninja's own view."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from driver_helpers import etsb, steps
from helpers import ETSB, new_workspace
from selective_build.driver import idle, state
from selective_build.driver.layout import idle_file, ninja_file
from selective_build.driver.platforms import output_dir

pytestmark = pytest.mark.build

FOLDER = output_dir({})
TARGETS = ("//p:g", "//p:app")
BUILD = """\
load("//rules:executorch.bzl", "etsb_cxx_binary")
load(":words.bzl", "WORD")

etsb_cxx_binary(name = "app", srcs = ["main.cpp"])

genrule(name = "g", srcs = ["in.txt"], outs = ["g.txt"], cmd = "cat $(location in.txt) > $@ && echo " + WORD + " >> $@")
"""


def _workspace(root: Path) -> Path:
    new_workspace(root)
    package = root / "p"
    package.mkdir()
    (package / "BUILD").write_text(BUILD)
    (package / "words.bzl").write_text('WORD = "first"\n')
    (package / "in.txt").write_text("input\n")
    (package / "greeting.h").write_text('#define GREETING "hello"\n')
    (package / "main.cpp").write_text('#include <cstdio>\n#include "p/greeting.h"\n'
                                      'int main() { std::puts(GREETING); return 0; }\n')
    return root


def _build(root: Path, *flags: str, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([str(ETSB), "build", *flags, *TARGETS], cwd=root, capture_output=True, text=True,
                            env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def _ran_ninja(root: Path, *flags: str) -> bool:
    """Whether `etsb build` ran ninja (it then imports signal, to pass signals on to it), as seen by
    `python -X importtime`; the build must succeed and say there was no work."""
    result = subprocess.run([sys.executable, "-X", "importtime", str(ETSB), "build", *flags, *TARGETS], cwd=root,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert steps(result.stdout) == [] and idle.NO_WORK in result.stdout, result.stdout
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")}
    return "signal" in imported


def _settled(root: Path, *flags: str) -> None:
    """Build until ninja has had nothing to do once; then the next no-op must not run it."""
    _build(root, *flags)
    _build(root, *flags)
    assert not _ran_ninja(root, *flags)


@pytest.fixture
def ws(tmp_path) -> Path:
    root = _workspace(tmp_path / "w")
    _settled(root)
    return root


def _out(root: Path, name: str) -> Path:
    return root / FOLDER / "bin" / "p" / name


def test_a_settled_noop_runs_no_ninja_and_imports_nothing_it_does_not_need(ws):
    result = subprocess.run([sys.executable, "-X", "importtime", str(ETSB), "build", *TARGETS], cwd=ws,
                            capture_output=True, text=True)
    assert result.returncode == 0 and idle.NO_WORK in result.stdout
    assert "//p:app: etsb-out/host-default/bin/p/app" in result.stdout
    imported = {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
                if line.startswith("import time:")}
    # No regular expressions, enums, signals (ninja), collections or processes on this path.
    assert not imported & {"re", "enum", "signal", "collections", "subprocess", "json", "typing"}, sorted(imported)


def test_an_edited_build_file_is_noticed(ws):
    build = ws / "p" / "BUILD"
    build.write_text(build.read_text().replace('" >> $@"', '" >> $@ && echo more >> $@"'))
    assert steps(_build(ws).stdout)
    assert _out(ws, "g.txt").read_text() == "input\nfirst\nmore\n"


def test_an_edited_bzl_file_is_noticed(ws):
    (ws / "p" / "words.bzl").write_text('WORD = "second"\n')
    assert steps(_build(ws).stdout)
    assert _out(ws, "g.txt").read_text() == "input\nsecond\n"


def test_an_edited_source_is_noticed(ws):
    (ws / "p" / "in.txt").write_text("changed\n")
    assert steps(_build(ws).stdout)
    assert _out(ws, "g.txt").read_text() == "changed\nfirst\n"


def test_a_source_replaced_with_the_same_time_and_size_is_noticed(ws):
    """As `cp -p` of a file as long leaves it (the model of a binary, say): ninja alone would not see it."""
    source = ws / "p" / "in.txt"
    before = source.stat()
    source.write_text("INPUT\n")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert steps(_build(ws).stdout)
    assert _out(ws, "g.txt").read_text() == "INPUT\nfirst\n"


def test_an_edited_header_is_noticed(ws):
    (ws / "p" / "greeting.h").write_text('#define GREETING "goodbye"\n')
    assert any("main.cpp" in step for step in steps(_build(ws).stdout))
    assert subprocess.run([str(_out(ws, "app"))], capture_output=True, text=True).stdout == "goodbye\n"


def test_a_deleted_or_older_output_is_rebuilt(ws):
    _out(ws, "g.txt").unlink()
    assert steps(_build(ws).stdout) and _out(ws, "g.txt").exists()
    _settled(ws)
    os.utime(_out(ws, "app"), ns=(0, 0))
    assert any("LINK" in step for step in steps(_build(ws).stdout))


def test_ninjas_log_removed_lets_ninja_decide(ws):
    (ws / FOLDER / ".ninja_log").unlink()
    # ninja, with no record of the commands that made the outputs, runs them again.
    assert steps(_build(ws).stdout)


def test_a_changed_define_is_noticed(ws):
    (ws / "q").mkdir()
    (ws / "q" / "BUILD").write_text('genrule(name = "d", outs = ["d.txt"], cmd = "printf %s $(X) > $@")\n')
    for _ in range(3):
        result = etsb(ws, "build", "--define", "X=1", "//q:d")
        assert result.returncode == 0 and (ws / FOLDER / "bin" / "q" / "d.txt").read_text() == "1"
    assert idle.NO_WORK in result.stdout
    result = etsb(ws, "build", "--define", "X=2", "//q:d")
    assert result.returncode == 0 and (ws / FOLDER / "bin" / "q" / "d.txt").read_text() == "2"


def test_another_configuration_is_not_answered_by_the_defaults_snapshot(ws):
    assert steps(_build(ws, "--config=size").stdout)  # a folder of its own, built for the first time
    assert (ws / "etsb-out" / "host-size" / "bin" / "p" / "app").is_file()
    _build(ws)
    assert not _ran_ninja(ws)  # the default folder's snapshot still holds


def test_a_source_whose_stamp_another_configuration_rewrote_is_noticed(ws):
    """The snapshot leaves the digest stamps out (etsb writes them only for a source whose fingerprint
    changed): a source replaced with the same time and size, its stamp already rewritten by another
    configuration's build, still rebuilds the default configuration's outputs."""
    _settled(ws, "--config=size")
    source = ws / "p" / "in.txt"
    before = source.stat()
    source.write_text("INPUT\n")
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert steps(_build(ws, "--config=size").stdout)  # rewrites the stamp the two share
    assert steps(_build(ws).stdout)
    assert _out(ws, "g.txt").read_text() == "INPUT\nfirst\n"
    _settled(ws)


def test_another_executorch_tree_makes_the_plan_again(ws, tmp_path):
    tree = tmp_path / "executorch"
    (tree / "runtime" / "executor").mkdir(parents=True)
    (tree / "runtime" / "executor" / "method.cpp").write_text("")
    _build(ws, env={**os.environ, "EXECUTORCH_ROOT": str(tree)})
    saved = state.load_state(str(ws), FOLDER)
    assert saved["key"]["executorch_tree"] == str(tree)


# -- the readers of ninja's files ----------------------------------------------------------


def test_the_deps_log_reads_as_ninja_shows_it(ws):
    shown = subprocess.run(["ninja", "-f", ninja_file(FOLDER), "-t", "deps"], cwd=ws, capture_output=True,
                           text=True, check=True).stdout
    theirs, current = {}, None
    for line in shown.splitlines():
        if line.startswith("    "):
            theirs[current].append(line.strip())
        elif line.strip():
            current = line.split(": #deps", 1)[0]
            theirs[current] = []
    ours = idle.deps_log(str(ws / FOLDER / ".ninja_deps"))
    assert theirs and {k: tuple(v) for k, v in theirs.items()} == ours
    assert any(path.endswith("p/greeting.h") for deps in ours.values() for path in deps)


def test_a_deps_log_cut_short_or_unknown(tmp_path):
    log = tmp_path / ".ninja_deps"
    assert idle.deps_log(str(log)) == {}  # none yet
    log.write_bytes(b"# ninjadeps\n" + (3).to_bytes(4, "little"))
    assert idle.deps_log(str(log)) is None  # a version this reader does not know
    path = b"a.o\0" + (0xFFFFFFFF).to_bytes(4, "little")
    log.write_bytes(b"# ninjadeps\n" + (4).to_bytes(4, "little") + len(path).to_bytes(4, "little") + path
                    + (0x80000000 | 16).to_bytes(4, "little") + bytes(8))  # a deps record cut short
    assert idle.deps_log(str(log)) == {}
    header = b"# ninjadeps\n" + (4).to_bytes(4, "little") + len(path).to_bytes(4, "little") + path
    log.write_bytes(header + (0x80000000 | 16).to_bytes(4, "little") + (0).to_bytes(4, "little") + bytes(8)
                    + (7).to_bytes(4, "little"))  # a dependency with no path record
    assert idle.deps_log(str(log)) is None
    log.write_bytes(header + (0x80000000 | 6).to_bytes(4, "little") + bytes(6))  # not whole numbers
    assert idle.deps_log(str(log)) is None


def test_build_lines_are_read_with_their_escapes(tmp_path):
    manifest = tmp_path / "build.ninja"
    manifest.write_text("rule run\n  command = x\n"
                        "build out$ 1 p$:t: run in$$1 | imp || order\n  dyndep = dd$:1\n"
                        "build g: phony a b\n")
    assert idle.manifest_edges(str(manifest)) == [(("out 1", "p:t"), ("in$1", "imp", "order"), "dd:1"),
                                                   (("g",), ("a", "b"), "")]


def test_the_snapshot_is_kept_beside_the_configurations_outputs(ws):
    assert (ws / idle_file(FOLDER)).is_file()
