"""etsb's public rules tested without building, as skylib's unittest.bzl and
rules_python's analysis tests test macros: BUILD files in a workspace of their
own are evaluated by `etsb query` (the Go evaluator and the driver's target
graph; nothing runs, nothing compiles), and each call's expansion is checked:
its targets' names, rules, tags, genrule commands, sources and dependencies.
Bad calls, refused at the BUILD line with a backtrace while evaluating, are
tests/test_macro_errors.py's. The module takes a few seconds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import etsb
from test_pch_shared import REGISTRATION_PRECOMPILED
from macros_helpers import CALLS, bad_package, make_workspace, query_runner

# What every genrule running etsb's tool starts with, and its tools, as etsb's driver spells them.
ETSB = "$(ETSB_PYTHON) $(location @etsb//tools/selective_build:etsb)"
TOOLS = ["@etsb//tools/selective_build:etsb", "@etsb//tools/selective_build:sources"]
RUNTIME = "@etsb//runtime:executorch"
RUNNER = "@etsb//tools/runner:runner"
SIZE_CONFIG = "@etsb//rules:size_config"


def runner_of(name: str) -> dict:
    """The runner a model binary `name` links: the deploy runner with its deploy source in the
    size configuration or on a bare-metal platform, else the development runner (a select(),
    as the evaluator writes it)."""
    deploy = ["@etsb//tools/runner:deploy", f":{name}_deploy"]
    boards = {f"@etsb//rules:{board}{suffix}": deploy
              for board in ("cortex_m55", "cortex_m4", "cortex_m33") for suffix in ("", "_size")}
    return {"$conditions": {"//conditions:default": [RUNNER], SIZE_CONFIG: deploy, **boards}}
CXX17 = "-std=c++17"
PUBLIC = ["//visibility:public"]

# Targets tagged `manual`, which `:all` leaves out: queried by name.
MANUAL = ["bin_all_kernels", "bin_all_kernels_ops", "bin_all_kernels_lib", "small_dtype_selective",
          "small_op_selective", "small_all_kernels", "bin_deploy", "bin_deploy_source", "ship_deploy",
          "ship_deploy_source", "two_all_kernels"]
# The same, made in etsb's driver and Bazel only: the shipped form of the default runtime.
SHIPPED = ["two_shipped_lib", "two_shipped_lib_bindings", "two_shipped_lib_op_variants", "two_shipped_runtime",
           "two_all_kernels_shipped_lib", "two_deploy_source"]


def line_of(call: str) -> int:
    """The BUILD line of `call` (the load is line 1)."""
    return 2 + list(CALLS).index(call)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A workspace with etsb's rules and a package `m` holding the calls and the files they name."""
    return make_workspace(tmp_path_factory.mktemp("macros") / "w")


@pytest.fixture(scope="module")
def targets(workspace) -> dict[str, dict]:
    """Every target of package `m`, by name: its rule, location and attributes."""
    result = etsb("query", "--output", "json", "//m:all", *(f"//m:{name}" for name in MANUAL + SHIPPED),
                  cwd=workspace)
    assert result.returncode == 0, result.stderr
    return {target["label"].removeprefix("//m:"): target for target in json.loads(result.stdout)}


def made_by(targets: dict[str, dict], call: str) -> dict[str, str]:
    """The targets `call` made (those located at its line), name -> rule."""
    return {name: target["rule"] for name, target in targets.items()
            if target["location"] == f"m/BUILD:{line_of(call)}:1"}


def attrs(targets: dict[str, dict], name: str, *keys: str) -> dict:
    """The attributes `keys` of target `name`."""
    return {key: targets[name]["attrs"][key] for key in keys}


def test_the_calls_resolve_to_a_whole_graph_without_building(workspace):
    """Every label the expansions name resolves (`--output deps` checks each),
    and nothing is built: no output tree appears."""
    result = etsb("query", "--output", "deps", "//m:all", *(f"//m:{name}" for name in MANUAL), cwd=workspace)
    assert result.returncode == 0, result.stderr
    assert "//m:kernels_hdrs" in result.stdout.split()
    assert not (workspace / "etsb-out" / "bin").exists()


def test_et_kernel_library_is_a_library_and_its_files(targets):
    assert made_by(targets, "kernels") == {"kernels": "cxx_library", "kernels_srcs": "filegroup",
                                           "kernels_hdrs": "filegroup"}
    assert attrs(targets, "kernels", "srcs", "hdrs", "deps", "copts", "link_whole", "tags", "visibility") == {
        "srcs": ["kernels.cpp", "kernels.h"], "hdrs": ["kernels.h"], "deps": [RUNTIME],
        "copts": [CXX17, "-DFAST=1"], "link_whole": False, "tags": ["k"], "visibility": PUBLIC}
    assert attrs(targets, "kernels_srcs", "srcs", "tags") == {"srcs": ["kernels.cpp"], "tags": ["k"]}
    assert attrs(targets, "kernels_hdrs", "srcs", "tags") == {"srcs": ["kernels.h"], "tags": ["k"]}


def test_et_operator_library_is_one_genrule_with_every_source_as_an_argument(targets):
    assert made_by(targets, "ops") == {"ops": "genrule"}
    assert attrs(targets, "ops", "srcs", "outs", "cmd", "tools", "tags", "testonly") == {
        "srcs": [], "outs": ["ops/selected_operators.yaml"],
        # The names as written, one shell word (the tool adds a missing `aten::`).
        "cmd": f"{ETSB} gen-oplist --output_path $(location ops/selected_operators.yaml) "
               "--root_ops 'aten::add.out,mul.out'",
        "tools": TOOLS, "tags": ["mine"], "testonly": False}
    assert made_by(targets, "everything") == {"everything": "genrule"}
    assert attrs(targets, "everything", "srcs", "cmd", "testonly") == {
        "srcs": ["m.pte", "kernels.yaml", ":ops"],
        "cmd": f"{ETSB} gen-oplist --output_path $(location everything/selected_operators.yaml) "
               """--ops_dict '{"aten::add.out":["Float"]}' --model_file_path $(location m.pte) """
               "--ops_schema_yaml_path $(location kernels.yaml) --selection_yaml_path $(location :ops) "
               "--backends XnnpackBackend --include_all_operators",
        "testonly": True}


def test_merge_yaml_is_one_genrule_vendor_first(targets):
    assert made_by(targets, "merged") == {"merged": "genrule"}
    assert attrs(targets, "merged", "srcs", "outs", "cmd", "tools") == {
        "srcs": ["vendor.yaml", "kernels.yaml"], "outs": ["merged/merged.yaml"],
        "cmd": f"{ETSB} merge-yaml --functions_yaml_path $(location vendor.yaml) "
               "--fallback_yaml_path $(location kernels.yaml) --output_dir $(RULEDIR)/merged",
        "tools": TOOLS}


def test_executorch_generated_lib_selects_binds_and_compiles_only_the_selected_sources(targets):
    assert made_by(targets, "lib") == {
        "lib": "cxx_library", "lib_selected_operators": "genrule", "lib_bindings": "genrule",
        "lib_kernel_sources": "genrule", "lib_library_files_0": "filegroup", "lib_kernels": "cxx_library"}
    # Registered at start-up: linked whole; the driver's overlap check reads the tag.
    assert attrs(targets, "lib", "srcs", "deps", "link_whole", "linker_scripts", "linker_inputs", "tags") == {
        "srcs": [":lib_bindings"], "deps": [":lib_kernels", RUNTIME], "link_whole": True,
        "linker_scripts": [":lib/backends.ld"], "linker_inputs": [],
        "tags": ["etsb_registers=:lib_selected_operators",
                 # what register_kernels.cpp includes first, precompiled once for the build's registration libraries
                 *(f"etsb_precompile={header}" for header in REGISTRATION_PRECOMPILED)]}
    assert attrs(targets, "lib_selected_operators", "srcs", "cmd") == {
        "srcs": [":ops"],
        "cmd": f"{ETSB} gen-oplist --output_path $(location lib_selected_operators/selected_operators.yaml) "
               "--selection_yaml_path $(location :ops)"}
    assert attrs(targets, "lib_bindings", "srcs", "outs", "cmd") == {
        "srcs": ["kernels.yaml", ":lib_selected_operators"],
        "outs": ["lib/register_kernels.cpp", "lib/NativeFunctions.h", "lib/CustomOpsNativeFunctions.h",
                 "lib/Functions.h", "lib/backends.ld"],
        "cmd": f"{ETSB} gen-bindings --functions_yaml_path $(location kernels.yaml) "
               "--op_selection_yaml_path $(location :lib_selected_operators) "
               "--backends_output $(location lib/backends.ld) --lib_name lib --output_dir $(RULEDIR)/lib"}
    assert attrs(targets, "lib_kernel_sources", "srcs", "outs", "cmd") == {
        "srcs": [":lib_selected_operators", "kernels.yaml", ":lib_library_files_0"],
        "outs": ["lib/kernel_sources.txt"],
        "cmd": f"{ETSB} kernel-sources --op_selection_yaml_path $(location :lib_selected_operators) "
               "--functions_yaml_path $(location kernels.yaml) --output $(location lib/kernel_sources.txt) "
               "--library ':kernels' $(locations :lib_library_files_0)"}
    assert attrs(targets, "lib_library_files_0", "srcs") == {"srcs": [":kernels_srcs", ":kernels_hdrs"]}
    # The kernel library's objects, only those the list names.
    assert attrs(targets, "lib_kernels", "srcs", "copts", "objects_of", "object_list") == {
        "srcs": [], "copts": [CXX17], "objects_of": [":kernels"], "object_list": ":lib/kernel_sources.txt"}


def test_executorch_generated_lib_dtype_selective_and_manual(targets):
    """A fallback yaml merged first; the kernels compiled again with the
    selection's selected_op_variants.h; no static registration (not linked
    whole). Visibility is the library's; its helpers keep the default."""
    assert made_by(targets, "dlib") == {
        "dlib": "cxx_library", "dlib_merged": "genrule", "dlib_selected_operators": "genrule",
        "dlib_bindings": "genrule", "dlib_kernel_sources": "genrule", "dlib_library_files_0": "filegroup",
        "dlib_op_variants": "genrule", "dlib_kernels": "cxx_library"}
    assert attrs(targets, "dlib", "link_whole", "visibility") == {"link_whole": False,
                                                                   "visibility": ["//other:__pkg__"]}
    assert targets["dlib_kernels"]["attrs"]["visibility"] == PUBLIC
    assert attrs(targets, "dlib_merged", "srcs", "outs") == {"srcs": ["vendor.yaml", "kernels.yaml"],
                                                             "outs": ["dlib_merged/merged.yaml"]}
    assert targets["dlib_bindings"]["attrs"]["cmd"] == (
        f"{ETSB} gen-bindings --functions_yaml_path $(location :dlib_merged) "
        "--op_selection_yaml_path $(location :dlib_selected_operators) --manual_registration "
        "--backends_output $(location dlib/backends.ld) --lib_name dlib --output_dir $(RULEDIR)/dlib")
    assert attrs(targets, "dlib_kernel_sources", "outs", "cmd") == {
        "outs": ["dlib/kernel_sources.txt", "dlib/switch_names.txt"],
        "cmd": f"{ETSB} kernel-sources --op_selection_yaml_path $(location :dlib_selected_operators) "
               "--functions_yaml_path $(location :dlib_merged) "
               "--switch_names_output $(location dlib/switch_names.txt) --mark_plain "
               "--output $(location dlib/kernel_sources.txt) --library ':kernels' $(locations :dlib_library_files_0)"}
    assert attrs(targets, "dlib_op_variants", "srcs", "outs", "cmd") == {
        "srcs": [":dlib_selected_operators", ":dlib/switch_names.txt"],
        "outs": ["dlib/selected_op_variants.h"],
        "cmd": f"{ETSB} gen-op-variants --yaml_file_path $(location :dlib_selected_operators) "
               "--output_dir $(RULEDIR)/dlib --switch_names $(location :dlib/switch_names.txt)"}
    assert attrs(targets, "dlib_kernels", "hdrs", "copts", "objects_of", "object_list") == {
        "hdrs": [":dlib_op_variants"],
        "copts": [CXX17, "-include", "$(location :dlib_op_variants)", "-I$(RULEDIR)/dlib"],
        "objects_of": [":kernels"], "object_list": ":dlib/kernel_sources.txt"}


def test_et_backend_library_declares_the_library_and_groups_its_files(targets):
    assert made_by(targets, "be") == {"be": "genrule", "be_files": "filegroup"}
    assert attrs(targets, "be", "srcs", "outs", "cmd", "tools") == {
        "srcs": ["libbe.so", "libpool.so"], "outs": ["be/backend_library.yaml"],
        "cmd": f"{ETSB} backend-library --backends XnnpackBackend --library $(location libbe.so) "
               "--needs $(location libpool.so) --output $(location be/backend_library.yaml)",
        "tools": TOOLS}
    assert attrs(targets, "be_files", "srcs") == {"srcs": ["libbe.so", "libpool.so"]}


def test_et_model_binary_is_the_runner_with_the_models_library_and_a_companion(targets):
    library = ["", "_selected_operators", "_bindings", "_kernel_sources", "_library_files_0", "_kernels"]
    made = made_by(targets, "bin")
    assert sorted(made) == sorted(["bin", "bin_ops"] + [f"bin_lib{s}" for s in library]
                                  + ["bin_all_kernels", "bin_all_kernels_ops", "bin_all_kernels_lib",
                                     "bin_deploy", "bin_deploy_source"])
    assert (made["bin"], made["bin_ops"], made["bin_lib"]) == ("cxx_binary", "genrule", "cxx_library")
    assert attrs(targets, "bin", "srcs", "deps", "copts", "tags") == {
        "srcs": [], "deps": {"$select": [runner_of("bin"), [":bin_lib"], [RUNTIME]]}, "copts": [CXX17],
        "tags": ["etsb_all_kernels=:bin_all_kernels"]}
    # The deploy source: static memory sized from the model, which is read at run time.
    assert attrs(targets, "bin_deploy_source", "srcs", "outs", "cmd") == {
        "srcs": ["m.pte"], "outs": ["bin_deploy.cpp"],
        "cmd": f"{ETSB} deploy-source --model $(location m.pte) --output $(location bin_deploy.cpp) "
               "--method-pool-bytes 0 "
               "--temp-pool-bytes 0"}
    assert attrs(targets, "bin_ops", "srcs", "cmd") == {
        "srcs": ["m.pte"],
        "cmd": f"{ETSB} gen-oplist --output_path $(location bin_ops/selected_operators.yaml) "
               "--model_file_path $(location m.pte)"}
    # Registered by the runner's call (manual registration, the model entry point).
    assert attrs(targets, "bin_lib", "link_whole", "linker_inputs") == {"link_whole": False,
                                                                        "linker_inputs": [":be_files"]}
    assert "--manual_registration --model_entry --backend_library_path $(location :be) " in \
        targets["bin_lib_bindings"]["attrs"]["cmd"]
    # The companion links every kernel of the yaml, kept out of `...` by `manual`.
    assert targets["bin_all_kernels_ops"]["attrs"]["cmd"] == (
        f"{ETSB} gen-oplist --output_path $(location bin_all_kernels_ops/selected_operators.yaml) "
        "--selection_yaml_path $(location :bin_ops) --include_all_operators")
    for name in ("bin_all_kernels", "bin_all_kernels_ops", "bin_all_kernels_lib"):
        assert "manual" in targets[name]["attrs"]["tags"], name
    assert targets["bin_all_kernels"]["attrs"]["deps"] == {
        "$select": [runner_of("bin"), [":bin_all_kernels_lib", RUNTIME]]}


def test_the_default_runtime_ships_where_built_to_ship(targets):
    """`runtime = "auto"`: in the size configuration and on every platform but the
    host, the deploy runner on the tree's runtime (trimmed to the model in the
    size configuration) with dtype-selective kernels, stripped; on the host's
    other configurations the development runner on the wheel's."""
    shipped = ["@etsb//tools/runner:deploy_tree", ":two_deploy", ":two_shipped_lib"]
    trimmed = shipped + [":two_shipped_runtime", "@executorch//:program", "@executorch//:runtime_core"]
    settings = [f"@etsb//rules:{platform}" for platform in ("cortex_m55", "cortex_m4", "cortex_m33",
                                                              "x86_64_linux", "aarch64_linux")]
    conditions = {"//conditions:default": [RUNNER, ":two_lib", RUNTIME], SIZE_CONFIG: trimmed,
                  **{setting: shipped + ["@executorch//:runtime"] for setting in settings},
                  **{setting + "_size": trimmed for setting in settings}}
    assert attrs(targets, "two", "deps", "linkopts") == {
        "deps": {"$select": [{"$conditions": conditions}]},
        "linkopts": {"$select": [{"$conditions": {"//conditions:default": [], SIZE_CONFIG: ["-s"],
                                                  **{s + e: ["-s"] for s in settings for e in ("", "_size")}}}]}}
    # Only the shipped form's kernels keep only the model's dtypes.
    assert "two_shipped_lib_op_variants" in targets and "two_lib_op_variants" not in targets
    assert all("manual" in targets[name]["attrs"]["tags"] for name in SHIPPED)
    # The prim ops the program calls, for the trimmed runtime.
    assert attrs(targets, "two_deploy_source", "outs") == {"outs": ["two_deploy.cpp", "two_deploy/selected_prim_ops.h"]}


def test_an_embedded_model_links_the_deploy_runner_in_every_configuration(targets):
    assert attrs(targets, "ship", "deps") == {
        "deps": ["@etsb//tools/runner:deploy_embedded", ":ship_deploy", ":ship_lib", RUNTIME]}
    assert attrs(targets, "ship_deploy_source", "srcs", "cmd") == {
        # An embedded program is verified at build time by a tool built from these sources.
        "srcs": ["m.pte", "in.npy", "@etsb//tools/runner:verify_program.cpp", "@etsb//tools/runner:program_check.h"],
        "cmd": f"{ETSB} deploy-source --model $(location m.pte) --output $(location ship_deploy.cpp) "
               "--method-pool-bytes 4096 --temp-pool-bytes 0 --inputs $(location in.npy) --embed"}
    assert attrs(targets, "ship_deploy", "srcs") == {"srcs": [":ship_deploy.cpp"]}


def test_et_model_binary_dtype_selective_links_both_forms_and_keeps_the_smaller(targets):
    made = made_by(targets, "small")
    assert {name for name in made if not name.startswith(("small_dtype_selective_lib", "small_op_selective_lib",
                                                            "small_all_kernels"))} == {
        "small", "small_ops", "small_dtype_selective", "small_op_selective"}
    assert attrs(targets, "small", "srcs", "outs", "cmd", "tags") == {
        "srcs": [":small_dtype_selective", ":small_op_selective", "@etsb//runtime:libexecutorch.so",
                 "@etsb//runtime:libexecutorch_threadpool.so"],
        # The driver writes link maps: the chosen binary's goes with it; the runtime and the
        # development runner's thread pool go beside it.
        "outs": ["small_smallest/small", "small_smallest/small.map", "small_smallest/libexecutorch.so",
                 "small_smallest/libexecutorch_threadpool.so"],
        "cmd": f"{ETSB} pick-smaller --output $(location small_smallest/small) "
               "--beside $(location @etsb//runtime:libexecutorch.so) "
               "--beside $(location @etsb//runtime:libexecutorch_threadpool.so) "
               "$(location :small_dtype_selective) $(location :small_op_selective)",
        "tags": ["etsb_all_kernels=:small_all_kernels", "etsb_binary"]}
    for form in ("dtype_selective", "op_selective"):
        assert targets[f"small_{form}"]["attrs"]["tags"] == ["manual", "etsb_copied_to=small_smallest"]
    assert "small_dtype_selective_lib_op_variants" in made and "small_op_selective_lib_op_variants" not in made
    # kernel-sources runs once: the op-selective form compiles the sources the dtype-selective one lists.
    assert "small_dtype_selective_lib_kernel_sources" in made and "small_op_selective_lib_kernel_sources" not in made
    assert attrs(targets, "small_op_selective_lib_kernels", "copts", "objects_of", "object_list") == {
        "copts": [CXX17], "objects_of": attrs(targets, "small_dtype_selective_lib_kernels", "objects_of")["objects_of"],
        "object_list": ":small_dtype_selective_lib/kernel_sources.txt"}


@pytest.fixture
def query(workspace, monkeypatch, capsys):
    """`etsb query ARGS` in the workspace, in this process: (exit code, stdout, stderr)."""
    return query_runner(workspace, monkeypatch, capsys)


def test_rules_pass_tags_visibility_and_testonly_through(workspace, query):
    """The common attributes reach the targets a rule makes (ExecuTorch's include_all_ops spelling works too)."""
    with bad_package(workspace, 'et_operator_library(name = "o", include_all_ops = True, '
                                'tags = ["mine"], visibility = ["//m:__pkg__"], testonly = True)\n'):
        code, out, errors = query("//bad:o", "--output", "json")
    assert code == 0, errors
    (target,) = json.loads(out)
    assert target["attrs"]["tags"] == ["mine"] and target["attrs"]["testonly"] is True
    assert target["attrs"]["visibility"] == ["//m:__pkg__"]
    assert "--include_all_operators" in target["attrs"]["cmd"]
