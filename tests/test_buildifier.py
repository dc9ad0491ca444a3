"""Every BUILD, .bzl, MODULE.bazel and WORKSPACE file of the repository passes
the field's own linter: buildifier 8.2.1 (`--mode=check --lint=warn`, which
checks formatting too and changes nothing), but the seed's Buck2 snippet,
kept as pasted. scripts/setup.sh fetches it."""

from __future__ import annotations

import subprocess

from conftest import REPO

BUILDIFIER = REPO / "etsb-out" / "tools" / "buildifier-8.2.1"
STARLARK_NAMES = ("BUILD", "BUILD.bazel", "MODULE.bazel", "WORKSPACE")
# The seed's Buck2 snippet, kept exactly as the registration docs print it (two-space indents).
AS_PASTED = ("examples/buck2_snippet/BUILD",)


def starlark_files() -> tuple[list[str], list[str]]:
    """(files buildifier recognises by name, BUILD files with another name: the tree overlays)."""
    tracked = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout.split()
    named = [f for f in tracked if (f.endswith(".bzl") or f.rsplit("/", 1)[-1] in STARLARK_NAMES)
             and f not in AS_PASTED]
    overlays = [f for f in tracked if f.endswith("/BUILD.overlay")]
    return named, overlays


def test_buildifier_is_clean_on_every_starlark_file():
    assert BUILDIFIER.exists(), "no buildifier: run scripts/setup.sh"
    named, overlays = starlark_files()
    assert len(named) > 30 and overlays
    for files, extra in ((named, []), (overlays, ["--type=build"])):
        result = subprocess.run([str(BUILDIFIER), "--mode=check", "--lint=warn", *extra, *files], cwd=REPO,
                                capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout + result.stderr, result.stdout + result.stderr


def test_buildifier_finds_what_it_should(tmp_path):
    """The check can fail: a misformatted file with a lint finding is reported."""
    bad = tmp_path / "BUILD"
    bad.write_text('cc_library(name="x",srcs=["a.cc"])\n')
    result = subprocess.run([str(BUILDIFIER), "--mode=check", "--lint=warn", str(bad)], capture_output=True,
                            text=True)
    assert result.returncode != 0
    assert "reformat" in result.stdout + result.stderr and "native-cc-library" in result.stdout + result.stderr
