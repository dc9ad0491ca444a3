"""Hostile and careless input to etsb's readers: nothing a user feeds them
crashes, hangs, exhausts memory or gives a traceback. Each case runs etsb
in a process of its own (a crash must not take pytest with it) and expects a
one-line-per-problem message with the file's place and exit status 2; the
property-based tests feed the readers random input and accept only a result
or a located error."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from conftest import MODELS_DIR
from helpers import ETSB
from selective_build.model.errors import CommandLine, UserError
from selective_build.readers import operator_lists, pte
from selective_build.readers.selected_yaml import parse_selected_operators

KERNEL = ("- op: add.out\n  {extra}\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::add_out\n")


def etsb(*argv: str, timeout: int = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(ETSB), *argv], capture_output=True, text=True, timeout=timeout)


def laughs(levels: int) -> str:
    """A mapping of anchors, each level ten aliases of the one before: 10**levels values in a few hundred bytes."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, levels)]
    return "{" + ", ".join(lines) + "}"


DEEP = 32_000
YAML_CASES = {
    # name: (kernel yaml text, what the message says)
    # Deeper than the 25,000 levels that overflow libyaml's composer on a default
    # 8 MB stack; libyaml's time grows with the square of the depth, so no deeper.
    "flow nesting 32,000 deep": ("[" * DEEP + "]" * DEEP, "an operator entry must be a mapping"),
    "unclosed flow nesting 32,000 deep": ("[" * DEEP, "invalid YAML"),
    "compact sequences 32,000 deep": ("- " * DEEP + "x\n", "an operator entry must be a mapping"),
    "billion laughs in tags": (KERNEL.format(extra="tags: " + laughs(10)), "its aliases expand it to"),
    "tags nested 1,000 deep": (KERNEL.format(extra="tags: " + "[" * 1000 + "]" * 1000), "nested more than 32"),
    "tags with a list as a key": (KERNEL.format(extra="tags: {[a]: b}"), "keys of 'tags' must be plain names"),
}


@pytest.mark.parametrize("case", sorted(YAML_CASES))
@pytest.mark.parametrize("reader", ["validate-yaml", "gen-op-variants"])
def test_hostile_yaml_is_refused_without_a_crash(case, reader, tmp_path):
    text, message = YAML_CASES[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(text)
    argv = [reader, str(path)] if reader == "validate-yaml" else [reader, "--yaml_file_path", str(path),
                                                                      "--output_dir", str(tmp_path / "out")]
    result = etsb(*argv)
    assert result.returncode == 2, (result.returncode, result.stderr[-500:])
    assert "Traceback" not in result.stderr and str(path) in result.stderr
    if reader == "validate-yaml":
        assert message in result.stderr, result.stderr[-500:]
    assert not (tmp_path / "out").exists()


def _named_pipe(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _directory(path: Path) -> Path:
    path.mkdir()
    return path


def _written(data: bytes):
    def make(path: Path) -> Path:
        path.write_bytes(data)
        return path
    return make


NOT_YAML = {
    "a device": (lambda path: Path("/dev/zero"), "not a regular file"),
    "a named pipe": (_named_pipe, "not a regular file"),  # reading it would block
    "a directory": (_directory, "is a directory"),
    "over the size cap": (_written(b"a" * (17 << 20)), "larger than 16 MB"),
    "not UTF-8": (_written(b"- op: add.out\n\xff\n"), "not UTF-8 text"),
}


@pytest.mark.parametrize("case", sorted(NOT_YAML))
def test_what_is_not_a_yaml_file_is_refused(case, tmp_path):
    make, message = NOT_YAML[case]
    path = make(tmp_path / "input.yaml")
    result = etsb("validate-yaml", str(path), timeout=20)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert result.stderr.startswith(str(path))


def test_a_pte_that_is_not_a_regular_file_is_refused(tmp_path):
    result = etsb("gen-oplist", "--output_path", str(tmp_path / "s.yaml"), "--model_file_path", "/dev/zero")
    assert result.returncode == 2 and "/dev/zero: error: not a regular file, expected a .pte file" in result.stderr


@pytest.mark.parametrize("limit", ["methods", "operators", "values", "chains", "instructions", "arguments",
                                   "dimensions"])
def test_every_count_in_a_program_has_a_limit(limit, monkeypatch):
    data = (MODELS_DIR / "attention" / "attention.pte").read_bytes()
    monkeypatch.setitem(pte.LIMITS, limit, 0)
    with pytest.raises(UserError) as info:
        pte.read_program(data, "m.pte", None)
    assert "more than the 0 etsb reads" in info.value.message and info.value.message.startswith("corrupt .pte")


# -- property-based: any text gives a selection or located problems -------------------------------

_selection_words = st.sampled_from(["operators:", "et_kernel_metadata:", "kernel_metadata:", "include_all_operators:",
                                    "aten::add.out:", "  ", "- ", "v1/6;0,1|6;0,1", "default", "true", "{", "}",
                                    "[", "]", ",", "\n", "&a ", "*a", "debug_info:", "null", "'", '"', ":", "#"])


@settings(max_examples=300)
@given(st.lists(_selection_words, max_size=40).map("".join))
def test_any_text_is_a_selection_or_located_problems(text):
    try:
        parse_selected_operators(text, "s.yaml")
    except UserError as error:
        assert all(p.location is not None and p.location.path == "s.yaml" for p in error.problems)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=40), st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)),
                                                    lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                                            st.dictionaries(st.text(max_size=8), inner,
                                                                                            max_size=3)),
                                                    max_leaves=8).map(json.dumps)))
def test_any_ops_dict_is_keys_or_a_located_problem(text):
    try:
        operator_lists.parse_ops_dict(text)
    except UserError as error:
        assert error.location == CommandLine("--ops_dict")


# -- BUILD files that would run for ever or take all memory ------------------------------------------


@pytest.mark.parametrize("bzl, message", [
    ("def spin():\n    for i in range(10000000000):\n        pass\n", "too many steps"),
    ("def spin():\n    kept = []\n    for i in range(100):\n        kept.append(\"x\" * 100000000 + str(i))\n    return kept\n",
     "needed more than 4096 MB of memory"),
])
def test_a_build_file_cannot_hang_or_exhaust_the_machine(bzl, message, tmp_path):
    (tmp_path / "MODULE.bazel").write_text("")
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "BUILD").write_text("")
    (tmp_path / "r" / "defs.bzl").write_text(bzl)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "BUILD").write_text('load("//r:defs.bzl", "spin")\nspin()\n')
    result = subprocess.run([str(ETSB), "query", "//p:all"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr[-1000:]
    assert message in result.stderr and "goroutine" not in result.stderr, result.stderr[-1000:]
