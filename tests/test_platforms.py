"""The platforms and configurations table (driver/platforms.py): what each
name chooses, and an unknown name, from a flag or a --define, refused with
the known ones. No build: the table's values are checked as they are."""

from __future__ import annotations

import pytest

from selective_build.driver.platforms import (CONFIGS, PLATFORMS, choice_defines, strip_for, toolchain)
from selective_build.model.errors import UserError


def test_the_defaults_are_the_host_and_the_development_build():
    chosen = toolchain({}, "c++")
    assert (chosen.cxx, chosen.ar, chosen.compile_flags, chosen.link_flags) == (
        "c++", "ar", CONFIGS["default"].compile_flags, ())


def test_a_platform_brings_its_compiler_and_a_hosted_one_its_loader_flags():
    arm = toolchain(choice_defines("aarch64-linux", "size"), "c++")
    assert arm.cxx == "aarch64-linux-gnu-g++" and "-no-pie" in arm.link_flags and "-Os" in arm.compile_flags
    bare = toolchain(choice_defines("cortex-m55", "size"), "c++")
    assert bare.cxx == "arm-none-eabi-g++" and "-no-pie" not in bare.link_flags
    assert not PLATFORMS["cortex-m55"].hosted and strip_for(40) == "arm-none-eabi-strip" and strip_for(None) == "strip"


@pytest.mark.parametrize("defines, message", [
    ({"etsb_platform": "cortex-m5"}, "--define etsb_platform: 'cortex-m5' is not known (did you mean 'cortex-m55'?)"),
    ({"etsb_config": "tiny"}, "--define etsb_config: 'tiny' is not known (known: default, size, executorch-ci)"),
])
def test_an_unknown_name_in_a_define_is_refused_with_the_known_ones(defines, message):
    with pytest.raises(UserError) as raised:
        toolchain(defines, "c++")
    assert message in str(raised.value)
    with pytest.raises(UserError, match="--platform: 'pc' is not known"):
        choice_defines("pc", None)


def test_a_define_contradicting_platform_or_config_is_refused_naming_both():
    with pytest.raises(UserError) as raised:
        choice_defines("aarch64-linux", None, {"etsb_platform": "cortex-m55"})
    assert str(raised.value.problems[0].message) == (
        "--define etsb_platform=cortex-m55 contradicts --platform aarch64-linux: give one of them")
    with pytest.raises(UserError, match="--define etsb_config=default contradicts --config size"):
        choice_defines(None, "size", {"etsb_config": "default"})
    # The same value twice, or a define of the other one, is no contradiction.
    assert choice_defines("cortex-m55", "size", {"etsb_platform": "cortex-m55", "etsb_config": "size"}) == {
        "etsb_platform": "cortex-m55", "etsb_config": "size"}
    assert choice_defines(None, "size", {"etsb_platform": "cortex-m55"}) == {"etsb_config": "size"}


def test_the_command_line_refuses_a_contradicting_define(tmp_path, monkeypatch, capsys):
    """Before any workspace is looked for: exit status 2, the message naming both, no traceback."""
    from selective_build.__main__ import main

    monkeypatch.chdir(tmp_path)
    for command in ("build", "query", "run", "size"):
        target = ["//:bin"] if command in ("run", "size") else ["//..."]
        assert main([command, "--platform=cortex-m55", "--define", "etsb_platform=aarch64-linux", *target]) == 2
        error = capsys.readouterr().err
        assert "--define etsb_platform=aarch64-linux contradicts --platform cortex-m55" in error, (command, error)
        assert "Traceback" not in error


def test_the_compile_launcher_comes_from_the_environment(monkeypatch):
    from selective_build.driver.platforms import LAUNCHER_VARIABLE, compile_launcher

    monkeypatch.setenv(LAUNCHER_VARIABLE, " ccache  --verbose ")
    assert compile_launcher() == ("ccache", "--verbose")
    monkeypatch.setenv(LAUNCHER_VARIABLE, "")
    assert compile_launcher() == ()
    monkeypatch.delenv(LAUNCHER_VARIABLE)
    assert compile_launcher() == ()


def test_only_the_boards_elf_machine_is_a_boards():
    from selective_build.driver.platforms import board_machine

    assert board_machine(40) and not board_machine(62) and not board_machine(183) and not board_machine(None)
