"""The build driver's analysis, without building: every attribute of the
primitive rules reaches the build, select() conditions, labels of external
repositories and .etsbrc options, objects_of, the dyndep program that picks a
library's objects, the link line's order, and the compiler launcher."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from helpers import new_workspace
from selective_build.driver.platforms import output_dir

# The output folder of an analysis given no --platform or --config (Config's default).
OUT = output_dir({})
from helpers import etsb as run_etsb


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
                 "-lMARK_EXPORTED_LINKER_FLAGS", "p/h1.h", "p/h2.h", f"{OUT}/bin/p/gen_out.h", "p/dep.cc",
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


def test_the_packages_of_select_conditions_are_evaluated_whatever_the_attribute():
    """A select() of compile flags names config_setting targets as a select() of
    deps does: their packages are evaluated too (the deploy runner's copts select
    on //rules:count_instructions, whose package nothing else may name)."""
    from selective_build.driver.attr_values import referenced_packages
    from selective_build.driver.evaluate import Package, Target

    def selecting(attr: str, setting: str):
        return Target("p", "cxx_library", "lib", {"srcs": ["lib.cc"], attr: {"$select": [
            ["-DALWAYS"], {"$conditions": {setting: ["-DCHOSEN"], "//conditions:default": []}}]}}, ())

    for attr, setting in (("copts", "//settings:counting"), ("defines", "@other//flags:on"),
                          ("deps", "//choice:picked")):
        package = Package("p", "p/BUILD", ("p/BUILD",), (), (selecting(attr, setting),))
        assert referenced_packages(package) == {setting.split(":")[0].replace("@other//", "external/other/")
                                                .removeprefix("//")}, attr


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


def _select_action(sources: list[str], own: list[str] = (), copts: list[str] = ()):
    """The action choosing the objects of `picked`, which takes some of `lib`'s (made of ``sources``;
    compiled again by `picked` with ``copts`` if any)."""
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    targets = (Target("p", "cxx_library", "lib", {"srcs": sources}, ()),
               Target("p", "cxx_library", "picked", {"srcs": list(own), "objects_of": [":lib"],
                                                     "object_list": "list.txt", "copts": list(copts)}, ()))
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
    objects = [f"{OUT}/obj/p/lib/p__c.cc.o", f"{OUT}/obj/p/lib/p__a.cc.o"]
    assert members.read_text() == "".join(f"{o}\n" for o in objects)
    assert dyndep.read_text() == ("ninja_dyndep_version = 1\n"
                                  f"build {OUT}/bin/p/libpicked.a: dyndep | {' '.join(objects)}\n")
    assert _run_select(action, tmp_path, "").returncode == 0
    assert members.read_text() == ""
    assert dyndep.read_text() == f"ninja_dyndep_version = 1\nbuild {OUT}/bin/p/libpicked.a: dyndep\n"


@pytest.mark.parametrize("copts", [["-DX"], []], ids=["own compiles", "the library's objects"])
def test_a_source_marked_plain_takes_the_object_its_library_compiles(tmp_path, copts):
    """``=source`` (kernel-sources --mark-plain): the library's own object even
    where `picked` compiles the others again with flags of its own."""
    result = _run_select(_select_action(["a.cc", "b.cc"], copts=copts), tmp_path, "p/a.cc\n=p/b.cc\n")
    assert result.returncode == 0, result.stderr
    own = f"{OUT}/obj/p/picked" if copts else f"{OUT}/obj/p/lib"
    members = (tmp_path / f"{OUT}/bin/p/libpicked.a.objects").read_text()
    assert members == f"{own}/p__a.cc.o\n{OUT}/obj/p/lib/p__b.cc.o\n"
    failed = _run_select(_select_action(["a.cc"], copts=copts), tmp_path, "=p/z.cc\n")
    assert failed.returncode == 1
    assert failed.stderr == "etsb: //p:picked: p/z.cc is not a source of its objects_of libraries\n"


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


def _guarded_graph(direct: bool = False):
    """`bin` linking `picked`, which takes some of `lib`'s objects; `lib` depends on
    the plain library `dep` (and, with ``direct``, so does `bin`)."""
    from selective_build.driver.evaluate import Package, Target
    from selective_build.driver.graph import Config, analyse
    from selective_build.driver.labels import Label

    targets = (Target("p", "cxx_library", "dep", {"srcs": ["d.cc"]}, ()),
               Target("p", "cxx_library", "lib", {"srcs": ["a.cc", "b.cc"], "deps": [":dep"]}, ()),
               Target("p", "cxx_library", "picked", {"objects_of": [":lib"], "object_list": "list.txt"}, ()),
               Target("p", "cxx_binary", "bin", {"srcs": ["main.cc"],
                                                 "deps": [":picked"] + ([":dep"] if direct else [])}, ()))
    return analyse({"p": Package("p", "p/BUILD", ("p/BUILD",), (), targets)}, [Label("p", "bin")],
                   Config({}, {}, "c++", lambda path: True))


def test_a_library_below_an_objects_of_library_is_linked_only_when_one_of_its_sources_is_selected(tmp_path):
    """CMSIS-NN below ExecuTorch's Cortex-M kernels: not compiled for a model that takes none of them."""
    graph = _guarded_graph()
    (select,) = [a for a in graph.actions if a.description.startswith("SELECT")]
    (link,) = [a for a in graph.actions if a.description.startswith("LINK")]
    dep, condition = f"{OUT}/bin/p/libdep.a", f"{OUT}/bin/p/libpicked.a.link0"
    assert condition in select.outputs and condition in link.inputs and dep not in link.inputs
    assert f" @{condition} " in link.command and f" {dep} " not in link.command
    dyndep, _, written = (tmp_path / path for path in select.outputs)
    assert _run_select(select, tmp_path, "").returncode == 0
    assert written.read_text() == ""
    assert dyndep.read_text() == f"ninja_dyndep_version = 1\nbuild {OUT}/bin/p/libpicked.a: dyndep\n"
    assert _run_select(select, tmp_path, "p/b.cc\n").returncode == 0
    assert written.read_text() == f"{dep}\n"
    assert dyndep.read_text() == (f"ninja_dyndep_version = 1\nbuild {OUT}/bin/p/libpicked.a: dyndep | "
                                  f"{OUT}/obj/p/lib/p__b.cc.o {dep}\n")


def test_a_library_the_binary_reaches_otherwise_is_always_linked():
    (link,) = [a for a in _guarded_graph(direct=True).actions if a.description.startswith("LINK")]
    assert f"{OUT}/bin/p/libdep.a" in link.inputs and "@" not in link.command
