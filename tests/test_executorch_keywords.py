"""Every keyword of ExecuTorch's own Buck2 macros (`et_operator_library` and
`executorch_generated_lib` in its `shim_et/xplat/executorch/codegen/codegen.bzl`)
taken by etsb's rules of the same name: with ExecuTorch's meaning where etsb has
the concept, refused at the BUILD line where it cannot (ATen), and Buck2's
bookkeeping accepted (`labels` joined to `tags`). Evaluated by `etsb query`;
nothing is built. The table of docs/rules.md is checked against the signatures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import REPO
from helpers import etsb
from macros_helpers import bad_package, make_workspace, query_runner

# ExecuTorch's two signatures, keyword for keyword (the `**kwargs` of et_operator_library
# are its genrule's: visibility, labels, platforms, define_static_targets).
OPERATOR_LIBRARY = ["ops", "ops_dict", "model", "include_all_operators", "ops_schema_yaml_target",
                    "server_generated_yaml_target"]
OPERATOR_LIBRARY_KWARGS = ["visibility", "labels", "platforms", "define_static_targets"]
GENERATED_LIB = ["functions_yaml_target", "custom_ops_yaml_target", "fallback_yaml_target", "define_static_targets",
                 "custom_ops_aten_kernel_deps", "custom_ops_requires_runtime_registration",
                 "custom_ops_requires_aot_registration", "visibility", "aten_mode", "manual_registration",
                 "use_default_aten_ops_lib", "deps", "xplat_deps", "fbcode_deps", "platforms", "compiler_flags",
                 "kernel_deps", "dtype_selective_build", "feature", "compatible_with", "expose_operator_symbols",
                 "support_exceptions", "include_all_prim_ops"]

EVERY_KEYWORD = '''load("//rules:executorch.bzl", "ScalarType", "et_kernel_library", "et_operator_library", "executorch_generated_lib")
et_kernel_library(name = "kernels", srcs = ["kernels.cpp"])
cxx_library(name = "extra", srcs = ["kernels.cpp"])
et_operator_library(
    name = "ops",
    ops = ["aten::add.out"],
    ops_dict = {"aten::mm.out": [ScalarType("Float"), "v1/6;0,1|6;0,1|6;0,1"]},
    model = "m.pte",
    include_all_operators = False,
    ops_schema_yaml_target = "kernels.yaml",
    server_generated_yaml_target = "server.yaml",
    visibility = ["PUBLIC"],
    labels = ["from_buck"],
    platforms = ["CXX"],
    define_static_targets = True,
)
executorch_generated_lib(
    name = "lib",
    functions_yaml_target = "kernels.yaml",
    custom_ops_yaml_target = None,
    fallback_yaml_target = "vendor.yaml",
    define_static_targets = True,
    custom_ops_aten_kernel_deps = [],
    custom_ops_requires_runtime_registration = True,
    custom_ops_requires_aot_registration = True,
    visibility = ["PUBLIC"],
    aten_mode = False,
    manual_registration = False,
    use_default_aten_ops_lib = True,
    deps = [":ops"],
    xplat_deps = [":extra"],
    fbcode_deps = ["//fbcode:only"],
    platforms = ["CXX", "ANDROID"],
    compiler_flags = ["-DFROM_CALLER=1"],
    kernel_deps = [":kernels"],
    dtype_selective_build = True,
    feature = "some_feature",
    compatible_with = ["ovr_config//cpu:x86_64"],
    expose_operator_symbols = True,
    support_exceptions = False,
    include_all_prim_ops = True,
    labels = ["from_buck"],
)
'''


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """tests/test_macros.py's workspace, with package `every` calling both macros with every keyword."""
    root = make_workspace(tmp_path_factory.mktemp("keywords") / "w")
    package = root / "every"
    package.mkdir()
    for name in ("kernels.yaml", "kernels.cpp", "m.pte", "vendor.yaml"):
        (package / name).write_bytes((root / "m" / name).read_bytes())
    (package / "server.yaml").write_text("include_all_operators: false\noperators: {}\n")
    (package / "BUILD").write_text(EVERY_KEYWORD)
    return root


@pytest.fixture(scope="module")
def every(workspace) -> dict[str, dict]:
    result = etsb("query", "--output", "json", "//every:all", cwd=workspace)
    assert result.returncode == 0, result.stderr
    return {target["label"].removeprefix("//every:"): target["attrs"] for target in json.loads(result.stdout)}


@pytest.fixture
def query(workspace, monkeypatch, capsys):
    return query_runner(workspace, monkeypatch, capsys)


def test_a_call_with_every_keyword_of_both_signatures_is_accepted(every):
    assert {"ops", "lib", "lib_static", "lib_bindings"} <= set(every)


def test_the_keywords_etsb_has_mean_what_they_mean_in_executorch(every):
    ops = every["ops"]
    # server_generated_yaml_target is one more operator list of the union; labels are tags.
    assert "--selection_yaml_path $(location server.yaml)" in ops["cmd"] and "server.yaml" in ops["srcs"]
    assert ops["tags"] == ["from_buck"]
    assert "--ops_dict '{\"aten::mm.out\":[\"Float\",\"v1/6;0,1|6;0,1|6;0,1\"]}'" in ops["cmd"]
    lib = every["lib"]
    assert lib["copts"][-2:] == ["-DFROM_CALLER=1", "-fno-exceptions"]
    assert ":extra" in lib["deps"] and "from_buck" in lib["tags"] and lib["visibility"] == ["PUBLIC"]
    # define_static_targets: ExecuTorch's `<name>_static`, the same (static) library.
    assert every["lib_static"]["deps"] == [":lib"] and every["lib_static"]["link_whole"] is True


def test_support_exceptions_by_default_adds_no_flag(query, workspace):
    with bad_package(workspace, 'executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", '
                                'kernel_deps = ["//m:kernels"])\n'):
        code, out, errors = query("//bad:l", "--output", "json")
    assert code == 0, errors
    assert "-fno-exceptions" not in json.loads(out)[0]["attrs"]["copts"]


def test_custom_ops_without_runtime_registration_define_no_library(query, workspace):
    with bad_package(workspace, 'executorch_generated_lib(name = "l", custom_ops_yaml_target = "c.yaml", '
                                'kernel_deps = ["//m:kernels"], custom_ops_requires_runtime_registration = False)\n'
                                'filegroup(name = "other", srcs = [])\n'):
        code, out, errors = query("//bad:all")
    assert code == 0, errors
    assert out.split() == ["//bad:other"]


@pytest.mark.parametrize("call, message", [
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'aten_mode = True)',
     "executorch_generated_lib 'l': aten_mode = True builds against ATen kernels and tensors, which etsb does not have"),
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'custom_ops_aten_kernel_deps = [":aten_kernels"])',
     "custom_ops_aten_kernel_deps names ATen kernels for PyTorch's side (:aten_kernels), which etsb does not build"),
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'expose_operator_symbols = True)',
     "expose_operator_symbols is for dtype-selective builds only"),
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'compiler_flags = "-O2")',
     "attribute 'compiler_flags' must be a list of strings, got string"),
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'support_exceptions = "no")',
     "attribute 'support_exceptions' must be True or False, got string"),
    ('executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", kernel_deps = ["//m:kernels"], '
     'xplat_deps = ["bad label"])',
     "attribute 'xplat_deps': \"bad label\" is not a label or file name etsb accepts"),
    ('et_operator_library(name = "o", ops = ["aten::add.out"], labels = "mine")',
     "et_operator_library 'o': attribute 'labels' must be a list of strings, got string"),
    ('et_operator_library(name = "o", server_generated_yaml_target = ["s.yaml"])',
     "attribute 'server_generated_yaml_target' must be a string, got list"),
    ('et_operator_library(name = "o", ops_dict = {"aten::add.out": [ScalarType("Floot")]})',
     "ScalarType: 'Floot' is not a dtype of ExecuTorch's"),
    ('et_operator_library(name = "o", ops = ["aten::add.out"], xplat_deps = [])',
     "et_operator_library 'o': unknown attribute 'xplat_deps'"),
])
def test_what_etsb_cannot_have_is_refused_at_the_build_line(query, workspace, call, message):
    load = 'load("//rules:executorch.bzl", "ScalarType", "et_operator_library", "executorch_generated_lib")\n'
    with bad_package(workspace, load + call + "\n"):
        code, out, errors = query("//bad:all")
    assert code != 0 and out == "" and "File \"" not in errors
    assert "bad/BUILD:2:" in errors and message in errors, errors


def test_docs_rules_md_tabulates_every_keyword_of_both_signatures():
    """docs/rules.md has, for each macro, a row per keyword of ExecuTorch's signature:
    ExecuTorch's meaning and etsb's."""
    text = (REPO / "docs" / "rules.md").read_text()
    for rule, keywords in (("et_operator_library", OPERATOR_LIBRARY + OPERATOR_LIBRARY_KWARGS),
                           ("executorch_generated_lib", GENERATED_LIB)):
        section = text.split(f"### ExecuTorch's keywords of `{rule}`")[1].split("\n## ")[0]
        rows = re.findall(r"^\| `(\w+)` \| (.+?) \| (.+?) \|$", section, re.MULTILINE)
        assert {name for name, _, _ in rows} >= set(keywords), sorted(set(keywords) - {n for n, _, _ in rows})
        assert all(theirs and ours for _, theirs, ours in rows)


def test_a_prim_op_selection_compiles_executorch_s_prim_ops_with_its_header(query, workspace):
    """include_all_prim_ops = False: the bindings write selected_prim_ops.h, and the library
    links `<name>_prim_ops` (ExecuTorch's prim ops compiled with it), against the tree's
    runtime, which the call did not have to name."""
    with bad_package(workspace, 'et_operator_library(name = "o", ops = ["aten::add.out", '
                                '"executorch_prim::et_view.default"])\n'
                                'executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", '
                                'kernel_deps = ["//m:kernels"], deps = [":o"], include_all_prim_ops = False)\n'):
        code, out, errors = query("//bad:all", "--output", "json")
    assert code == 0, errors
    found = {target["label"].removeprefix("//bad:"): target["attrs"] for target in json.loads(out)}
    assert "--prim-ops-header-output $(location l/selected_prim_ops.h)" in found["l_bindings"]["cmd"]
    assert "l/selected_prim_ops.h" in found["l_bindings"]["outs"]
    assert ":l_prim_ops" in found["l"]["deps"] and "@executorch//:runtime_core" in found["l"]["deps"]
    prim_ops = found["l_prim_ops"]
    assert prim_ops["srcs"] == ["@executorch//:prim_ops_sources"] and prim_ops["link_whole"] is True
    assert "-DET_PRIM_OPS_SELECTIVE_BUILD" in prim_ops["copts"]


def test_a_prim_op_selection_on_the_wheels_runtime_is_refused(query, workspace):
    with bad_package(workspace, 'executorch_generated_lib(name = "l", functions_yaml_target = "k.yaml", '
                                'kernel_deps = ["//m:kernels"], include_all_prim_ops = False, runtime = "shared")\n'):
        code, _, errors = query("//bad:all")
    assert code != 0 and "bad/BUILD:2:1" in errors
    assert ("include_all_prim_ops = False registers only the selected prim ops, which the wheel's runtime "
            "(runtime = \"shared\") cannot") in errors


def test_gen_bindings_leaves_prim_ops_to_their_registry_and_writes_their_header(tmp_path):
    """Prim ops named in an operator list need no kernel: the registration holds the
    ATen operators' kernels only, and selected_prim_ops.h selects the prim ops; a
    selection naming none gives an empty header (every prim op, as ExecuTorch's)."""
    yaml = REPO / "kernels" / "portable" / "functions.yaml"
    for ops, expected in (("aten::add.out,executorch_prim::et_view.default,aten::sym_size.int",
                           ["INCLUDE_ATEN_SYM_SIZE_INT", "INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT"]),
                          ("aten::add.out", [])):
        selection, out = tmp_path / "s.yaml", tmp_path / "out"
        out.mkdir(exist_ok=True)
        assert etsb("gen-oplist", "--output_path", str(selection), "--root_ops", ops).returncode == 0
        result = etsb("gen-bindings", "--functions_yaml_path", str(yaml), "--op_selection_yaml_path",
                      str(selection), "--output_dir", str(out), "--prim-ops-header-output",
                      str(out / "selected_prim_ops.h"))
        assert result.returncode == 0, result.stderr
        header = (out / "selected_prim_ops.h").read_text()
        assert re.findall(r"#define (INCLUDE_\w+)", header) == expected
        assert ("#define EXECUTORCH_ENABLE_PRIM_OPS_SELECTIVE_BUILD" in header) == bool(expected)
        source = (out / "register_kernels.cpp").read_text()
        assert '"aten::add.out"' in source and "et_view" not in source and "sym_size" not in source
