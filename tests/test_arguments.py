"""The command line: every command's flags declared once, and parsed the same
way for all (both spellings, `--flag=value`, `-jN`, `--`), with a usage error
(exit status 2, the command's usage line, no traceback) for anything that
does not fit."""

from __future__ import annotations

import pytest

from selective_build.__main__ import main
from selective_build.arguments import COMMANDS
from selective_build.argv import UsageError, command_help, main_help, parse

BY_NAME = {command.name: command for command in COMMANDS}


def values(*argv: str):
    command, parsed = parse(list(argv))
    return vars(parsed)


def test_both_spellings_and_inline_values():
    assert values("merge-yaml", "--functions_yaml_path", "a.yaml", "--output-dir=out") == {
        "functions_yaml_path": "a.yaml", "fallback_yaml_path": None, "output_dir": "out", "aten_yaml": None}


def test_repeated_lists_switches_ints_pairs_and_positionals():
    parsed = values("gen-oplist", "--output_path", "o", "--root_ops", "a", "--root-ops=b", "--include_all_operators")
    assert parsed["root_ops"] == ["a", "b"] and parsed["include_all_operators"] is True
    assert parsed["model_file_path"] == [] and parsed["include_all_overloads"] is False
    assert values("build", "-j4", "--define", "a=1", "--define=a=2", "--define", "b=", "//x:y") == {
        "jobs": 4, "define": {"a": "2", "b": ""}, "executorch_root": None, "platform": None, "config": None,
        "targets": ["//x:y"]}
    assert values("build", "--platform", "aarch64-linux", "--config=size") == {
        "jobs": None, "define": {}, "executorch_root": None, "platform": "aarch64-linux", "config": "size",
        "targets": ["//..."]}
    assert values("size", "--top", "3", "--", "--odd-label")["target"] == "--odd-label"


def test_group_flags_take_the_positional_arguments_after_them():
    parsed = values("kernel-sources", "loose.cpp", "--library", "ours", "a.cpp", "a.h", "--output", "o",
                    "b.cpp", "--library=theirs", "c.cpp", "--library", "none")
    assert parsed["library_files"] == ["loose.cpp"]
    assert parsed["library"] == [("ours", ["a.cpp", "a.h", "b.cpp"]), ("theirs", ["c.cpp"]), ("none", [])]


@pytest.mark.parametrize("argv, message", [
    (["merge-yaml", "--output-dir", "o"], "missing --functions-yaml-path"),
    (["merge-yaml", "--functions-yaml-path"], "--functions-yaml-path needs a value (PATH)"),
    (["merge-yaml", "--functions-yaml-pth", "x", "--output-dir", "o"],
     "unknown option '--functions-yaml-pth' (did you mean '--functions-yaml-path'?)"),
    (["gen-oplist", "--output_path", "o", "--include_all_operators=yes"], "--include_all_operators takes no value"),
    (["build", "--jobs", "two"], "--jobs takes a non-negative integer, not 'two'"),
    (["build", "-j-1"], "-j takes a non-negative integer, not '-1'"),
    (["build", "--define", "novalue"], "--define takes NAME=VALUE, not 'novalue'"),
    (["build", "--define", "=1"], "--define takes NAME=VALUE, not '=1'"),
    (["query", "--output", "xml"], "--output must be one of label, rule, deps, outputs, json, ops, not 'xml'"),
    (["size"], "missing TARGET"),
    (["size", "//a:b", "//c:d"], "unexpected argument '//c:d'"),
    (["clean", "extra"], "unexpected argument 'extra'"),
    (["validate-yaml"], "missing YAML"),
    (["no-such-command"], "unknown command 'no-such-command'"),
    (["merge-yml"], "unknown command 'merge-yml' (did you mean 'merge-yaml'?)"),
    (["--frobnicate"], "unknown option '--frobnicate'"),
])
def test_bad_command_lines_are_usage_errors(argv, message, capsys):
    with pytest.raises(UsageError) as info:
        parse(argv)
    assert str(info.value).startswith(message)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: etsb") and message in err and "Traceback" not in err


def test_help_and_version(capsys):
    assert main([]) == 0 and main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out == main_help() + "\n" + main_help() + "\n"
    for command in COMMANDS:
        assert command.name in out
        assert main([command.name, "--help"]) == 0
        text = capsys.readouterr().out
        assert text == command_help(command) + "\n"
        for flag in command.flags:
            assert all(name in text for name in flag.names)
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("etsb ")


def test_every_flag_has_both_spellings_and_help():
    for command in COMMANDS:
        for flag in command.flags:
            assert flag.help, (command.name, flag.names)
            long_names = [name for name in flag.names if name.startswith("--")]
            if "_" in flag.dest:
                assert {name.replace("_", "-") for name in long_names} == {long_names[0]}
                assert len(long_names) == 2, flag.names


@pytest.mark.parametrize("argv, message", [
    (["gen-oplist", "--output_path", "o"], "gen-oplist: error: no source of operators: give --model_file_path, "
     "--root_ops, --ops_dict, --ops_schema_yaml_path, --selection_yaml_path, --backends or --include_all_operators"),
    (["gen-bindings", "--output-dir", "o"],
     "gen-bindings: error: give --functions-yaml-path, --custom-ops-yaml-path or both"),
    (["gen-bindings", "--output-dir", "o", "--functions-yaml-path", "f.yaml", "--lib-name", "a-b"],
     "--lib-name: error: --lib-name 'a-b' is not a C identifier"),
    (["kernel-sources", "--functions-yaml-path", "f.yaml", "--root", "tree", "a.cpp"],
     "kernel-sources: error: give either --root (a tree) or the library's files"),
    (["kernel-sources", "--functions-yaml-path", "f.yaml"],
     "kernel-sources: error: give either --root (a tree) or the library's files"),
    (["kernel-sources", "--custom-ops-yaml-path", "f.yaml", "--wrappers-dir", "w", "a.cpp"],
     "kernel-sources: error: --wrappers-dir needs the libraries' files after --library NAME"),
    (["kernel-sources", "--functions-yaml-path", "f.yaml", "--root", "tree", "--wrappers-include", "h.h"],
     "kernel-sources: error: --wrappers-include goes with --wrappers-dir"),
    (["kernel-sources", "--functions-yaml-path", "f.yaml", "--root", "tree", "--mark-plain"],
     "kernel-sources: error: --mark-plain goes with --switch-names-output"),
    (["kernel-sources", "--functions-yaml-path", "f.yaml", "--library", "a", "x.cpp", "--library", "b"],
     "kernel-sources: error: --library b: no files follow it"),
])
def test_the_rules_declared_between_flags_are_checked_before_any_work(argv, message, tmp_path, monkeypatch, capsys):
    """No file named exists: each rule fails before anything is read or written."""
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert capsys.readouterr().err == message + "\n"
    assert not list(tmp_path.iterdir())


def test_a_rule_that_holds_lets_the_command_run(tmp_path, monkeypatch, capsys):
    from selective_build.argv import check
    from selective_build.model.errors import CommandLine, UserError

    command, parsed = parse(["kernel-sources", "--custom-ops-yaml-path", "f.yaml", "--library", "a", "x.cpp",
                             "--wrappers-dir", "w", "--wrappers-include", "h.h"])
    check(command, parsed)  # every rule holds
    command, parsed = parse(["kernel-sources", "--functions-yaml-path", "f.yaml", "--library", "a"])
    with pytest.raises(UserError) as info:
        check(command, parsed)
    assert info.value.location == CommandLine("kernel-sources")
