"""etsb's rules as Buck2 would see them, without Buck2 (which cannot be installed here).

`etsb query --emulate buck2` evaluates BUILD files with Buck2's `native`: its
prelude's rules with their attributes (tools/selective_build/driver/primitives_buck2.py),
`read_config`, no `Label`; and with `@etsb_shim` mapped as a Buck2 project maps that
cell, to rules/private/buck2, so that etsb's rules load shim_buck2.bzl and no other
build system's shim (nothing naming what Buck2 lacks: checked here). The
same BUILD file as tests/test_macros.py's is expanded, and each expansion is
checked in Buck2's spelling: named genrule outputs, Buck2's macros and etsb's two
make variables in commands, `labels`, `PUBLIC`, `exported_headers`... Nothing
is built and Buck2 itself is never run: what Buck2's rules do with the targets
is not checked. The module takes a few seconds.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import REPO, etsb
from macros_helpers import make_workspace as macro_workspace
from test_macros import MANUAL, line_of

from selective_build.driver.primitives_buck2 import RULES as BUCK2_RULES

ETSB = "$(ETSB_PYTHON) $(location etsb//tools/selective_build:etsb)"
TOOLS = ["etsb//tools/selective_build:etsb", "etsb//tools/selective_build:sources"]
RUNTIME = "etsb//runtime:executorch"
PUBLIC = ["PUBLIC"]
PATTERNS = ["//m:all", *(f"//m:{name}" for name in MANUAL), "//runtime:all", "//rules:all"]

# The string parameter macros Buck2's genrule knows that etsb's commands use, and
# the make variables Buck2's set-up for etsb provides.
BUCK2_MACROS = {"location", "exe", "ETSB_PYTHON", "EXECUTORCH_RUNTIME"}

# The evaluator's report of a name Buck2 does not define, which a .bzl file it loads names.
FOREIGN_NAME = re.compile(r"warning: ([^:]+):(\d+):\d+: '(\w+)' is not a Buck2 global: Buck2 refuses to load \1")

# The files of etsb's rules that only one build system loads: its shim, and what only that shim loads.
ONLY = {"etsb": {"rules/private/shim_etsb.bzl"},
        "buck2": {"rules/private/shim_buck2.bzl"},
        "bazel": {"rules/private/shim_bazel.bzl", "rules/private/bazel_sources.bzl",
                  "rules/private/bazel_c_libraries.bzl"}}


def driver_only(name: str, buck2_names: set[str]) -> bool:
    """Whether target `name` of package `m` is made for etsb's driver (and Bazel) only: the
    selected kernels' sources and objects (`_selected_kernels` in rules/generated_lib.bzl:
    Buck2 links whole kernel libraries, and compiles them again as `<lib>_kernels` only for
    a dtype-selective build, beside `<lib>_op_variants`), and the twins of kernel libraries
    compiled against the tree's runtime (BUILDS_THE_TREES_RUNTIME is false under Buck2)."""
    if name.endswith(("_kernel_sources", "_tree_runtime")) or re.search(r"_library_files_\d+$", name):
        return True
    return name.endswith("_kernels") and name.removesuffix("_kernels") + "_op_variants" not in buck2_names


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """tests/test_macros.py's workspace: etsb's rules and the package `m` of every call."""
    return macro_workspace(tmp_path_factory.mktemp("buck2") / "w")


@pytest.fixture(scope="module")
def buck2_query(workspace) -> subprocess.CompletedProcess:
    """`etsb query --emulate buck2 --output json` of package `m` (manual targets too), the runtime and the settings."""
    result = etsb("query", "--emulate", "buck2", "--output", "json", *PATTERNS, cwd=workspace)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def targets(buck2_query) -> dict[str, dict]:
    """Every queried target by label: its rule, location and attributes as Buck2 gets them."""
    return {target["label"]: target for target in json.loads(buck2_query.stdout)}


# The cell Buck2 projects name etsb by (shim_buck2.bzl writes etsb's own targets' labels with it);
# in the workspace the emulation evaluates, etsb's checkout is the root: `etsb//x` is `//x` there.
CELL = "etsb"


def in_root(label: str) -> str:
    """A label of etsb's cell as the root cell's (the workspace's)."""
    return label.removeprefix(CELL) if label.startswith(CELL + "//") else label


def attrs(targets: dict[str, dict], label: str) -> dict:
    """The attributes of `label` (a target of package `m` when written `:name`)."""
    return targets[label if label.startswith("//") else "//m" + label]["attrs"]


def strings(value) -> list[str]:
    """Every string of an attribute's value (lists, dicts and every select() branch)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in strings(item)]
    if isinstance(value, dict):
        return [text for item in value.values() for text in strings(item)]
    return []


def conditions(value) -> list[str]:
    """The keys of every select() branch in an attribute's value."""
    if isinstance(value, dict) and "$select" in value:
        return [key for part in value["$select"] if isinstance(part, dict) for key in part["$conditions"]]
    return []


def test_an_unknown_emulation_is_a_usage_error(workspace):
    result = etsb("query", "--emulate", "bazel", "//m:all", cwd=workspace)
    assert result.returncode == 2
    assert "--emulate must be one of etsb, buck2, not 'bazel'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_emulation_lists_targets_and_never_analyses_them(workspace):
    """The driver cannot build Buck2's targets: formats that analyse them are refused, naming the flag."""
    for output in ("deps", "outputs", "ops"):
        result = etsb("query", "--emulate", "buck2", "--output", output, "//m:ops", cwd=workspace)
        assert result.returncode != 0 and "Traceback" not in result.stderr
        assert "--emulate" in result.stderr and f"not '{output}'" in result.stderr
    assert not (workspace / "etsb-out" / "bin").exists()


def test_the_evaluator_refuses_an_unknown_dialect(workspace):
    evaluator = REPO / "etsb-out" / "tools" / "etsb-starlark"
    result = subprocess.run([str(evaluator), "--root", str(workspace), "--emulate", "bazel", "m"],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert "--emulate wants one of buck2, etsb, got 'bazel'" in result.stderr


@pytest.mark.parametrize("call, message", [
    ('cxx_library(name = "x", hdrs = ["a.h"])', "cxx_library: unknown attribute 'hdrs'"),
    ('cxx_library(name = "x", copts = ["-O2"])', "cxx_library: unknown attribute 'copts'"),
    ('filegroup(name = "x", srcs = [], tags = ["t"])', "filegroup: unknown attribute 'tags'"),
    ('genrule(name = "x", outs = ["a"], cmd = "touch $OUT")',
     "attribute 'outs' must be a dict of string to list of strings, got list"),
    ('genrule(name = "x", out = "a", cmd = "true", testonly = True)', "genrule: unknown attribute 'testonly'"),
    ('cc_library(name = "x")', "undefined: cc_library"),
])
def test_what_buck2s_rules_lack_is_refused_at_the_build_line(workspace, call, message):
    package = workspace / "bad"
    package.mkdir(exist_ok=True)
    (package / "BUILD").write_text("# Buck2's rules, called directly\n" + call + "\n")
    result = etsb("query", "--emulate", "buck2", "//bad:all", cwd=workspace)
    assert result.returncode != 0 and "Traceback (most" not in result.stderr.split("\n")[0]
    assert "bad/BUILD:2:1" in result.stderr and message in result.stderr, result.stderr


def test_every_attribute_is_one_buck2s_rule_declares(targets):
    for label, target in targets.items():
        assert set(target["attrs"]) <= set(BUCK2_RULES[target["rule"]]), label
        assert not {"tags", "testonly", "hdrs", "copts", "linkopts", "includes", "tools"} & set(target["attrs"])


def test_et_operator_library_is_a_genrule_of_one_named_output(targets):
    output = "ops/selected_operators.yaml"
    assert targets["//m:ops"]["location"] == f"m/BUILD:{line_of('ops')}:1"
    assert attrs(targets, ":ops") == {
        "srcs": TOOLS, "outs": {output: [output]}, "default_outs": [output], "labels": ["mine"],
        "visibility": PUBLIC,
        "cmd": f"{ETSB} gen-oplist --output_path $OUT/{output} --root_ops 'aten::add.out,mul.out'"}
    # The output by its path, as Bazel and the driver name it, through Buck2's named output.
    assert targets["//m:" + output]["rule"] == "export_file"
    assert attrs(targets, ":" + output) == {"src": f":ops[{output}]", "labels": ["mine"], "visibility": PUBLIC}


def test_genrules_of_several_outputs_name_each_and_write_under_out(targets):
    bindings = attrs(targets, ":lib_bindings")
    assert set(bindings["outs"]) == {path for path, paths in bindings["outs"].items() if paths == [path]}
    assert len(bindings["outs"]) > 1 and "default_outs" not in bindings
    assert bindings["cmd"].endswith("--output_dir $OUT/lib") and "--backends_output $OUT/lib/" in bindings["cmd"]
    merged = attrs(targets, ":merged")
    assert merged["cmd"].startswith(ETSB + " merge-yaml ") and merged["cmd"].endswith("--output_dir $OUT/merged")


def test_commands_use_buck2s_macros_and_etsbs_make_variables_only(targets, workspace):
    """No Bazel notation (`$@`, `$(RULEDIR)`, `$(locations)`, `$(execpath)`) and no path of this machine."""
    for label, target in targets.items():
        for text in strings(target["attrs"]):
            assert set(re.findall(r"\$\((\w+)", text)) <= BUCK2_MACROS, (label, text)
            assert "$@" not in text and str(workspace) not in text and sys.executable not in text, (label, text)
        if target["rule"] == "genrule" and "etsb" in target["attrs"]["cmd"]:
            assert target["attrs"]["cmd"].startswith(ETSB + " "), label
            assert set(TOOLS) <= set(target["attrs"]["srcs"]), label
    assert attrs(targets, "//runtime:libexecutorch_threadpool_so")["cmd"] == (
        "cp $(EXECUTORCH_RUNTIME)/lib/libexecutorch_threadpool.so $OUT/libexecutorch_threadpool.so")


def test_et_kernel_library_in_buck2s_spelling(targets):
    assert attrs(targets, ":kernels") == {
        "srcs": ["kernels.cpp"], "headers": ["kernels.h"], "exported_headers": ["kernels.h"],
        "exported_deps": [RUNTIME],
        "compiler_flags": ["-std=c++17", "-DFAST=1"], "exported_preprocessor_flags": [],
        "exported_linker_flags": [], "public_include_directories": [], "link_whole": False, "labels": ["k"],
        "visibility": PUBLIC}
    assert attrs(targets, ":kernels_srcs") == {"srcs": ["kernels.cpp"], "labels": ["k"], "visibility": PUBLIC}


def test_generated_libraries_label_what_they_register(targets):
    lib = attrs(targets, ":lib")
    assert "etsb_registers=:lib_selected_operators" in lib["labels"] and lib["link_whole"] is True
    # Each generated file by name: Buck2 gives a genrule of several outputs as one folder.
    assert lib["srcs"] == [":lib/register_kernels.cpp"]
    assert lib["headers"] == [":lib/NativeFunctions.h", ":lib/CustomOpsNativeFunctions.h", ":lib/Functions.h"]
    assert set(lib["exported_deps"]) >= {":kernels", RUNTIME}
    dtype = attrs(targets, ":dlib_kernels")
    assert dtype["compiler_flags"][-2:] == ["-include", "$(location :dlib_op_variants)"]
    assert attrs(targets, ":dlib_op_variants")["default_outs"] == ["dlib/selected_op_variants.h"]


def test_model_binaries_select_with_buck2s_default_on_buck2_settings(targets):
    binary = attrs(targets, ":bin")
    keys = set(conditions(binary["deps"]))
    boards = {f"etsb//rules:{board}{suffix}" for board in ("cortex_m55", "cortex_m4", "cortex_m33")
              for suffix in ("", "_size")}
    assert keys == {"DEFAULT", "etsb//rules:size_config"} | boards
    assert "etsb_binary" not in binary["labels"] and binary["visibility"] == PUBLIC
    assert attrs(targets, "//rules:size_config") == {"values": {"etsb.config": "size"}, "visibility": PUBLIC}
    assert attrs(targets, "//rules:cortex_m55_size")["values"] == {"etsb.config": "size",
                                                                   "etsb.platform": "cortex-m55"}
    shipped = attrs(targets, ":ship")
    assert shipped["deps"][:2] == ["etsb//tools/runner:deploy_embedded", ":ship_deploy"]
    assert any(label.startswith("etsb_all_kernels=") for label in shipped["labels"])


def test_the_runtime_targets_as_shim_buck2_names_them(targets):
    assert attrs(targets, in_root(RUNTIME)) == {
        "exported_preprocessor_flags": ["-I$(EXECUTORCH_RUNTIME)/include",
                                        "-I$(EXECUTORCH_RUNTIME)/include/executorch/runtime/core/portable_type/c10",
                                        "-DC10_USING_CUSTOM_GENERATED_MACROS"],
        "exported_linker_flags": ["-L$(EXECUTORCH_RUNTIME)/lib", "-lexecutorch",
                                  "-Wl,-rpath,$(EXECUTORCH_RUNTIME)/lib"],
        "visibility": PUBLIC}
    assert attrs(targets, "//runtime:threadpool") == {
        "exported_linker_flags": ["-L$(EXECUTORCH_RUNTIME)/lib", "-lexecutorch_threadpool"],
        "exported_deps": [":executorch"], "visibility": PUBLIC}
    assert attrs(targets, "//runtime:libexecutorch_threadpool.so")["src"] == (
        ":libexecutorch_threadpool_so[libexecutorch_threadpool.so]")


def test_every_label_names_a_buck2_target_or_a_source_file(targets, workspace):
    """Buck2 has no target for a genrule's output file, nor `//conditions:default`: each
    label of a label attribute, a `$(location)` or a select() key must be a target (the query
    of all of them fails on the first that is not) or a file of the package."""
    wanted = set()
    for label, target in targets.items():
        package = label[2:].split(":")[0]
        spec = BUCK2_RULES[target["rule"]]
        texts = [text for name, value in target["attrs"].items() if spec[name].labels for text in strings(value)]
        texts += [key for value in target["attrs"].values() for key in conditions(value) if key != "DEFAULT"]
        texts += [m for text in strings(target["attrs"]) for m in re.findall(r"\$\((?:location|exe) ([^)]+)\)", text)]
        for text in texts:
            text = in_root(text.split("[")[0])
            if not text.startswith((":", "//")):
                assert (workspace / package / text).is_file(), (label, text)
                continue
            wanted.add(f"//{package}{text}" if text.startswith(":") else text)
    result = etsb("query", "--emulate", "buck2", *sorted(wanted), cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert len(wanted) > 40


def test_the_same_targets_as_the_driver_less_what_only_the_driver_builds(targets, workspace):
    """Buck2 makes no target the driver does not (besides each genrule output's export_file:
    a file label in the driver), and lacks only what shim.bzl and generated_lib.bzl say it does."""
    driver = etsb("query", *PATTERNS, cwd=workspace)
    assert driver.returncode == 0, driver.stderr
    in_driver = set(driver.stdout.split())
    outputs = {f"//{label[2:].split(':')[0]}:{out}" for label, target in targets.items()
               if target["rule"] == "genrule" for out in target["attrs"]["outs"]}
    in_buck2 = set(targets) - (outputs - in_driver)
    assert in_buck2 <= in_driver
    missing = in_driver - in_buck2
    names = {label.rpartition(":")[2] for label in in_buck2}
    assert missing and all(driver_only(label.rpartition(":")[2], names) for label in missing), sorted(missing)
    assert {"//m:lib_kernel_sources", "//m:lib_kernels", "//m:lib_library_files_0"} <= missing
    assert "//m:dlib_kernels" not in missing


def test_etsbs_rules_load_under_buck2_naming_nothing_it_lacks(buck2_query):
    """Buck2 resolves every name of a .bzl file when it loads it: a reference to Label, attr
    or depset anywhere fails there. The evaluator reports each; etsb's rules name none."""
    assert not FOREIGN_NAME.search(buck2_query.stderr) and buck2_query.stderr == ""


@pytest.mark.parametrize("dialect", ["etsb", "buck2"])
def test_each_build_system_loads_its_own_shim_only(workspace, dialect):
    """`@etsb_shim` is the dialect's folder of etsb's rules (linked apart from the driver's
    for an emulated build system), and the files read are its shim's, no other's."""
    from selective_build.driver.workspace import Workspace

    place = Workspace(str(workspace), "", {}, "", dialect)
    files = set(place.evaluate(["m"])["m"].files)
    shim = f"{place.external_dir}/etsb_shim/shim.bzl"
    assert shim in files and (workspace / shim).resolve() == workspace / "rules" / "private" / dialect / "shim.bzl"
    assert ONLY[dialect] <= files, sorted(files)
    assert not files & set().union(*(only for name, only in ONLY.items() if name != dialect)), sorted(files)
    # `Label` is named there only: loaded by the driver's shim (and Bazel's), never on Buck2's path.
    assert ("rules/private/repository_label.bzl" in files) == (dialect == "etsb")


def test_a_file_naming_what_buck2_lacks_is_reported_on_buck2s_path_only(workspace):
    """Names Buck2 does not define, in code that never runs, are each reported at their
    place under Buck2 (a real Buck2 refuses the file), and nothing under the driver."""
    package = workspace / "foreign"
    package.mkdir()
    (package / "bazelish.bzl").write_text(
        "def made():\n"
        "    return Label(\"//x:y\")\n"
        "\n"
        "def rule_of_bazel():\n"
        "    return attr.label(), depset([])\n"
        "\n"
        "NAME = \"f\"\n")
    (package / "BUILD").write_text('load(":bazelish.bzl", "NAME")\nfilegroup(name = NAME, srcs = [])\n')
    buck2 = etsb("query", "--emulate", "buck2", "//foreign:all", cwd=workspace)
    assert buck2.returncode == 0 and buck2.stdout.split() == ["//foreign:f"], buck2.stderr
    found = {(line, name) for file, line, name in FOREIGN_NAME.findall(buck2.stderr) if file == "foreign/bazelish.bzl"}
    assert found == {("2", "Label"), ("5", "attr"), ("5", "depset")}, buck2.stderr
    driver = etsb("query", "//foreign:all", cwd=workspace)
    assert driver.returncode == 0 and "Buck2" not in driver.stderr, driver.stderr


def test_the_preludes_cxx_rules_give_buck2_compiler_flags(workspace):
    """rules/prelude.bzl's cxx_library and cxx_binary (loaded, as a BUILD file for Bazel does)
    passed the driver's `copts` to Buck2's rules, which have `compiler_flags` only."""
    package = workspace / "prelude_user"
    package.mkdir()
    (package / "BUILD").write_text(
        'load("//rules:prelude.bzl", "cxx_binary", "cxx_library")\n'
        'cxx_library(name = "k", srcs = ["k.cpp"], copts = ["-O3"], compiler_flags = ["-g"])\n'
        'cxx_binary(name = "b", deps = [":k"])\n')
    result = etsb("query", "--emulate", "buck2", "--output", "json", "//prelude_user:all", cwd=workspace)
    assert result.returncode == 0, result.stderr
    found = {target["label"]: target["attrs"] for target in json.loads(result.stdout)}
    assert found["//prelude_user:k"] == {"srcs": ["k.cpp"], "deps": [RUNTIME],
                                         "compiler_flags": ["-std=c++17", "-O3", "-g"]}
    assert found["//prelude_user:b"]["compiler_flags"] == ["-std=c++17"]
    assert found["//prelude_user:b"]["deps"] == [":k", "etsb//tools/runner:runner_static", RUNTIME]
