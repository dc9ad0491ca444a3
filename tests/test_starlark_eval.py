"""The Starlark evaluator for BUILD files (tools/starlark, a Go program run as a subprocess)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from selective_build.driver.layout import GO_CACHE
from starlark_helpers import SOURCE_DIR, Run, current_evaluator, evaluate, write_tree


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
    """The evaluator, checked to be current (starlark_helpers.current_evaluator)."""
    return current_evaluator()


@pytest.mark.build
def test_go_unit_tests_vet_and_format():
    """`go test` and `go vet` pass and every Go file is as gofmt writes it."""
    tested = go("test", "-count=1", ".")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    vetted = go("vet", ".")
    assert vetted.returncode == 0, vetted.stdout + vetted.stderr
    unformatted = subprocess.run(["gofmt", "-l", "."], cwd=SOURCE_DIR, capture_output=True, text=True)
    assert unformatted.returncode == 0 and unformatted.stdout == "", unformatted.stdout + unformatted.stderr


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
    """package() and exports_files() are accepted (and ignored) so that Bazel-style BUILD files evaluate;
    Buck2's native.read_config gives its default, so that ExecuTorch's call sites evaluate."""
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
        "config_setting", "glob", "package_name", "existing_rules", "read_config",
    ]


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
