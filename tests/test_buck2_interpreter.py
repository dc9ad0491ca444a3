"""etsb's rules under Buck2's own interpreter, checked against the Go emulation.

Buck2 cannot be installed here; its interpreter can: starlark-rust, through
PyPI's starlark-pyo3 (tests/buck2_interpreter.py gives it Buck2's dialects,
globals, `native` and cells). Through etsb's `.buckconfig` (cells `etsb`,
`etsb_shim`), it evaluates every example's BUILD file, the BUCK files of
examples/buck2/, the packages etsb's macros name (runtime, tools, rules,
kernels), and, with the ExecuTorch tree, ExecuTorch's own selective-build call
sites (`examples/selective_build/targets.bzl`) with only their loads changed.
Every rule call must take exactly the attributes Buck2's prelude declares
(primitives_buck2.py, the Go emulation's table too), and each package's
targets must be those `etsb query --emulate buck2` lists, attribute for
attribute and at the same BUILD line; a package one refuses, the other refuses
at the same line with the same message. Nothing is built."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from buck2_interpreter import Buck2Error, Buck2Project, normalised
from conftest import REPO, TREE, have_tree
from helpers import etsb, new_workspace
from macros_helpers import executorch_targets_bzl, query_runner

# The packages etsb's rules name (the runtime, the tools, the configuration settings, the kernels).
RULES_PACKAGES = ["rules", "runtime", "tools/selective_build", "tools/runner", "kernels/portable"]
EXAMPLES = sorted(str(path.parent.relative_to(REPO)) for path in (REPO / "examples").glob("*/BUILD"))
BUCK_EXAMPLES = sorted(str(path.parent.relative_to(REPO)) for path in (REPO / "examples" / "buck2").glob("*/BUCK"))


# The examples Buck2 refuses on purpose: the static runtime (etsb's driver and Bazel only),
# and the docs' snippet without a load (etsb's driver gives its prelude; examples/buck2/snippet).
REFUSED = {"examples/executorch_tree", "examples/buck2_snippet"}


# ExecuTorch's own call sites of its macros, in a package of their own: its targets.bzl with
# only its two loads changed to etsb's, and a BUCK file calling it as ExecuTorch's does.
EXECUTORCH_CALL_SITES = "executorch_selective_build"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A workspace with etsb's rules, the examples and `.buckconfig`; with the ExecuTorch tree,
    its call sites; beside each BUCK file a BUILD file of the same text, for the Go evaluator
    (which reads BUILD files only)."""
    root = new_workspace(tmp_path_factory.mktemp("buck2rs") / "w", "examples")
    shutil.copy(REPO / ".buckconfig", root / ".buckconfig")
    packages = list(BUCK_EXAMPLES)
    if have_tree():
        (root / EXECUTORCH_CALL_SITES).mkdir()
        (root / EXECUTORCH_CALL_SITES / "targets.bzl").write_text(executorch_targets_bzl())
        (root / EXECUTORCH_CALL_SITES / "BUCK").write_text(
            'load(":targets.bzl", "define_common_targets")\n\ndefine_common_targets()\n')
        packages.append(EXECUTORCH_CALL_SITES)
    for package in packages:
        shutil.copy(root / package / "BUCK", root / package / "BUILD")
    return root


@pytest.fixture(scope="module")
def project(workspace) -> Buck2Project:
    return Buck2Project(workspace / ".buckconfig")


@pytest.fixture
def query(workspace, monkeypatch, capsys):
    return query_runner(workspace, monkeypatch, capsys)


def go_targets(query, package: str, manual: list[str]) -> tuple[dict | None, str]:
    """The Go emulation's targets of `package` (label -> rule, line, attributes), or None and its error."""
    code, out, errors = query("--emulate", "buck2", "--output", "json", f"//{package}:all",
                              *(f"//{package}:{name}" for name in manual))
    if code != 0:
        return None, errors
    found = {}
    for target in json.loads(out):
        line = int(target["location"].split(":")[1])
        attrs = {key: normalised(value) for key, value in target["attrs"].items()}
        found[target["label"]] = (target["rule"], line, attrs)
    return found, errors


def rust_targets(project: Buck2Project, package: str) -> dict:
    """starlark-rust's targets of `package`, as go_targets gives them."""
    return {f"//{package}:{t.name}": (t.rule, t.line, {k: normalised(v) for k, v in t.attrs.items()})
            for t in project.evaluate(package)}


def compare(project: Buck2Project, query, package: str) -> int:
    """Asserts both evaluators agree on `package`; the number of targets."""
    try:
        ours = rust_targets(project, package)
    except Buck2Error as error:
        theirs, errors = go_targets(query, package, [])
        assert theirs is None, f"only starlark-rust refuses {package}: {error}"
        line = re.search(rf"{re.escape(package)}/BU\w+:(\d+)", str(error))
        assert line and f"{package}/BUILD:{line.group(1)}:" in errors, (str(error), errors)
        failure = re.search(r"error: fail: (.*)", str(error))
        assert failure is None or failure.group(1) in errors, (str(error), errors)
        return 0
    manual = [label.rpartition(":")[2] for label, (_, _, attrs) in ours.items() if "manual" in attrs.get("labels", [])]
    theirs, errors = go_targets(query, package, manual)
    assert theirs is not None, f"only the Go emulation refuses {package}: {errors}"
    assert errors == "", errors
    assert set(ours) == set(theirs), (sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours)))
    for label in ours:
        assert ours[label] == theirs[label], label
    return len(ours)


@pytest.mark.parametrize("package", RULES_PACKAGES + EXAMPLES + BUCK_EXAMPLES)
def test_starlark_rust_expands_each_package_as_the_go_emulation(project, query, package):
    assert compare(project, query, package) > 0 or package in REFUSED


def test_the_examples_evaluate_under_buck2_but_those_buck2_cannot_build(project):
    """Every example evaluates, except those Buck2 refuses on purpose: the static runtime
    (etsb's driver and Bazel only) and the snippet without a load (etsb's driver's prelude)."""
    refused = {}
    for package in EXAMPLES + BUCK_EXAMPLES + RULES_PACKAGES:
        try:
            project.evaluate(package)
        except Buck2Error as error:
            refused[package] = str(error)
    assert set(refused) == REFUSED, refused
    assert 'runtime = "static" is built by etsb\'s driver and Bazel only' in refused["examples/executorch_tree"]
    assert "Variable `et_operator_library` not found" in refused["examples/buck2_snippet"]


def test_the_load_path_reaches_buck2s_shim_through_the_cells_only(project):
    """etsb's rules reach Buck2's shim through the cell etsb_shim, and load no other build
    system's shim nor any file naming Label, attr or depset (Buck2 refuses such a file)."""
    project.evaluate("examples/mlp")
    loaded = {str(path.relative_to(project.root)) for path in project._modules}
    assert {"rules/private/buck2/shim.bzl", "rules/private/shim_buck2.bzl", "rules/executorch.bzl"} <= loaded
    assert not loaded & {"rules/private/shim_etsb.bzl", "rules/private/shim_bazel.bzl",
                         "rules/private/repository_label.bzl", "rules/private/bazel_sources.bzl",
                         "rules/private/bazel_c_libraries.bzl",
                         "rules/private/etsb/shim.bzl"}
    for path in loaded:
        text = (project.root / path).read_text()
        assert not re.search(r"(?<![\w.])(Label|attr|depset)\s*\(", text), path


def test_a_file_naming_what_buck2_lacks_does_not_load(project, workspace):
    package = workspace / "foreign"
    package.mkdir(exist_ok=True)
    (package / "bazelish.bzl").write_text('def made():\n    return Label("//x:y")\n\nNAME = "f"\n')
    (package / "BUCK").write_text('load(":bazelish.bzl", "NAME")\n\nfilegroup(name = NAME, srcs = [])\n')
    with pytest.raises(Buck2Error, match="Variable `Label` not found"):
        project.evaluate("foreign")


@pytest.mark.parametrize("text, message", [
    ('def f():\n    pass\n', "def"),
    ('if True:\n    filegroup(name = "x", srcs = [])\n', "if"),
    ('filegroup(name = "x", srcs = [], tags = ["t"])\n', "unknown attribute 'tags'"),
    ('genrule(name = "x", outs = ["a"], cmd = "true")\n', "attribute 'outs' must be a string_list_dict"),
    ('cxx_library(name = "x", copts = [])\n', "unknown attribute 'copts'"),
    ('filegroup(name = "x", srcs = [])\nfilegroup(name = "x", srcs = [])\n', "already declared"),
    ('filegroup(name = "x", srcs = [], labels = select({"DEFAULT": []}))\n', "takes no select()"),
    ('load("@nowhere//x:y.bzl", "z")\n', "no cell 'nowhere'"),
    ('x = f"{1}"\n', "must enable f-strings"),
])
def test_what_buck2_refuses_is_refused(project, workspace, text, message):
    """Buck2's BUCK dialect (no def, no top-level if, no f-strings), its rules' attributes, its cells."""
    package = workspace / "refused"
    package.mkdir(exist_ok=True)
    (package / "BUCK").write_text(text)
    with pytest.raises(Buck2Error, match=re.escape(message)):
        project.evaluate("refused")


def test_the_buck2_snippet_is_the_docs_snippet_below_one_load():
    ours = (REPO / "examples" / "buck2" / "snippet" / "BUCK").read_text()
    pasted = (REPO / "examples" / "buck2_snippet" / "BUILD").read_text()
    start = "# Yaml file for kernel library"
    assert ours[ours.index(start):] == pasted[pasted.index(start):]
    assert [line for line in ours[:ours.index(start)].splitlines() if line.startswith("load(")] == [
        'load("@etsb//rules:prelude.bzl", "cxx_binary", "cxx_library", "et_operator_library", '
        '"executorch_generated_lib", "export_file")']


@pytest.mark.tree
def test_executorch_s_call_sites_evaluate_with_only_their_loads_changed(project, query, workspace):
    """ExecuTorch's selective-build targets.bzl, loads changed and nothing else: under
    starlark-rust's Buck2 dialect and the Go emulation alike (every target the same), and in
    etsb's driver; every keyword it passes is taken, include_all_prim_ops = False among them."""
    assert compare(project, query, EXECUTORCH_CALL_SITES) > 40
    names = {t.name for t in project.evaluate(EXECUTORCH_CALL_SITES)}
    assert {"select_all_lib", "select_ops_in_dict_lib", "library_with_combined_prim_ops",
            "library_with_all_prim_ops", "selective_build_test"} <= names
    # Buck2 builds the wheel's runtime only: the prim-op selections write their header there.
    assert "library_with_combined_prim_ops_prim_ops" not in names
    driver = etsb("query", f"//{EXECUTORCH_CALL_SITES}:all", cwd=workspace)
    assert driver.returncode == 0, driver.stderr
    assert f"//{EXECUTORCH_CALL_SITES}:library_with_combined_prim_ops_prim_ops" in driver.stdout.split()


@pytest.mark.tree
def test_the_buck2_snippet_is_the_seeds(project):
    """The seeds' Buck2 snippet (beside the ExecuTorch tree, in shared/seeds) is the one
    examples/buck2/snippet evaluates, word for word."""
    seeds = TREE.parent.parent / "seeds"
    snippets = {re.search(r"### Buck2\n.*?```python\n(.*?)```", path.read_text(), re.S).group(1)
                for path in sorted(seeds.glob("*.txt")) if "### Buck2" in path.read_text()}
    ours = (REPO / "examples" / "buck2" / "snippet" / "BUCK").read_text()
    assert len(snippets) == 1 and ours.rstrip().endswith(snippets.pop().rstrip())
    assert {t.name for t in project.evaluate("examples/buck2/snippet")} >= {"all_ops", "generated_lib",
                                                                           "executorch_bin"}
