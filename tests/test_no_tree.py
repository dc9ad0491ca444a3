"""A workspace without an ExecuTorch tree: a wildcard pattern builds every
target that does not need one and says which it left out and why; a target
named on its own that needs the tree still fails with the reason; and the
plan is made again when the tree appears."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from helpers import etsb, new_workspace

BUILD = """\
load("//rules:private/shim.bzl", "etsb_genrule")

etsb_genrule(name = "plain", srcs = [], outs = ["plain.txt"], cmd = "echo plain > $@")

etsb_genrule(name = "from_tree", srcs = ["@executorch//kernels/portable:functions.yaml"], outs = ["tree.txt"],
             cmd = "cp $< $@")

etsb_genrule(name = "after_tree", srcs = ["tree.txt"], outs = ["after.txt"], cmd = "cp $< $@")
"""


def workspace(root: Path, tree: Path) -> Path:
    """A workspace whose .etsbrc names ``tree`` as its ExecuTorch tree, with the package above."""
    new_workspace(root)
    (root / ".etsbrc").write_text(f"common --executorch-root={tree}\n")
    (root / "p").mkdir()
    (root / "p" / "BUILD").write_text(BUILD)
    return root


@pytest.mark.build
def test_a_wildcard_builds_what_needs_no_tree_and_names_what_it_left_out(tmp_path):
    root = workspace(tmp_path / "w", tmp_path / "no-tree")
    for _ in range(2):  # the first build, then the no-op one, which says it again
        result = etsb("build", "//p/...", cwd=root)
        assert result.returncode == 0, result.stderr
        assert (root / "etsb-out" / "bin" / "p" / "plain.txt").read_text() == "plain\n"
        assert ("etsb: left out 2 targets that need the repository '@executorch' (the ExecuTorch source tree given "
                f"({tmp_path / 'no-tree'}, from --executorch-root, EXECUTORCH_ROOT or .etsbrc) is not a directory): "
                "//p:after_tree, //p:from_tree") in result.stderr, result.stderr
    assert not (root / "etsb-out" / "bin" / "p" / "after.txt").exists()


def test_a_target_named_alone_that_needs_the_tree_fails_with_the_reason(tmp_path):
    root = workspace(tmp_path / "w", tmp_path / "no-tree")
    result = etsb("build", "//p:after_tree", cwd=root)
    assert result.returncode == 2
    assert "names the repository '@executorch', which this build does not have" in result.stderr
    assert "is not a directory" in result.stderr and "Traceback" not in result.stderr


def test_the_plan_is_made_again_when_the_tree_appears(tmp_path):
    from selective_build.driver.state import plan_key

    tree = tmp_path / "tree"
    before = plan_key(str(REPO), "", ["//p/..."], {}, str(tree))
    tree.mkdir()
    assert plan_key(str(REPO), "", ["//p/..."], {}, str(tree)) != before
