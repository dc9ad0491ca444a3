"""etsb's public rules on bad calls, without building: each is refused at
its BUILD line, while evaluating, with a Starlark backtrace through the
rules (and no Python traceback); shell text in an attribute never reaches a
shell. The workspace is tests/test_macros.py's (macros_helpers), with the
calls in a package `bad` of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from macros_helpers import bad_package, make_workspace, query_runner


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """A workspace with etsb's rules and a package `m` holding the calls and the files they name."""
    return make_workspace(tmp_path_factory.mktemp("macros") / "w")


@pytest.fixture
def query(workspace, monkeypatch, capsys):
    """`etsb query ARGS` in the workspace, in this process: (exit code, stdout, stderr)."""
    return query_runner(workspace, monkeypatch, capsys)


BAD_BUILDS = {
    "syntax error": ('et_model_binary(name = "bin" model = "m.pte")\n', "BUILD:2:35", "got identifier, want ','"),
    "undefined name": ('et_model_binary(name = "bin", model = MODEL)\n', "BUILD:2:", "undefined: MODEL"),
    "unknown attribute": ('et_model_binary(name = "bin", model = "m.pte", modle = "x.pte")\n', "BUILD:2:",
                          "et_model_binary 'bin': unknown attribute 'modle' (did you mean 'model'?)"),
    "missing mandatory attribute": ('et_model_binary(name = "bin")\n', "BUILD:2:",
                                    "et_model_binary 'bin': missing mandatory attribute 'model'"),
    "ops_dict of the wrong shape": ('et_operator_library(name = "o", ops_dict = {"aten::add.out": "Float"})\n',
                                    "BUILD:2:", "attribute 'ops_dict['aten::add.out']' must be a list of strings"),
    "common attribute of the wrong type": ('et_operator_library(name = "o", ops = ["aten::add.out"], '
                                           'testonly = "yes")\n', "BUILD:2:",
                                           "attribute 'testonly' must be True or False, got string"),
    "wrong attribute type": ('et_model_binary(name = "bin", model = "m.pte", kernel_deps = "k")\n', "BUILD:2:",
                             "attribute 'kernel_deps' must be a list of strings, got string"),
    "model that is not a .pte": ('et_model_binary(name = "bin", model = "m.onnx")\n', "BUILD:2:",
                                 "must name a .pte program"),
    "contradictory options": ('executorch_generated_lib(name = "g", fallback_yaml_target = "f.yaml", '
                              'custom_ops_yaml_target = "c.yaml", kernel_deps = [":k"])\n', "BUILD:2:",
                              "fallback_yaml_target needs a functions_yaml_target"),
    "missing file": ('et_model_binary(name = "bin", model = "missing.pte", functions_yaml_target = '
                     '"//m:kernels.yaml", kernel_deps = ["//m:kernels"])\n', "BUILD:2:",
                     "missing.pte does not exist"),
    "duplicate target": ('et_operator_library(name = "o", ops = ["aten::relu.out"])\n'
                         'et_operator_library(name = "o", ops = ["aten::add.out"])\n', "BUILD:3:",
                         "duplicate target 'o'"),
    "label escaping the root": ('load("//../x:defs.bzl", "f")\n', "BUILD:1:", "escapes the workspace root"),
    "label to a missing package": ('et_model_binary(name = "bin", model = "//nowhere:m.pte")\n', "BUILD:2:",
                                   "no such package 'nowhere'"),
    "load cycle": ('load(":a.bzl", "a")\n', "BUILD:1:", "load cycle"),
    "inputs without an embedded model": ('et_model_binary(name = "bin", model = "m.pte", inputs = ["in.npy"])\n',
                                         "BUILD:2:", "`inputs` are embedded beside the model: set "
                                         "`embed_model = True` too"),
    "negative pool size": ('et_model_binary(name = "bin", model = "m.pte", method_pool_bytes = -1)\n', "BUILD:2:",
                           "attribute 'method_pool_bytes' must be a non-negative integer, got -1"),
    "runtime neither shared nor static": ('et_model_binary(name = "bin", model = "m.pte", runtime = "statik")\n',
                                          "BUILD:2:", "et_model_binary 'bin': attribute 'runtime' is \"statik\" "
                                          "(did you mean 'static'?); it takes \"auto\" or \"shared\" or "
                                          "\"wheel\" or \"static\""),
}


# attribute -> the call that puts a payload P in it, and what is said about it: nothing
# in a BUILD file reaches a shell as code.
INJECTIONS = {
    "ops": ('et_operator_library(name = "o", ops = [P])', "is not an operator name"),
    "ops_dict key": ('et_operator_library(name = "o", ops_dict = {P: []})', "is not an operator name"),
    "ops_dict dtype": ('et_operator_library(name = "o", ops_dict = {"aten::add.out": [P]})',
                       "is neither a dtype name"),
    "model": ('et_operator_library(name = "o", model = P + ".pte")', "is not a label or file name"),
    "deps": ('et_operator_library(name = "o", deps = [P])', "is not a label or file name"),
    "kernel yaml": ('executorch_generated_lib(name = "g", functions_yaml_target = P, kernel_deps = ["//m:kernels"])',
                    "is not a label or file name"),
    "kernel_deps": ('et_model_binary(name = "b", model = "//m:m.pte", kernel_deps = [P])',
                    "is not a label or file name"),
    "name": ('et_operator_library(name = P, ops = ["aten::add.out"])', "name"),
}
PAYLOADS = {
    "quote": "x'y",
    "semicolon": "x;touch PWNED",
    "command substitution": "$(touch PWNED)",
    "backticks": "`touch PWNED`",
    "newline": "x\ntouch PWNED",
    "double quote": 'x"y',
}


@pytest.mark.parametrize("case", sorted(BAD_BUILDS))
def test_bad_build_input_is_located_with_a_backtrace(workspace, query, case):
    """`--output deps` resolves every label too (a missing file is found there)."""
    text, where, message = BAD_BUILDS[case]
    with bad_package(workspace, text):
        code, _, errors = query("--output", "deps", "//bad:all")
    assert code == 2, errors
    assert ".py\", line" not in errors  # no Python traceback (Starlark's backtrace is wanted)
    assert f"bad/{where}" in errors, errors
    assert message in errors, errors
    assert not (workspace / "etsb-out" / "bin").exists()


def test_a_macro_error_carries_the_backtrace_through_the_rules(workspace, query):
    with bad_package(workspace, 'et_model_binary(name = "bin", model = "m.onnx")\n'):
        code, _, errors = query("//bad:bin")
    assert code == 2
    assert "bad/BUILD:2:1" in errors and "rules/model_binary.bzl" in errors
    assert "rules/private/attrs.bzl" in errors


@pytest.mark.parametrize("payload", sorted(PAYLOADS))
@pytest.mark.parametrize("attribute", sorted(INJECTIONS))
def test_shell_text_in_an_attribute_is_refused_at_its_build_line(workspace, query, attribute, payload):
    call, message = INJECTIONS[attribute]
    with bad_package(workspace, f"P = {json.dumps(PAYLOADS[payload])}\n" + call + "\n"):
        code, _, errors = query("--output", "deps", "//bad:all")
    assert code == 2
    assert "bad/BUILD:3:" in errors and message in errors, errors
    assert not (workspace / "PWNED").exists()
