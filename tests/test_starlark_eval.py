"""The Starlark evaluator for BUILD files (tools/starlark, a Go program run as a subprocess)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO
from selective_build.driver.layout import GO_CACHE

SOURCE_DIR = REPO / "tools" / "starlark"


def go(*argv: str) -> subprocess.CompletedProcess:
    """The go command in tools/starlark, offline against Debian's starlark-go, as scripts/setup.sh runs it."""
    binary = shutil.which("go")
    assert binary, "no 'go' on PATH: run scripts/setup.sh (it installs golang-go and golang-starlark-dev)"
    env = {
        **os.environ,
        "GOPATH": "/usr/share/gocode",
        "GO111MODULE": "off",
        "GOFLAGS": "",
        "GOPROXY": "off",
        "GOCACHE": os.environ.get("GOCACHE") or str(REPO / GO_CACHE),
    }
    return subprocess.run([binary, *argv], cwd=SOURCE_DIR, env=env, capture_output=True, text=True)


@pytest.fixture(scope="module")
def evaluator() -> Path:
    """The evaluator that scripts/setup.sh builds (scripts/test.sh runs it first),
    checked to be newer than every Go source, so that no stale binary is tested."""
    from selective_build.driver.state import evaluator_path

    binary = Path(evaluator_path())
    assert binary.is_file(), f"no {binary}: run scripts/setup.sh"
    stale = [source.name for source in SOURCE_DIR.glob("*.go")
             if not source.name.endswith("_test.go") and source.stat().st_mtime > binary.stat().st_mtime]
    assert not stale, f"{binary} is older than {stale}: run scripts/setup.sh"
    return binary


@pytest.mark.build
def test_go_unit_tests_vet_and_format():
    """`go test` and `go vet` pass and every Go file is as gofmt writes it."""
    tested = go("test", "-count=1", ".")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    vetted = go("vet", ".")
    assert vetted.returncode == 0, vetted.stdout + vetted.stderr
    unformatted = subprocess.run(["gofmt", "-l", "."], cwd=SOURCE_DIR, capture_output=True, text=True)
    assert unformatted.returncode == 0 and unformatted.stdout == "", unformatted.stdout + unformatted.stderr


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


class Run:
    def __init__(self, proc: subprocess.CompletedProcess):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = json.loads(proc.stdout) if proc.stdout else None

    def package(self, index: int = 0) -> dict:
        return self.json["packages"][index]

    def targets(self, index: int = 0) -> dict[str, dict]:
        return {t["name"]: t for t in self.package(index)["targets"]}


def evaluate(binary: Path, root: Path, *packages: str, jobs: int | None = None) -> Run:
    args = [str(binary), "--root", str(root)]
    if jobs is not None:
        args += ["--jobs", str(jobs)]
    proc = subprocess.run(args + list(packages), capture_output=True, text=True, timeout=60)
    return Run(proc)


RULES_BZL = '''\
def et_model(name, model, **kwargs):
    native.genrule(
        name = name + "_ops",
        srcs = [model],
        outs = [name + ".yaml"],
        cmd = "etsb gen-oplist --model_file_path $(location %s) --output_path $@" % model,
    )
    native.cxx_library(name = name + "_lib", srcs = [":" + name + "_ops"], **kwargs)
'''


# ---------------------------------------------------------------- good input


def test_targets_attrs_and_stack(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "",
        "rules/BUILD": "",
        "rules/model.bzl": RULES_BZL,
        "examples/mlp/BUILD": (
            'load("//rules:model.bzl", "et_model")\n'
            "\n"
            'et_model(name = "mlp", model = "mlp.pte", alwayslink = True, copts = ["-O2"])\n'
            'cxx_binary(name = "bin", srcs = ["main.cc"], deps = [":mlp_lib"])\n'
            'export_file(name = "model", src = "mlp.pte")\n'
            'genrule(name = "none", outs = ["x"], cmd = "true", message = None)\n'
        ),
    })
    run = evaluate(evaluator, root, "examples/mlp")
    assert run.returncode == 0, run.stdout + run.stderr
    pkg = run.package()
    assert pkg["package"] == "examples/mlp"
    assert pkg["build_file"] == "examples/mlp/BUILD"
    assert pkg["files"] == ["examples/mlp/BUILD", "rules/model.bzl"]
    assert pkg["error"] is None
    assert [(t["rule"], t["name"]) for t in pkg["targets"]] == [
        ("genrule", "mlp_ops"), ("cxx_library", "mlp_lib"), ("cxx_binary", "bin"),
        ("export_file", "model"), ("genrule", "none"),
    ]
    targets = run.targets()
    assert targets["mlp_ops"]["attrs"] == {
        "srcs": ["mlp.pte"], "outs": ["mlp.yaml"],
        "cmd": "etsb gen-oplist --model_file_path $(location mlp.pte) --output_path $@",
    }
    assert targets["mlp_lib"]["attrs"] == {"srcs": [":mlp_ops"], "alwayslink": True, "copts": ["-O2"]}
    assert targets["none"]["attrs"] == {"outs": ["x"], "cmd": "true"}  # None means "not given"
    assert targets["mlp_ops"]["stack"] == [
        {"function": "<toplevel>", "file": "examples/mlp/BUILD", "line": 3, "col": 1},
        {"function": "et_model", "file": "rules/model.bzl", "line": 2, "col": 5},
    ]
    assert targets["mlp_lib"]["stack"][1] == {"function": "et_model", "file": "rules/model.bzl", "line": 8, "col": 5}
    assert targets["bin"]["stack"] == [{"function": "<toplevel>", "file": "examples/mlp/BUILD", "line": 4, "col": 1}]


def test_root_package_and_build_bazel_preferred(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": 'filegroup(name = "old")\n',
        "BUILD.bazel": 'filegroup(name = "new", srcs = [package_name()])\n',
    })
    for arg in ("", "."):
        run = evaluate(evaluator, root, arg)
        assert run.returncode == 0, run.stdout
        pkg = run.package()
        assert (pkg["package"], pkg["build_file"]) == ("", "BUILD.bazel")
        assert run.targets() == {"new": pkg["targets"][0]}
        assert pkg["targets"][0]["attrs"] == {"srcs": [""]}


def test_load_label_forms_and_aliases(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "",
        "rules/BUILD": "",
        # :helpers.bzl from rules/sub/defs.bzl is relative to package 'rules'
        # (rules/sub has no BUILD file of its own).
        "rules/sub/defs.bzl": 'load(":helpers.bzl", "PREFIX")\nNAME = PREFIX + "-defs"\n',
        "rules/helpers.bzl": 'PREFIX = "h"\ndef twice(x):\n    return [x, x]\n',
        "pkg/BUILD": (
            'load("//rules:sub/defs.bzl", "NAME")\n'
            'load("@//rules:helpers.bzl", dup = "twice", P = "PREFIX")\n'
            'load(":local.bzl", "LOCAL")\n'
            'filegroup(name = "t", srcs = dup(NAME) + [P, LOCAL])\n'
        ),
        "pkg/local.bzl": 'LOCAL = "local"\n',
    })
    run = evaluate(evaluator, root, "pkg")
    assert run.returncode == 0, run.stdout
    assert run.targets()["t"]["attrs"]["srcs"] == ["h-defs", "h-defs", "h", "local"]
    assert run.package()["files"] == ["pkg/BUILD", "pkg/local.bzl", "rules/helpers.bzl", "rules/sub/defs.bzl"]


def test_bzl_executed_once_per_run(evaluator, tmp_path):
    files = {
        "BUILD": "",
        "rules/BUILD": "",
        "rules/common.bzl": 'print("loading common")\nVALUE = [1]\n',
        "rules/mid.bzl": 'load("//rules:common.bzl", "VALUE")\nMID = VALUE\n',
    }
    for i in range(6):
        files[f"p{i}/BUILD"] = (
            'load("//rules:common.bzl", "VALUE")\nload("//rules:mid.bzl", "MID")\n'
            f'filegroup(name = "f", srcs = [str(VALUE == MID)])\nprint("pkg {i}")\n'
        )
    root = write_tree(tmp_path, files)
    run = evaluate(evaluator, root, *[f"p{i}" for i in range(6)], jobs=3)
    assert run.returncode == 0, run.stdout
    assert run.stderr.count("loading common") == 1
    assert "DEBUG: rules/common.bzl:1:1: loading common" in run.stderr
    assert "DEBUG: p3/BUILD:4:1: pkg 3" in run.stderr
    # Every package sees the module values.
    for i in range(6):
        assert run.targets(i)["f"]["attrs"]["srcs"] == ["True"]


def test_glob(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "",
        "pkg/BUILD": (
            'filegroup(name = "all", srcs = glob(["**/*.cc"], exclude = ["gen/**", "*_test.cc"]))\n'
            'filegroup(name = "headers", srcs = glob(["src/*.h", "src/?.hpp"]))\n'
            'filegroup(name = "none", srcs = glob(["*.nothing"]))\n'
            'filegroup(name = "kw", srcs = native.glob(include = ["src/**"], exclude = ["**/*.cc"]))\n'
        ),
        "pkg/a.cc": "", "pkg/a_test.cc": "", "pkg/src/b.cc": "", "pkg/src/b.h": "",
        "pkg/src/c.hpp": "", "pkg/src/long.hpp": "", "pkg/src/deep/d.cc": "",
        "pkg/gen/g.cc": "",
        "pkg/.hidden/h.cc": "",
        "pkg/sub/BUILD": "", "pkg/sub/s.cc": "",  # a package of its own
        "pkg/sub2/BUILD.bazel": "", "pkg/sub2/s.cc": "",
    })
    (root / "pkg" / "dir.cc").mkdir()  # directories are never returned
    run = evaluate(evaluator, root, "pkg")
    assert run.returncode == 0, run.stdout
    targets = run.targets()
    assert targets["all"]["attrs"]["srcs"] == ["a.cc", "src/b.cc", "src/deep/d.cc"]
    assert targets["headers"]["attrs"]["srcs"] == ["src/b.h", "src/c.hpp"]
    assert targets["none"]["attrs"]["srcs"] == []
    assert targets["kw"]["attrs"]["srcs"] == ["src/b.h", "src/c.hpp", "src/long.hpp"]
    dirs = run.package()["glob_dirs"]
    assert dirs == sorted(dirs)
    assert {"pkg", "pkg/src", "pkg/src/deep", "pkg/gen"} <= set(dirs)
    assert not {"pkg/sub", "pkg/sub2", "pkg/.hidden"} & set(dirs)


def test_select_encoding_and_concatenation(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": (
            'DTYPE = select({"//config:dtype_selective": ["-DSEL"], "//conditions:default": []})\n'
            'cxx_library(\n'
            '    name = "k",\n'
            '    srcs = ["a.cc"] + select({"//b:y": ["y.cc"], "//a:x": ["x.cc"]}) + ["z.cc"],\n'
            '    copts = DTYPE,\n'
            '    defines = DTYPE + DTYPE,\n'
            '    deps = select({"//conditions:default": None}),\n'
            ')\n'
            'filegroup(name = "t", srcs = [type(DTYPE)])\n'
        ),
    })
    run = evaluate(evaluator, root, "")
    assert run.returncode == 0, run.stdout
    attrs = run.targets()["k"]["attrs"]
    cond = {"$conditions": {"//conditions:default": [], "//config:dtype_selective": ["-DSEL"]}}
    assert attrs["srcs"] == {"$select": [["a.cc"], {"$conditions": {"//a:x": ["x.cc"], "//b:y": ["y.cc"]}}, ["z.cc"]]}
    assert attrs["copts"] == {"$select": [cond]}
    assert attrs["defines"] == {"$select": [cond, cond]}
    assert attrs["deps"] == {"$select": [{"$conditions": {"//conditions:default": None}}]}
    assert list(attrs["srcs"]["$select"][1]["$conditions"]) == ["//a:x", "//b:y"]  # keys sorted
    assert run.targets()["t"]["attrs"]["srcs"] == ["select"]


def test_struct_json_and_dicts(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "",
        "rules/BUILD": "",
        "rules/cfg.bzl": (
            'CFG = struct(flags = ["-a"], meta = json.decode(\'{"z": 1, "a": [true, null]}\'))\n'
            'ENCODED = json.encode(struct(x = 1, y = ["s"]))\n'
        ),
        "pkg/BUILD": (
            'load("//rules:cfg.bzl", "CFG", "ENCODED")\n'
            'cxx_library(name = "l", copts = CFG.flags, defines = [ENCODED, str(CFG.meta["z"])],\n'
            '            include_directories = ("t",))\n'
            'config_setting(name = "c", values = {"cpu": "k8", "a": "b"}, define_values = {})\n'
        ),
    })
    run = evaluate(evaluator, root, "pkg")
    assert run.returncode == 0, run.stdout
    attrs = run.targets()["l"]["attrs"]
    assert attrs["copts"] == ["-a"]
    assert attrs["defines"] == ['{"x":1,"y":["s"]}', "1"]
    assert attrs["include_directories"] == ["t"]  # a tuple is a list
    # Dict values keep their insertion order.
    assert '"values":{"cpu":"k8","a":"b"}' in run.stdout
    assert run.targets()["c"]["attrs"] == {"values": {"cpu": "k8", "a": "b"}, "define_values": {}}


def test_existing_rules_and_package_name(evaluator, tmp_path):
    root = write_tree(tmp_path, {
        "BUILD": "",
        "rules/BUILD": "",
        "rules/summary.bzl": (
            "def summary(name):\n"
            "    rules = native.existing_rules()\n"
            "    lines = []\n"
            "    for n in sorted(rules):\n"
            '        r = rules[n]\n'
            '        lines.append("%s:%s:%s" % (n, r["kind"], ",".join(r.get("srcs", []))))\n'
            '    native.filegroup(name = name, srcs = lines + [native.package_name(), package_name(), repository_name()])\n'
        ),
        "a/b/BUILD": (
            'load("//rules:summary.bzl", "summary")\n'
            'filegroup(name = "x", srcs = ["1", "2"])\n'
            'genrule(name = "g", outs = ["o"], cmd = "c")\n'
            'summary(name = "s")\n'
        ),
    })
    run = evaluate(evaluator, root, "a/b")
    assert run.returncode == 0, run.stdout
    assert run.targets()["s"]["attrs"]["srcs"] == ["g:genrule:", "x:filegroup:1,2", "a/b", "a/b", "@"]


def test_native_members_package_and_exports_files(evaluator, tmp_path):
    """package() and exports_files() are accepted (and ignored) so that Bazel-style BUILD files evaluate."""
    root = write_tree(tmp_path, {
        "BUILD": (
            'package(default_visibility = ["//visibility:public"])\n'
            'exports_files(["MODULE.bazel"])\n'
            'HAS = [n for n in ["cxx_library", "cxx_binary", "genrule", "filegroup", "export_file",\n'
            '                   "config_setting", "glob", "package_name", "existing_rules", "cc_library", "read_config"]\n'
            '       if hasattr(native, n)]\n'
            'filegroup(name = "has", srcs = HAS)\n'
        ),
    })
    run = evaluate(evaluator, root, "")
    assert run.returncode == 0, run.stdout
    assert run.targets()["has"]["attrs"]["srcs"] == [
        "cxx_library", "cxx_binary", "genrule", "filegroup", "export_file",
        "config_setting", "glob", "package_name", "existing_rules",
    ]


# ---------------------------------------------------------------- bad input

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


# ---------------------------------------------------------------- determinism and speed


def many_packages(root: Path, count: int) -> list[str]:
    files = {
        "BUILD": "", "rules/BUILD": "",
        "rules/ten.bzl": (
            "def ten(name):\n"
            "    for i in range(8):\n"
            '        native.filegroup(name = "%s_%d" % (name, i), srcs = glob(["*.txt"]), tags = ["t%d" % i])\n'
            '    native.genrule(name = name + "_g", outs = [name + ".h"], cmd = "touch $@",\n'
            '                   srcs = select({"//c:a": ["a"], "//conditions:default": []}))\n'
            '    native.cxx_library(name = name + "_l", srcs = [name + ".cc"], deps = [":" + name + "_g"])\n'
        ),
    }
    packages = []
    for i in range(count):
        pkg = f"p/m{i:04d}"
        packages.append(pkg)
        files[f"{pkg}/BUILD"] = f'load("//rules:ten.bzl", "ten")\nten(name = "m{i}")\n'
        files[f"{pkg}/x.txt"] = ""
    write_tree(root, files)
    return packages


def test_deterministic_and_in_argument_order(evaluator, tmp_path):
    packages = many_packages(tmp_path, 40)
    packages.reverse()
    first = evaluate(evaluator, tmp_path, *packages, jobs=4)
    second = evaluate(evaluator, tmp_path, *packages, jobs=2)
    assert first.returncode == 0, first.stdout
    assert first.stdout == second.stdout
    assert [p["package"] for p in first.json["packages"]] == packages


def test_errors_deterministic_under_parallel_loads(evaluator, tmp_path):
    """Packages entering a load cycle from either end, concurrently, get the same errors every run."""
    files = {
        "BUILD": "", "r/BUILD": "",
        "r/a.bzl": 'load(":b.bzl", "B")\nA = 1\n',
        "r/b.bzl": 'load(":a.bzl", "A")\nB = 1\n',
        "r/c.bzl": 'load(":d.bzl", "D")\nC = D + 1\n',
        "r/d.bzl": 'D = "x"\n',
    }
    packages = []
    for i in range(30):
        packages.append(f"p{i}")
        files[f"p{i}/BUILD"] = 'load("//r:%s.bzl", "%s")\n' % (("a", "A"), ("b", "B"), ("c", "C"))[i % 3]
    write_tree(tmp_path, files)
    runs = [evaluate(evaluator, tmp_path, *packages, jobs=jobs) for jobs in (1, 8, 8, 3)]
    assert all(run.stdout == runs[0].stdout for run in runs)
    messages = [p["error"]["message"] for p in runs[0].json["packages"][:3]]
    assert messages == [
        "cannot load //r:a.bzl: load cycle: r/a.bzl -> r/b.bzl -> r/a.bzl",
        "cannot load //r:b.bzl: load cycle: r/b.bzl -> r/a.bzl -> r/b.bzl",
        "cannot load //r:c.bzl: unknown binary op: string + int",
    ]


def test_ten_thousand_targets_quickly(evaluator, tmp_path):
    packages = many_packages(tmp_path, 1000)
    evaluate(evaluator, tmp_path, *packages)  # warm the file system cache
    start = time.perf_counter()
    run = evaluate(evaluator, tmp_path, *packages)
    elapsed = time.perf_counter() - start
    assert run.returncode == 0
    assert sum(len(p["targets"]) for p in run.json["packages"]) == 10_000
    # Typically under 0.1 s on two cores; the bound leaves room for a loaded machine.
    assert elapsed < 3.0, elapsed


def test_the_prelude_gives_build_files_its_public_globals(evaluator, tmp_path):
    """--prelude LABEL: its public globals are predeclared in BUILD files (not in
    .bzl files), win over a built-in of the same name, lose to a BUILD file's
    own load; its files are inputs of every package; a broken prelude fails
    every package, naming it."""
    root = write_tree(tmp_path, {
        "MODULE.bazel": "",
        "p/BUILD": "",
        "p/prelude.bzl": ('def cxx_library(name, **kwargs):\n'
                          '    native.cxx_library(name = name, tags = ["from_prelude"], **kwargs)\n'
                          'def lib(name):\n    cxx_library(name = name)\n_hidden = 1\n'),
        "p/other.bzl": 'def lib(name):\n    native.filegroup(name = name)\n',
        "a/BUILD": 'lib(name = "one")\ncxx_library(name = "two")\n',
        "b/BUILD": 'load("//p:other.bzl", "lib")\nlib(name = "three")\n',
        "c/BUILD": '_hidden\n',
    })
    run = Run(subprocess.run([str(evaluator), "--root", str(root), "--prelude", "//p:prelude.bzl", "a", "b", "c"],
                             capture_output=True, text=True, timeout=60))
    assert run.returncode == 1, run.stderr
    a, b, c = (run.package(i) for i in range(3))
    assert {t["name"]: (t["rule"], t["attrs"].get("tags")) for t in a["targets"]} == {
        "one": ("cxx_library", ["from_prelude"]), "two": ("cxx_library", ["from_prelude"])}
    assert "p/prelude.bzl" in a["files"]
    assert [(t["name"], t["rule"]) for t in b["targets"]] == [("three", "filegroup")]  # its own load wins
    assert "undefined: _hidden" in c["error"]["message"]  # private names stay private
    broken = write_tree(tmp_path / "broken", {"MODULE.bazel": "", "p/BUILD": "", "p/prelude.bzl": "x = 1 +\n",
                                              "a/BUILD": ""})
    run = Run(subprocess.run([str(evaluator), "--root", str(broken), "--prelude", "//p:prelude.bzl", "a"],
                             capture_output=True, text=True, timeout=60))
    assert run.returncode == 1 and "p/prelude.bzl" in json.dumps(run.package()["error"]), run.stdout
    run = Run(subprocess.run([str(evaluator), "--root", str(broken), "--prelude", "//nowhere:prelude.bzl", "a"],
                             capture_output=True, text=True, timeout=60))
    assert run.returncode == 1 and "the prelude //nowhere:prelude.bzl: no such package 'nowhere'" in \
        run.package()["error"]["message"], run.stdout
