"""etsb's build driver on workspaces of its own: a user's new package, the
incremental rebuild, the build-time checks, and bad input met while building.
Bad calls in BUILD files, refused while evaluating (a message with the BUILD
file's line and the Starlark backtrace, a non-zero exit, nothing built), are
tests/test_macros.py's."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO
from helpers import ETSB, TEST_KERNELS as KERNELS, assert_matches_torch, new_workspace, run_model
from helpers import etsb as run_etsb

MLP = MODELS_DIR / "mlp"


def etsb(workspace: Path, *argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return run_etsb(*argv, cwd=cwd or workspace)


def make_workspace(root: Path) -> Path:
    """A workspace with etsb's rules, tools and runtime, and a package `m`
    holding the MLP model and hand-written test kernels (quick to compile)."""
    new_workspace(root)
    package = root / "m"
    package.mkdir()
    shutil.copy(KERNELS / "mlp.yaml", package / "kernels.yaml")
    shutil.copy(KERNELS / "mlp_kernels.cpp", package / "kernels.cpp")
    shutil.copy(MLP / "mlp.pte", package / "m.pte")
    (package / "BUILD").write_text(MODEL_BUILD)
    return root


MODEL_BUILD = """\
load("//rules:executorch.bzl", "et_kernel_library", "et_model_binary")

et_kernel_library(name = "kernels", srcs = ["kernels.cpp"])

et_model_binary(
    name = "bin",
    model = "m.pte",
    functions_yaml_target = "kernels.yaml",
    kernel_deps = [":kernels"],
)
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The workspace, built once (each test below leaves it as it found it)."""
    root = make_workspace(tmp_path_factory.mktemp("ws") / "w")
    result = etsb(root, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@contextlib.contextmanager
def scratch_package(path: Path):
    """A package directory for one test, removed afterwards (the workspace is shared)."""
    path.mkdir(parents=True)
    try:
        yield path
    finally:
        shutil.rmtree(path)


def steps(output: str) -> list[str]:
    """The descriptions of the actions ninja ran."""
    return [line.split("] ", 1)[1] for line in output.splitlines() if line.startswith("[")]


def run_mlp(binary: Path, out: Path) -> None:
    result = run_model(binary, "mlp", out)
    assert result.returncode == 0, result.stderr
    assert_matches_torch("mlp", out)


@pytest.mark.build
def test_a_users_package_builds_a_binary_that_runs(workspace, tmp_path):
    run_mlp(workspace / "etsb-out/bin/m/bin", tmp_path)


@pytest.mark.build
def test_a_noop_build_runs_no_action(workspace):
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0
    assert steps(result.stdout) == []
    assert "ninja: no work to do." in result.stdout


@pytest.mark.build
def test_labels_relative_to_the_current_package(workspace):
    result = etsb(workspace, "build", ":bin", cwd=workspace / "m")
    assert result.returncode == 0 and "//m:bin: etsb-out/bin/m/bin" in result.stdout


@pytest.mark.build
def test_editing_the_kernel_yaml_rebuilds_only_what_depends_on_it(workspace, tmp_path):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        # A comment changes the file, not the generated code: the generators run (the registration's,
        # and the list of kernel sources to compile), nothing is recompiled.
        yaml.write_text(original + "# a comment\n")
        ran = steps(etsb(workspace, "build", "//m:bin").stdout)
        assert sorted(ran) == ["GEN //m:bin_lib_bindings", "GEN //m:bin_lib_kernel_sources"], ran
        # A new kernel name changes the registration source: it and the link run again, the
        # runner and the kernels are not recompiled.
        yaml.write_text(original.replace("test::relu_out", "test::relu_out_renamed"))
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0  # the kernel does not exist under that name: the link fails
        ran = steps(result.stdout)
        assert "GEN //m:bin_lib_bindings" in ran and not any("CXX m/kernels.cpp" in s or "runner.cpp" in s for s in ran)
    finally:
        yaml.write_text(original)
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    run_mlp(workspace / "etsb-out/bin/m/bin", tmp_path)


@pytest.mark.build
def test_a_new_package_works_with_no_registration(workspace, tmp_path):
    package = workspace / "new" / "deeper"
    package.mkdir(parents=True)
    try:
        (package / "BUILD").write_text('load("//rules:executorch.bzl", "et_operator_library")\n'
                                       'et_operator_library(name = "ops", model = "//m:m.pte")\n')
        result = etsb(workspace, "build", "//new/...")
        assert result.returncode == 0, result.stderr
        selected = (workspace / "etsb-out/bin/new/deeper/ops/selected_operators.yaml").read_text()
        assert "aten::addmm.out" in selected
    finally:
        shutil.rmtree(workspace / "new")


@pytest.mark.build
def test_the_coverage_check_fails_the_build_before_linking(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        yaml.write_text(original.split("- op: relu.out")[0])
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0
        gap = "aten::relu.out: no kernel yaml entry for this operator (needed by m/m.pte; not in m/kernels.yaml)"
        assert result.stdout.count(gap) == 1, result.stdout  # once: gen-bindings reports it, kernel-sources not
        assert not any(s.startswith("LINK") for s in steps(result.stdout))
        # The failure says which BUILD line made the failing action, not ninja's command line.
        assert re.search(r"^m/BUILD:\d+:\d+: error: GEN //m:\S+ failed \(etsb-out/bin/m/\S+\):$", result.stdout,
                         re.MULTILINE), result.stdout
        assert "FAILED:" not in result.stdout and "mkdir -p" not in result.stdout
        assert "ninja: build stopped" not in result.stdout
    finally:
        yaml.write_text(original)


@pytest.mark.build
def test_size_of_a_binary_that_fails_to_build_shows_why(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_text()
    try:
        yaml.write_text(original.split("- op: relu.out")[0])
        result = etsb(workspace, "size", "//m:bin")
        assert result.returncode != 0
        assert "aten::relu.out: no kernel yaml entry for this operator (needed by m/m.pte; not in m/kernels.yaml)" in result.stderr
    finally:
        yaml.write_text(original)


@pytest.mark.parametrize("source, part", [
    ("etsb-out/bin/k/libk.a(kernels__portable__cpu__op_add.cpp.o)", ("kernels", "add")),
    # A package whose name contains "op_" and a registration source in it.
    ("etsb-out/bin/e/custom_op/libbin_lib.a(etsb-out__bin__e__custom_op__bin_lib__register_kernels.cpp.o)",
     ("registration", None)),
    ("etsb-out/bin/e/custom_op/libk.a(e__custom_op__op_relu_squared.cpp.o)", ("kernels", "relu_squared")),
    ("etsb-out/bin/tools/runner/librunner.a(tools__runner__runner.cpp.o)", ("runner", None)),
    ("etsb-out/bin/m/libk.a(m__op_runner_helpers.cpp.o)", ("kernels", "runner_helpers")),
    ("etsb-out/bin/m/libk.a(m__util.cpp.o)", ("kernel utilities", None)),
    ("/usr/lib/gcc/x86_64-linux-gnu/12/crtbegin.o", ("C and C++ libraries, start-up", None)),
    # A static binary (runtime = "static"): ExecuTorch's runtime from the tree, its prim ops apart
    # (from the runtime library, or compiled for one binary in the size configuration).
    ("etsb-out/bin/external/executorch/libruntime_core.a(etsb-out__external__executorch__runtime__executor__"
     "method.cpp.o)", ("ExecuTorch runtime core (static)", None)),
    ("etsb-out/bin/external/executorch/libruntime_core.a(etsb-out__external__executorch__extension__data_loader__"
     "file_data_loader.cpp.o)", ("ExecuTorch runtime core (static)", None)),
    ("etsb-out/bin/m/libbin_runtime.a(etsb-out__external__executorch__kernels__prim_ops__register_prim_ops.cpp.o)",
     ("ExecuTorch prim ops (static)", None)),
    # The deploy runner, the program and inputs it embeds, and a binary's own main (ExecuTorch's size test).
    ("etsb-out/bin/tools/runner/libdeploy_embedded_tree.a(tools__runner__deploy.cpp.o)", ("runner", None)),
    ("etsb-out/bin/m/libbin_deploy.a(etsb-out__bin__m__bin_deploy.cpp.o)", ("embedded model and inputs", None)),
    ("etsb-out/obj/external/executorch/test/size_test/etsb-out__external__executorch__test__size_test.cpp.o",
     ("runner", None)),
    # Bare metal: newlib, libstdc++ and libgcc linked in, and the board's start-up code.
    ("/usr/lib/gcc/arm-none-eabi/12.2.1/../../../arm-none-eabi/lib/thumb/v8.1-m.main+mve/hard/libc_nano.a"
     "(libc_a-memcpy-stub.o)", ("C and C++ libraries, start-up", None)),
    ("etsb-out/bin/platforms/cortex_m/liban547.a(platforms__cortex_m__startup.cpp.o)",
     ("C and C++ libraries, start-up", None)),
])
def test_size_attributes_each_object_by_its_source_file_name(source, part):
    from selective_build.driver.size import classify

    assert classify(source) == part


# A hand-made GNU ld map of a static deploy binary: one kept section per part (a
# long section name puts its numbers on the next line), and sections the link
# dropped or that take no file space (before the memory map, .bss), which count for nothing.
DEPLOY_MAP = """\
Discarded input sections

 .text._ZN5dropped   0x0000000000000000       0x40 etsb-out/bin/m/libbin_lib_kernels.a(kernels__portable__cpu__op_mul.cpp.o)

Linker script and memory map

 .text          0x0000000000401000       0x20 /usr/lib/gcc/x86_64-linux-gnu/12/../../../x86_64-linux-gnu/crt1.o
 .text.startup.main
                0x0000000000401020      0x100 etsb-out/bin/tools/runner/libdeploy_embedded_tree.a(tools__runner__deploy.cpp.o)
 .text._ZN10executorch7runtime6Method7executeEv
                0x0000000000401120     0x2000 etsb-out/bin/external/executorch/libruntime_core.a(etsb-out__external__executorch__runtime__executor__method.cpp.o)
 .text._ZN12_GLOBAL__N_18sym_sizeE
                0x0000000000403120       0x30 etsb-out/bin/m/libbin_runtime.a(etsb-out__external__executorch__kernels__prim_ops__register_prim_ops.cpp.o)
 .text._ZN5torch8executor6native10addmm_outE
                0x0000000000403150      0x400 etsb-out/bin/m/libbin_lib_kernels.a(kernels__portable__cpu__op_addmm.cpp.o)
 .text._ZN4etsb22register_model_kernelsEv
                0x0000000000403550       0x50 etsb-out/bin/m/libbin_lib.a(etsb-out__bin__m__bin_lib__register_kernels.cpp.o)
 .rodata._ZN11etsb_deployL13program_bytesE
                0x0000000000404000      0xbd0 etsb-out/bin/m/libbin_deploy.a(etsb-out__bin__m__bin_deploy.cpp.o)
 .bss._ZN11etsb_deploy11method_poolE
                0x0000000000405000     0x1000 etsb-out/bin/m/libbin_deploy.a(etsb-out__bin__m__bin_deploy.cpp.o)
"""


def test_size_splits_a_static_deploy_binary_into_its_parts():
    from selective_build.driver.size import attribute, split

    parts, operators = split(attribute(DEPLOY_MAP), 20_000)
    assert parts == {
        "C and C++ libraries, start-up": 0x20, "runner": 0x100, "ExecuTorch runtime core (static)": 0x2000,
        "ExecuTorch prim ops (static)": 0x30, "kernels": 0x400, "registration": 0x50,
        "embedded model and inputs": 0xbd0, "ELF headers, symbols, dynamic linking": 20_000 - 12_656}
    assert operators == {"addmm": 0x400}


@pytest.mark.build
def test_two_libraries_registering_one_operator_fail_the_overlap_check(workspace):
    with scratch_package(workspace / "overlap") as package:
        (package / "BUILD").write_text("""\
load("//rules:executorch.bzl", "et_operator_library", "executorch_generated_lib")
load("//rules:private/shim.bzl", "RUNNER", "RUNTIME", "etsb_cxx_binary")

et_operator_library(name = "a", ops = ["aten::relu.out", "aten::addmm.out"])
et_operator_library(name = "b", ops = ["aten::relu.out"])
executorch_generated_lib(name = "lib_a", functions_yaml_target = "//m:kernels.yaml", deps = [":a"],
                         kernel_deps = ["//m:kernels"], manual_registration = True)
executorch_generated_lib(name = "lib_b", functions_yaml_target = "//m:kernels.yaml", deps = [":b"],
                         kernel_deps = ["//m:kernels"], manual_registration = True)
etsb_cxx_binary(name = "both", srcs = ["//tools/runner:runner.cpp"], deps = [":lib_a", ":lib_b", RUNTIME])
""")
        result = etsb(workspace, "build", "//overlap:both")
        assert result.returncode != 0
        assert "operator aten::relu.out is selected by 2 libraries" in result.stdout
        assert not any(s.startswith("LINK") for s in steps(result.stdout))


# -- unknown targets, query, clean ---------------------------------------------------

PRELUDE = 'load("//rules:executorch.bzl", "et_model_binary", "et_operator_library", "executorch_generated_lib")\n'


@pytest.mark.build
def test_unknown_target_and_query(workspace):
    result = etsb(workspace, "build", "//m:nope")
    assert result.returncode != 0 and "no target 'nope' in package '//m'" in result.stderr
    listed = etsb(workspace, "query", "//m:all").stdout.split()
    assert "//m:bin" in listed and "//m:bin_all_kernels" not in listed  # manual targets only when named
    outputs = etsb(workspace, "query", "--output", "outputs", "//m:bin_ops").stdout
    assert outputs.strip() == "//m:bin_ops: etsb-out/bin/m/bin_ops/selected_operators.yaml"


@pytest.mark.build
def test_query_lists_the_operators_a_binary_registers(workspace):
    """--output ops: what the binary's generated library registers (the MLP's
    three operators), and what an et_operator_library selects."""
    expected = ["aten::addmm.out", "aten::permute_copy.out", "aten::relu.out"]
    result = etsb(workspace, "query", "--output", "ops", "//m:bin", "//m:bin_ops")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"//m:bin: {op}" for op in expected] + [
        f"//m:bin_ops: {op}" for op in expected]
    result = etsb(workspace, "query", "--output", "ops", "//m:bin_lib_bindings")
    assert result.returncode == 2 and "no target registers or selects operators" in result.stderr, result.stderr


@pytest.mark.build
def test_clean_removes_outputs_and_keeps_the_tools(tmp_path):
    root = make_workspace(tmp_path / "w")
    assert etsb(root, "build", "//m:bin_ops").returncode == 0
    (root / "etsb-out" / "tools").mkdir()
    assert etsb(root, "clean").returncode == 0
    assert sorted(os.listdir(root / "etsb-out")) == ["tools"]


# -- the commands the rules' genrules run, on bad input --------------------------


def test_pick_smaller_bad_input_names_the_file_and_writes_nothing(tmp_path, capsys):
    from selective_build.__main__ import main

    output = tmp_path / "out" / "bin"
    assert main(["pick-smaller", "--output", str(output), str(tmp_path / "missing")]) == 2
    assert f"{tmp_path}/missing: error: no such binary" in capsys.readouterr().err
    not_a_binary = tmp_path / "text"
    not_a_binary.write_text("hello")
    assert main(["pick-smaller", "--output", str(output), str(not_a_binary)]) == 2
    assert f"{not_a_binary}: error:" in capsys.readouterr().err
    binary = shutil.which("true")
    assert main(["pick-smaller", "--output", str(output), "--no-link-map", "--beside", str(tmp_path / "lib.so"),
                 binary]) == 2
    assert f"{tmp_path}/lib.so: error:" in capsys.readouterr().err
    assert not output.parent.exists()


@pytest.mark.build
def test_binaries_are_the_same_in_any_checkout_and_run_after_moving(workspace, tmp_path):
    """Nothing in a binary names the checkout's or the wheel's place: its run
    path is relative ($ORIGIN), with the runtime copied into the output tree.
    So a second checkout elsewhere links the same bytes, and a moved output
    tree still runs."""
    other = make_workspace(tmp_path / "a" / "longer" / "path" / "to" / "another" / "checkout")
    result = etsb(other, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    for output in ("bin/m/bin", "bin/runtime/libexecutorch.so"):
        assert (other / "etsb-out" / output).read_bytes() == (workspace / "etsb-out" / output).read_bytes(), output
    moved = tmp_path / "moved"
    (other / "etsb-out").rename(moved)
    run_mlp(moved / "bin/m/bin", tmp_path / "out")


def test_gen_oplist_names_a_bad_included_selection(tmp_path, capsys):
    from selective_build.__main__ import main

    bad = tmp_path / "s.yaml"
    bad.write_text("operators: [\n")
    output = tmp_path / "o.yaml"
    assert main(["gen-oplist", "--output_path", str(output), "--selection_yaml_path", str(bad),
                 "--selection_yaml_path", str(tmp_path / "none.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2:1: error:" in err and f"{tmp_path}/none.yaml: error: no such selected_operators.yaml" in err
    assert not output.exists()


def test_gen_bindings_needs_a_yaml(tmp_path, capsys):
    from selective_build.__main__ import main

    assert main(["gen-bindings", "--output-dir", str(tmp_path / "o")]) == 2
    assert "give --functions-yaml-path, --custom-ops-yaml-path or both" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# -- every attribute of the primitive rules is honoured (or refused by the evaluator) ---------


def _analysed_with_every_attribute():
    """A package whose targets set every non-inert attribute of every primitive
    rule, in every spelling, each to a value of its own; analysed."""
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    def target(rule, name, **attrs):
        return Target("p", rule, name, attrs, ())

    targets = (
        target("config_setting", "on", values={"define": "mode=on"}, define_values={"extra": "1"}),
        target("export_file", "exported", src="exported.txt"),
        target("filegroup", "group", srcs=["grouped.txt"]),
        target("genrule", "gen", srcs=["gen_input.txt"], tools=[":group"], outs=["gen_out.h"],
               cmd="touch $@ MARK_CMD", message="MARK_MESSAGE", tags=["MARK_TAG"], labels=["MARK_LABEL"]),
        target("cxx_library", "dep", srcs=["dep.cc"], exported_deps=[], linker_flags=["-lMARK_LINKER_FLAGS"],
               exported_linker_flags=["-lMARK_EXPORTED_LINKER_FLAGS"], alwayslink=True),
        target("cxx_library", "lib", srcs=["lib.cc"], hdrs=["h1.h"], headers=["h2.h"], exported_headers=[":gen"],
               deps=[], exported_deps=[":dep"], copts=["-DMARK_COPTS"], compiler_flags=["-DMARK_COMPILER_FLAGS"],
               preprocessor_flags=["-DMARK_PREPROCESSOR_FLAGS"], linkopts=["-lMARK_LINKOPTS"],
               defines={"$select": [["MARK_DEFINE"], {"$conditions": {":on": ["MARK_SELECTED"],
                                                                        "//conditions:default": []}}]},
               includes=["inc_a"], include_directories=["inc_b"], link_whole=False),
        target("cxx_library", "picked", srcs=["picked.cc"], objects_of=[":dep"], object_list="MARK_LIST.txt",
               copts=["-DMARK_PICKED_COPTS"]),
        target("cxx_binary", "bin", srcs=["main.cc"], deps=[":lib", ":picked"], copts=["-DMARK_BIN_COPTS"],
               compiler_flags=["-DMARK_BIN_COMPILER_FLAGS"], preprocessor_flags=["-DMARK_BIN_PREPROCESSOR_FLAGS"],
               linkopts=["-lMARK_BIN_LINKOPTS"], linker_flags=["-lMARK_BIN_LINKER_FLAGS"], defines=["MARK_BIN_DEFINE"],
               includes=["bin_inc_a"], include_directories=["bin_inc_b"]),
    )
    package = Package("p", "p/BUILD", ("p/BUILD",), (), targets)
    config = Config({}, {"mode": "on", "extra": "1"}, "c++", lambda path: True)
    return analyse({"p": package}, [Label("p", "bin"), Label("p", "exported"), Label("p", "gen")], config)


def test_every_attribute_spelling_reaches_the_build():
    graph = _analysed_with_every_attribute()
    text = "\n".join(" ".join([a.command, a.description, *a.inputs, *a.outputs, *a.implicit, *a.order_only])
                     for a in graph.actions)
    for mark in ("MARK_CMD", "MARK_MESSAGE", "gen_input.txt", "grouped.txt",
                 "-DMARK_COPTS", "-DMARK_COMPILER_FLAGS", "-DMARK_PREPROCESSOR_FLAGS", "-DMARK_DEFINE",
                 "-DMARK_SELECTED", "-Ip/inc_a", "-Ip/inc_b", "-lMARK_LINKOPTS", "-lMARK_LINKER_FLAGS",
                 "-lMARK_EXPORTED_LINKER_FLAGS", "p/h1.h", "p/h2.h", "etsb-out/bin/p/gen_out.h", "p/dep.cc",
                 "-DMARK_BIN_COPTS", "-DMARK_BIN_COMPILER_FLAGS", "-DMARK_BIN_PREPROCESSOR_FLAGS",
                 "-DMARK_BIN_DEFINE", "-Ip/bin_inc_a", "-Ip/bin_inc_b", "-lMARK_BIN_LINKOPTS",
                 "-lMARK_BIN_LINKER_FLAGS", "--whole-archive", "p/MARK_LIST.txt", "-DMARK_PICKED_COPTS"):
        assert mark in text, mark
    nodes = {label.name: node for label, node in graph.nodes.items()}
    assert nodes["exported"].outputs == ("p/exported.txt",)
    assert nodes["gen"].target.tags == ("MARK_TAG", "MARK_LABEL")  # Buck2's labels are tags


def _selected_define(defines, *settings):
    """The define a library's select() over ``settings`` (config_setting name ->
    define_values) chooses under the ``--define`` values ``defines``."""
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    targets = tuple(Target("p", "config_setting", name, {"define_values": values}, ()) for name, values in settings)
    choices = {f":{name}": [name.upper()] for name, _ in settings}
    choices["//conditions:default"] = ["DEFAULT"]
    library = Target("p", "cxx_library", "lib", {"srcs": ["lib.cc"], "defines": {"$select": [{"$conditions": choices}]}},
                     ())
    package = Package("p", "p/BUILD", ("p/BUILD",), (), (*targets, library))
    graph = analyse({"p": package}, [Label("p", "lib")], Config({}, defines, "c++", lambda path: True))
    return re.findall(r"-D([A-Z_]+)", " ".join(a.command for a in graph.actions))


SIZE, BOARD, SIZE_ON_BOARD = (("size", {"cfg": "size"}), ("board", {"plat": "m55"}),
                              ("size_board", {"cfg": "size", "plat": "m55"}))


@pytest.mark.parametrize("defines, chosen", [
    ({"cfg": "size", "plat": "m55"}, "SIZE_BOARD"),
    ({"plat": "m55"}, "BOARD"),
    ({"cfg": "size"}, "SIZE"),
    ({}, "DEFAULT"),
])
def test_select_prefers_the_condition_that_specialises_the_others(defines, chosen):
    assert _selected_define(defines, SIZE, BOARD, SIZE_ON_BOARD) == [chosen]


def test_select_matching_two_unrelated_conditions_is_an_error():
    from selective_build.model.errors import UserError

    with pytest.raises(UserError, match=r"select\(\) matches more than one condition: :size, :board"):
        _selected_define({"cfg": "size", "plat": "m55"}, SIZE, BOARD)


def test_analysis_reads_every_attribute_of_the_table():
    """What the table declares, analysis reads: nothing accepted and dropped (but the inert ones)."""
    from selective_build.driver.analysis import Analysis
    from selective_build.driver.primitives import RULES

    read: set[tuple[str, str]] = set()
    original = Analysis.attr

    def recording(self, target, name, default=None):
        read.add((target.rule, name))
        return original(self, target, name, default)

    Analysis.attr = recording
    try:
        _analysed_with_every_attribute()
    finally:
        Analysis.attr = original
    canonical = {(rule, name) for rule, attrs in RULES.items() for name, attr in attrs.items()
                 if not attr.same_as and not attr.inert and name not in ("name", "tags")}
    assert canonical - read == set()


# -- nothing in a BUILD file reaches a shell as code ----------------------------------------

# Shell text in a rule's attributes is refused while evaluating: tests/test_macros.py.


@pytest.mark.build
def test_shell_text_in_flags_and_defines_stays_data(workspace):
    """Compiler flags are passed as words, and a --define value reaches a genrule as one quoted word."""
    with scratch_package(workspace / "inject") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_cxx_library", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["g.txt"], cmd = "printf %s $(WORD) > $@")\n'
            "etsb_cxx_library(name = \"l\", srcs = [\"l.cc\"], copts = [\"-DX=';touch PWNED;'\", \"-DY=`touch PWNED`\"])\n")
        (package / "l.cc").write_text("const char* x = X; int y;\n".replace("X", "\"x\""))
        result = etsb(workspace, "build", "//inject:g", "//inject:l", "--define", "WORD=$(touch PWNED);`touch PWNED`")
        assert result.returncode == 0, result.stdout + result.stderr
        assert (workspace / "etsb-out/bin/inject/g.txt").read_text() == "$(touch PWNED);`touch PWNED`"
        assert not (workspace / "PWNED").exists()


@pytest.mark.build
def test_a_multi_line_genrule_command_runs_every_line(workspace):
    with scratch_package(workspace / "lines") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            "etsb_genrule(name = \"g\", srcs = [], outs = [\"g.txt\"],\n"
            "             cmd = \"echo 'one \\\\\\\\ two' > $@\\necho \\\"three\\\" >> $@\")\n")
        result = etsb(workspace, "build", "//lines:g")
        assert result.returncode == 0, result.stdout + result.stderr
        assert (workspace / "etsb-out/bin/lines/g.txt").read_text() == "one \\\\ two\nthree\n"


@pytest.mark.parametrize("command", [
    "echo 'one \\\\ two' > x\necho \"three\" >> x",
    "printf '%s\\n' 'a\\tb' > x\nprintf \"%s\\c\" end >> x\necho $'q\\'r' >> x",
    "X='it'\"'\"'s'\necho \"$X\" > x\necho `echo back` >> x",
    "cat > x <<'EOT'\n$HOME \\n literal\nEOT",
])
def test_a_multi_line_command_on_one_ninja_line_runs_as_bash_runs_it(command, tmp_path):
    from selective_build.driver.ninja import one_line_command

    line = one_line_command(command)
    assert "\n" not in line
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    expected = (tmp_path / "x").read_text()
    subprocess.run(["sh", "-c", line], cwd=tmp_path, check=True)  # ninja runs commands with /bin/sh
    assert (tmp_path / "x").read_text() == expected


# -- freshness by content, one build at a time, stopping, honest actions ------------------


def replace_keeping_an_older_time(path: Path, content: bytes) -> None:
    """What `cp -p`, `tar x` or `rsync -a` do: new content, a modification time from the past."""
    old = path.stat()
    path.write_bytes(content)
    os.utime(path, ns=(old.st_atime_ns - 10**9, old.st_mtime_ns - 10**9))


@pytest.mark.build
def test_a_model_replaced_by_an_older_file_is_rebuilt(workspace, tmp_path):
    model = workspace / "m" / "m.pte"
    original = model.read_bytes()
    try:
        replace_keeping_an_older_time(model, (MODELS_DIR / "embedding" / "embedding.pte").read_bytes())
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0, result.stdout
        assert "no kernel yaml entry" in result.stdout and "embedding" in result.stdout
    finally:
        replace_keeping_an_older_time(model, original)
    result = etsb(workspace, "build", "//m:bin")
    assert result.returncode == 0, result.stdout + result.stderr
    assert any(s.startswith("GEN //m:bin_ops") for s in steps(result.stdout))
    run_mlp(workspace / "etsb-out/bin/m/bin", tmp_path)


@pytest.mark.build
def test_a_kernel_yaml_replaced_by_an_older_file_is_rebuilt_through_the_fast_path(workspace):
    yaml = workspace / "m" / "kernels.yaml"
    original = yaml.read_bytes()
    assert "no work to do" in etsb(workspace, "build", "//m:bin").stdout  # the plan holds: the fast path
    try:
        replace_keeping_an_older_time(yaml, original.replace(b"relu_out", b"relu_gone"))
        result = etsb(workspace, "build", "//m:bin")
        assert result.returncode != 0
        assert "relu_gone" in result.stdout  # the generated source names the renamed kernel
    finally:
        replace_keeping_an_older_time(yaml, original)
    assert etsb(workspace, "build", "//m:bin").returncode == 0


@pytest.mark.build
def test_parallel_builds_in_one_workspace_are_safe(workspace, tmp_path):
    """Four rounds of two builds at once (the same target, then two different ones), each
    round after `etsb clean`: every build succeeds and every binary runs. (The workspace
    lock serialises the builds: more rounds would repeat the same interleavings.)"""
    import concurrent.futures

    package = workspace / "second"
    package.mkdir()
    try:
        (package / "BUILD").write_text(MODEL_BUILD.replace('"kernels.yaml"', '"//m:kernels.yaml"')
                                       .replace('srcs = ["kernels.cpp"]', 'srcs = ["//m:kernels.cpp"]'))
        (package / "m.pte").write_bytes((workspace / "m" / "m.pte").read_bytes())
        (workspace / "m" / "BUILD").write_text(MODEL_BUILD + 'exports_files(["kernels.yaml", "kernels.cpp"])\n')
        for round_ in range(4):
            assert etsb(workspace, "clean").returncode == 0
            targets = ("//m:bin", "//m:bin") if round_ % 2 == 0 else ("//m:bin", "//second:bin")
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                results = list(pool.map(lambda target: etsb(workspace, "build", target), targets))
            for result in results:
                assert result.returncode == 0, result.stdout + result.stderr
            for binary in {"m": "m/bin", "second": "second/bin"}.values():
                if (workspace / "etsb-out/bin" / binary).exists():
                    run_mlp(workspace / "etsb-out/bin" / binary, tmp_path / f"{round_}-{binary}")
    finally:
        shutil.rmtree(package)
        (workspace / "m" / "BUILD").write_text(MODEL_BUILD)
        assert etsb(workspace, "build", "//m:bin").returncode == 0


@pytest.mark.build
def test_a_second_build_waits_for_the_first(workspace):
    from selective_build.driver.running import WorkspaceLock

    with WorkspaceLock(str(workspace)):
        waiting = subprocess.Popen([str(ETSB), "build", "//m:bin"], cwd=workspace, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert waiting.poll() is None  # still waiting for the lock
    out, err = waiting.communicate(timeout=120)
    assert waiting.returncode == 0, out + err
    assert "another build is running in this workspace; waiting" in err


@pytest.mark.build
def test_sigterm_stops_ninja_and_its_actions(workspace):
    with scratch_package(workspace / "slow") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["g.txt"], cmd = "sleep 600 && touch $@")\n')
        build = subprocess.Popen([str(ETSB), "build", "//slow:g"], cwd=workspace, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not sleeping_processes() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert sleeping_processes(), "the action never started"
        build.send_signal(signal.SIGTERM)
        out, err = build.communicate(timeout=60)
        assert build.returncode == 128 + signal.SIGTERM, out + err
        assert "etsb: build stopped" in err
        time.sleep(0.5)
        assert not sleeping_processes()  # ninja stopped the action


def sleeping_processes() -> list[str]:
    """The `sleep 600` processes of the test above."""
    result = subprocess.run(["pgrep", "-f", "sleep 600"], capture_output=True, text=True)
    return result.stdout.split()


@pytest.mark.build
def test_an_action_that_does_not_write_its_output_fails(workspace):
    with scratch_package(workspace / "lazy") as package:
        (package / "BUILD").write_text(
            'load("//rules:executorch.bzl", "etsb_genrule")\n'
            'etsb_genrule(name = "g", srcs = [], outs = ["a.txt", "b.txt"], cmd = "touch $(location a.txt)")\n')
        result = etsb(workspace, "build", "//lazy:g")
        assert result.returncode != 0
        assert "etsb: //lazy:g did not write etsb-out/bin/lazy/b.txt" in result.stdout


def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(tmp_path):
    """Writes past a file-size limit fail as on a full disk (EFBIG; Python ignores SIGXFSZ)."""
    import resource

    out = tmp_path / "out"

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2000, 2000))

    portable = REPO / "kernels" / "portable" / "functions.yaml"
    result = subprocess.run([str(ETSB), "gen-bindings", "--functions-yaml-path", str(portable), "--output-dir",
                             str(out)], capture_output=True, text=True, preexec_fn=limit)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "cannot write: File too large" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not any(path.name.endswith(".tmp") for path in out.rglob("*"))


# -- external repositories (an ExecuTorch tree as @executorch) and .etsbrc ------------------


def test_labels_of_external_repositories():
    from selective_build.driver.labels import Label, LabelError, package_label, parse_label

    tree = parse_label("@executorch//kernels/portable:kernels", "examples/x")
    assert tree == Label("external/executorch/kernels/portable", "kernels")
    assert str(tree) == "@executorch//kernels/portable:kernels"
    assert tree.path == "etsb-out/external/executorch/kernels/portable/kernels"
    # Inside the repository, // is the repository's own root; @// is the main one.
    assert parse_label("//kernels/portable/cpu:x", tree.package) == Label("external/executorch/kernels/portable/cpu", "x")
    assert parse_label(":y", tree.package) == Label("external/executorch/kernels/portable", "y")
    assert parse_label("@//runtime:executorch", tree.package) == Label("runtime", "executorch")
    # @etsb is the main repository where the workspace is etsb's.
    assert parse_label("@etsb//runtime:executorch", "x", ("etsb",)) == Label("runtime", "executorch")
    assert parse_label("@etsb//runtime:executorch", "x") == Label("external/etsb/runtime", "executorch")
    assert package_label("external/executorch/kernels") == "@executorch//kernels"
    for bad, message in (("//external/executorch/kernels:k", "reserved for external repositories"),
                         ("@executorch:k", "no '//' after its repository name"),
                         ("@a b//x:y", "bad repository name")):
        with pytest.raises(LabelError, match=message):
            parse_label(bad, "x")


def test_rc_files_give_options_per_command(tmp_path):
    from selective_build.driver.rc import rc_arguments

    (tmp_path / ".etsbrc").write_text("# comment\ncommon --executorch-root=../tree  # trailing\n"
                                      "build --define a=1\nquery --executorch-root /abs\n")
    assert rc_arguments(str(tmp_path), "build") == [f"--executorch-root={tmp_path}/../tree", "--define", "a=1"]
    assert rc_arguments(str(tmp_path), "query") == [f"--executorch-root={tmp_path}/../tree",
                                                    "--executorch-root", "/abs"]
    assert rc_arguments(str(tmp_path / "none"), "build") == []
    (tmp_path / ".etsbrc").write_bytes(b"\xff\xfe")
    with pytest.raises(ValueError, match="cannot read it"):
        rc_arguments(str(tmp_path), "build")


def test_objects_of_must_name_a_cxx_library_and_object_list_one_file():
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label
    from selective_build.model.errors import UserError

    def target(rule, name, **attrs):
        return Target("p", rule, name, attrs, ())

    targets = (
        target("filegroup", "files", srcs=["a.txt", "b.txt"]),
        target("cxx_library", "lib", srcs=["lib.cc"]),
        target("cxx_library", "not_a_library", objects_of=[":files"], object_list="list.txt"),
        target("cxx_library", "two_lists", objects_of=[":lib"], object_list=":files"),
    )
    package = Package("p", "p/BUILD", ("p/BUILD",), (), targets)
    with pytest.raises(UserError) as info:
        analyse({"p": package}, [Label("p", "not_a_library"), Label("p", "two_lists")],
                Config({}, {}, "c++", lambda path: True))
    messages = [problem.message for problem in info.value.problems]
    assert any("objects_of: ':files' is not a cxx_library" in m for m in messages), messages
    assert any("object_list stands for 2 files; it must name one" in m for m in messages), messages


def test_every_rule_of_the_table_has_an_analysis():
    from selective_build.driver.graph import RULE_ANALYSES
    from selective_build.driver.primitives import RULES

    assert sorted(RULE_ANALYSES) == sorted(RULES)


def _select_action(sources: list[str], own: list[str] = ()):
    """The action choosing the objects of `picked`, which takes some of `lib`'s (made of ``sources``)."""
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    targets = (Target("p", "cxx_library", "lib", {"srcs": sources}, ()),
               Target("p", "cxx_library", "picked", {"srcs": list(own), "objects_of": [":lib"],
                                                     "object_list": "list.txt"}, ()))
    graph = analyse({"p": Package("p", "p/BUILD", ("p/BUILD",), (), targets)}, [Label("p", "picked")],
                    Config({}, {}, "c++", lambda path: True))
    (action,) = [a for a in graph.actions if a.description.startswith("SELECT")]
    return action


def _run_select(action, tmp_path: Path, selected: str) -> subprocess.CompletedProcess:
    """Run ``action`` in ``tmp_path`` as ninja would, ``selected`` being the list of selected sources."""
    (tmp_path / action.rspfile).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / action.rspfile).write_text(action.rspfile_content)
    (tmp_path / action.inputs[0]).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / action.inputs[0]).write_text(selected)
    return subprocess.run(["sh", "-c", action.command], cwd=tmp_path, capture_output=True, text=True)


def test_the_dyndep_program_makes_the_selected_objects_inputs_of_the_archive(tmp_path):
    action = _select_action(["a.cc", "b.cc", "c.cc"])
    result = _run_select(action, tmp_path, "p/c.cc\n\np/a.cc\n")
    assert result.returncode == 0, result.stderr
    dyndep, members = (tmp_path / path for path in action.outputs)
    objects = ["etsb-out/obj/p/lib/p__c.cc.o", "etsb-out/obj/p/lib/p__a.cc.o"]
    assert members.read_text() == "".join(f"{o}\n" for o in objects)
    assert dyndep.read_text() == ("ninja_dyndep_version = 1\n"
                                  f"build etsb-out/bin/p/libpicked.a: dyndep | {' '.join(objects)}\n")
    assert _run_select(action, tmp_path, "").returncode == 0
    assert members.read_text() == ""
    assert dyndep.read_text() == "ninja_dyndep_version = 1\nbuild etsb-out/bin/p/libpicked.a: dyndep\n"


@pytest.mark.parametrize("sources", [["a.cc"], []], ids=["other sources", "no source at all"])
def test_the_dyndep_program_refuses_a_source_it_cannot_take(tmp_path, sources):
    result = _run_select(_select_action(sources), tmp_path, "p/z.cc\n")
    assert result.returncode == 1
    assert result.stderr == "etsb: //p:picked: p/z.cc is not a source of its objects_of libraries\n"


def test_the_link_line_keeps_the_order_the_linker_needs():
    from selective_build.driver.link import LinkLine

    line = LinkLine(output="bin/x", objects=("x.o",), archives=(("liba.a", True), ("libb.a", False)),
                    shared_libraries=("lib/s.so",), linker_scripts=("backends.ld",), linker_inputs=("lib/t.so",),
                    flags=("-lm",), run_path=("$ORIGIN", "$ORIGIN/../lib"))
    assert line.command("c++") == (
        "c++ -o bin/x x.o -Wl,--whole-archive liba.a -Wl,--no-whole-archive libb.a lib/s.so "
        "-Wl,--push-state,--no-as-needed backends.ld -Wl,--pop-state -lm '-Wl,-rpath,$ORIGIN:$ORIGIN/../lib' "
        "-Wl,--gc-sections -Wl,-Map=bin/x.map")
    assert line.inputs == ("x.o", "liba.a", "libb.a", "lib/s.so", "backends.ld", "lib/t.so")


@pytest.mark.build
def test_every_compile_runs_under_the_launcher_and_no_link_does(tmp_path, monkeypatch):
    """ETSB_CXX_LAUNCHER (a compiler cache, in practice) prefixes each compile;
    a change of it is a new plan, so the objects are made again under it."""
    root = new_workspace(tmp_path / "ws")
    (root / "app").mkdir()
    (root / "app" / "main.cpp").write_text("int helper();\nint main() { return helper(); }\n")
    (root / "app" / "helper.cpp").write_text("int helper() { return 0; }\n")
    (root / "app" / "BUILD").write_text('load("//rules:executorch.bzl", "etsb_cxx_binary", "etsb_cxx_library")\n'
                                        'etsb_cxx_library(name = "helper", srcs = ["helper.cpp"])\n'
                                        'etsb_cxx_binary(name = "app", srcs = ["main.cpp"], deps = [":helper"])\n')
    log = tmp_path / "launched.txt"
    launcher = tmp_path / "launcher.sh"
    launcher.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec "$@"\n')
    launcher.chmod(0o755)
    assert run_etsb("build", "//app:app", cwd=root).returncode == 0
    assert not log.exists()
    monkeypatch.setenv("ETSB_CXX_LAUNCHER", str(launcher))
    result = run_etsb("build", "//app:app", cwd=root)
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and all(" -c " in line for line in lines), lines
    assert subprocess.run([str(root / "etsb-out" / "bin" / "app" / "app")]).returncode == 0
