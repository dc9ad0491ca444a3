"""The Starlark evaluator for BUILD files (tools/starlark): the same output
(and the same errors) in any argument order and with any number of parallel
loads, and ten thousand targets quickly."""

from __future__ import annotations

from pathlib import Path

import pytest

from starlark_helpers import current_evaluator, evaluate, write_tree


@pytest.fixture(scope="module")
def evaluator() -> Path:
    """The evaluator, checked to be current (starlark_helpers.current_evaluator)."""
    return current_evaluator()


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


def test_ten_thousand_targets_in_one_run_the_same_on_any_number_of_jobs(evaluator, tmp_path):
    """A thousand packages of ten targets each, evaluated in one process: every
    target is there, and the output does not depend on the parallelism (the
    evaluator's speed is bench/bench_build.py's)."""
    packages = many_packages(tmp_path, 1000)
    runs = [evaluate(evaluator, tmp_path, *packages, jobs=jobs) for jobs in (1, 8)]
    assert all(run.returncode == 0 for run in runs)
    assert sum(len(p["targets"]) for p in runs[0].json["packages"]) == 10_000
    assert runs[0].stdout == runs[1].stdout
