"""The Starlark evaluator for BUILD files (tools/starlark) on bad input:
each error names the file and line, with a Starlark backtrace across loaded
files, and a non-zero exit; usage errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from starlark_helpers import current_evaluator, evaluate, write_tree


@pytest.fixture(scope="module")
def evaluator() -> Path:
    """The evaluator, checked to be current (starlark_helpers.current_evaluator)."""
    return current_evaluator()


BAD_CASES = {
    "syntax_error_build": (
        {"pkg/BUILD": 'filegroup(name = "a"\nfilegroup(name = "b")\n'},
        "got identifier, want ','", "pkg/BUILD", 2,
    ),
    "syntax_error_bzl": (
        {"rules/bad.bzl": "X = 1\ndef f(:\n    pass\n",
         "pkg/BUILD": '\nload("//rules:bad.bzl", "X")\n'},
        "cannot load //rules:bad.bzl", "rules/bad.bzl", 2,
    ),
    "undefined_name": (
        {"pkg/BUILD": 'filegroup(name = "a")\nfilegroup(name = undefined_thing)\n'},
        "undefined: undefined_thing", "pkg/BUILD", 2,
    ),
    "undefined_name_runtime_in_macro": (
        {"rules/m.bzl": "def m():\n    return {}['k']\n",
         "pkg/BUILD": 'load("//rules:m.bzl", "m")\n\nm()\n'},
        'key "k" not in dict', "pkg/BUILD", 3,
    ),
    "wrong_attribute_type": (
        {"pkg/BUILD": 'cxx_library(\n    name = "k",\n    srcs = 3,\n)\n'},
        "cxx_library 'k': attribute 'srcs' must be a list of strings, got int", "pkg/BUILD", 1,
    ),
    "wrong_element_type": (
        {"pkg/BUILD": '\ncxx_library(name = "k", deps = ["a", 1])\n'},
        "cxx_library 'k': attribute 'deps' must be a list of strings, got list containing int", "pkg/BUILD", 2,
    ),
    "wrong_type_in_select": (
        {"pkg/BUILD": 'cxx_library(name = "k", srcs = select({"//c:x": "a.cc"}))\n'},
        "attribute 'srcs' must be a list of strings, got string in select branch", "pkg/BUILD", 1,
    ),
    "unknown_attribute": (
        {"pkg/BUILD": 'genrule(name = "g", sources = [], outs = ["o"], cmd = "c")\n'},
        "genrule: unknown attribute 'sources' (did you mean 'srcs'?)", "pkg/BUILD", 1,
    ),
    "missing_required_attribute": (
        {"pkg/BUILD": 'filegroup(name = "ok")\ngenrule(name = "g", outs = ["o"])\n'},
        "genrule 'g': missing required attribute 'cmd'", "pkg/BUILD", 2,
    ),
    "empty_outs": (
        {"pkg/BUILD": 'genrule(name = "g", outs = [], cmd = "c")\n'},
        "genrule 'g': attribute 'outs' must not be empty", "pkg/BUILD", 1,
    ),
    "bad_target_name": (
        {"pkg/BUILD": 'filegroup(name = "a/../b")\n'},
        "filegroup: invalid target name 'a/../b'", "pkg/BUILD", 1,
    ),
    "positional_rule_argument": (
        {"pkg/BUILD": 'filegroup("a")\n'},
        "filegroup: rules take keyword arguments only", "pkg/BUILD", 1,
    ),
    "function_value_attribute": (
        {"pkg/BUILD": 'cxx_library(name = "a", include_directories = [len])\n'},
        "cxx_library 'a': attribute 'include_directories' must be a list of strings, got list containing "
        "builtin_function_or_method",
        "pkg/BUILD", 1,
    ),
    "missing_loaded_file": (
        {"pkg/BUILD": 'filegroup(name = "a")\nload("//rules:nope.bzl", "x")\n'},
        "no such file 'rules/nope.bzl'", "pkg/BUILD", 2,
    ),
    "missing_name_in_module": (
        {"rules/m.bzl": "VALUE = 1\n", "pkg/BUILD": 'load("//rules:m.bzl", "VALUES")\n'},
        "load: name VALUES not found in module //rules:m.bzl (did you mean VALUE?)", "pkg/BUILD", 1,
    ),
    "load_cycle": (
        {"rules/a.bzl": 'load(":b.bzl", "B")\nA = 1\n',
         "rules/b.bzl": 'load("//rules:a.bzl", "A")\nB = 1\n',
         "pkg/BUILD": 'load("//rules:a.bzl", "A")\n'},
        "load cycle: rules/a.bzl -> rules/b.bzl -> rules/a.bzl", "pkg/BUILD", 1,
    ),
    "self_load": (
        {"rules/a.bzl": 'load(":a.bzl", "B")\nA = 1\n', "pkg/BUILD": 'load("//rules:a.bzl", "A")\n'},
        "load cycle: rules/a.bzl -> rules/a.bzl", "pkg/BUILD", 1,
    ),
    "duplicate_target": (
        {"pkg/BUILD": 'filegroup(name = "bin")\n\ncxx_binary(name = "bin")\n'},
        "duplicate target 'bin' in package 'pkg' (first defined at pkg/BUILD:1:1)", "pkg/BUILD", 3,
    ),
    "label_escapes_root": (
        {"pkg/BUILD": 'load("//../x:y.bzl", "z")\n'},
        "label '//../x:y.bzl' escapes the workspace root", "pkg/BUILD", 1,
    ),
    "label_escapes_root_by_name": (
        {"pkg/BUILD": 'load(":../rules/m.bzl", "z")\n'},
        "label ':../rules/m.bzl' escapes the workspace root", "pkg/BUILD", 1,
    ),
    "label_missing_package": (
        {"nope/file.bzl": "X = 1\n", "pkg/BUILD": 'load("//nope:file.bzl", "X")\n'},
        "no such package 'nope' (no BUILD file in ", "pkg/BUILD", 1,
    ),
    "load_not_bzl": (
        {"pkg/BUILD": 'load("//rules:BUILD", "X")\n'},
        "only .bzl files can be loaded", "pkg/BUILD", 1,
    ),
    "fail_in_macro": (
        {"rules/m.bzl": 'def check(n):\n    if n > 1:\n        fail("too many:", n)\n',
         "pkg/BUILD": 'load("//rules:m.bzl", "check")\ncheck(1)\ncheck(2)\n'},
        "fail: too many: 2", "pkg/BUILD", 3,
    ),
    "rule_at_bzl_top_level": (
        {"rules/m.bzl": 'genrule(name = "g", outs = ["o"], cmd = "c")\n',
         "pkg/BUILD": 'load("//rules:m.bzl", "x")\n'},
        "rule 'genrule' can only be called while evaluating a BUILD file", "pkg/BUILD", 1,
    ),
    "glob_at_bzl_top_level": (
        {"rules/m.bzl": 'X = glob(["*"])\n', "pkg/BUILD": 'load("//rules:m.bzl", "X")\n'},
        "glob() can only be called while evaluating a BUILD file", "pkg/BUILD", 1,
    ),
    "def_in_build": (
        {"pkg/BUILD": 'filegroup(name = "a")\n\ndef f():\n    pass\n'},
        "function definitions are not allowed in BUILD files", "pkg/BUILD", 3,
    ),
    "glob_dotdot": (
        {"pkg/BUILD": 'filegroup(name = "a", srcs = glob(["../*.cc"]))\n'},
        "glob: pattern '../*.cc' must not contain '..' segments", "pkg/BUILD", 1,
    ),
    "glob_absolute": (
        {"pkg/BUILD": 'filegroup(name = "a", srcs = glob(["/etc/*"]))\n'},
        "glob: pattern '/etc/*' must be relative to the package", "pkg/BUILD", 1,
    ),
    "toplevel_reassignment": (
        {"pkg/BUILD": 'X = 1\nX = 2\n'},
        "cannot reassign global X", "pkg/BUILD", 2,
    ),
    "while_loop": (
        {"rules/m.bzl": "def f():\n    while True:\n        pass\n", "pkg/BUILD": 'load("//rules:m.bzl", "f")\n'},
        "does not support while loops", "rules/m.bzl", 2,
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input(evaluator, tmp_path, case):
    files, message, file, line = BAD_CASES[case]
    root = write_tree(tmp_path, {"BUILD": "", "rules/BUILD": "", **files})
    run = evaluate(evaluator, root, "pkg")
    assert run.returncode == 1, run.stdout + run.stderr
    pkg = run.package()
    error = pkg["error"]
    assert error is not None
    assert message in error["message"], error
    assert (error["file"], error["line"]) == (file, line), error
    assert error["col"] >= 1
    assert pkg["targets"] == []
    assert "Traceback" not in error["message"]
    assert error["backtrace"]


def test_fail_backtrace_has_both_frames(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "", "rules/BUILD": "",
        "rules/m.bzl": 'def inner(n):\n    fail("bad", n, attr = "srcs")\n\ndef outer(n):\n    inner(n)\n',
        "pkg/BUILD": 'load("//rules:m.bzl", "outer")\n\nouter(7)\n',
    })
    run = evaluate(evaluator, root, "pkg")
    assert run.returncode == 1
    error = run.package()["error"]
    assert error["message"] == "fail: attribute srcs: bad 7"
    assert (error["file"], error["line"], error["col"]) == ("pkg/BUILD", 3, 1)
    backtrace = error["backtrace"]
    assert "pkg/BUILD:3:1: in <toplevel>" in backtrace
    assert "rules/m.bzl:5:5: in outer" in backtrace
    assert "rules/m.bzl:2:5: in inner" in backtrace
    assert backtrace.index("pkg/BUILD:3:1") < backtrace.index("rules/m.bzl:5:5") < backtrace.index("rules/m.bzl:2:5")
    assert backtrace.rstrip().endswith("Error in fail: fail: attribute srcs: bad 7")


def test_error_in_loaded_module_backtrace_spans_files(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "", "rules/BUILD": "",
        "rules/a.bzl": 'load(":b.bzl", "B")\nA = B\n',
        "rules/b.bzl": 'B = 1\nC = B + "x"\n',
        "p1/BUILD": 'load("//rules:a.bzl", "A")\n',
        "p2/BUILD": '\nload("//rules:b.bzl", "B")\n',
    })
    run = evaluate(evaluator, root, "p1", "p2")
    assert run.returncode == 1
    e1, e2 = (p["error"] for p in run.json["packages"])
    assert e1["message"] == "cannot load //rules:a.bzl: cannot load :b.bzl: unknown binary op: int + string"
    assert (e1["file"], e1["line"]) == ("p1/BUILD", 1)
    assert (e2["file"], e2["line"]) == ("p2/BUILD", 2)
    for frame in ("p1/BUILD:1:1: in <toplevel>", "rules/a.bzl:1:1: in <toplevel>", "rules/b.bzl:2:7: in <toplevel>"):
        assert frame in e1["backtrace"]
    # The files read are reported even though evaluation failed.
    assert run.package(0)["files"] == ["p1/BUILD", "rules/a.bzl", "rules/b.bzl"]


def test_missing_package_argument(evaluator, tmp_path):
    root = write_tree(tmp_path, {"BUILD": 'filegroup(name = "a")\n', "empty/x.txt": ""})
    run = evaluate(evaluator, root, "empty", "")
    assert run.returncode == 1
    bad, good = run.json["packages"]
    assert bad["error"]["message"].startswith("no such package 'empty' (no BUILD file in ")
    assert bad["targets"] == []
    assert good["error"] is None and [t["name"] for t in good["targets"]] == ["a"]


@pytest.mark.parametrize("args", [
    [],                                  # no --root
    ["--root"],                          # --root without a value
    ["--root", "{root}"],                # no package
    ["--root", "{root}", "--jobs", "0", ""],
    ["--root", "{root}", "--frob", ""],
    ["--root", "{root}", "../outside"],
    ["--root", "{root}/missing", ""],
])
def test_usage_errors(evaluator, tmp_path, args):
    write_tree(tmp_path, {"BUILD": ""})
    proc = subprocess.run([str(evaluator)] + [a.format(root=tmp_path) for a in args],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert "etsb-starlark:" in proc.stderr
