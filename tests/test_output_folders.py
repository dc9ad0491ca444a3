"""Outputs per platform and configuration: each (--platform, --config) builds
into etsb-out/<platform>-<config>, with its own ninja file and kept plan, so
switching between them keeps the binaries of each and switching back
rebuilds nothing; the build's last line and `etsb query --output outputs`
name the folder of the platform and configuration given; etsb-out/bin links
to the bin folder of the configuration last built; `etsb run` and `etsb size`
take the binary of the platform given; `etsb clean` removes every folder."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from driver_helpers import built_outputs, etsb, output_of, steps
from helpers import new_workspace
from selective_build.driver.layout import BIN, RETIRED, configuration_dir, ninja_file, state_file
from selective_build.driver.platforms import CONFIGS, PLATFORMS, output_dir
from selective_build.readers.elf import elf_machine

LABEL = "//app:app"
# The ELF machine of aarch64 binaries.
AARCH64 = 183
MAIN = """\
#include <cstdio>
int main() {
#if defined(__aarch64__)
  std::puts("built for aarch64");
#else
  std::puts("built for the host");
#endif
#if defined(NDEBUG)
  std::puts("size configuration");
#endif
  return 0;
}
"""
BUILD = """\
load("//rules:executorch.bzl", "etsb_cxx_binary")

etsb_cxx_binary(name = "app", srcs = ["main.cpp"])

genrule(name = "note", outs = ["note.txt"], cmd = "echo note > $@")
"""
# The platforms and configurations the tests switch between, as flags, and their folders.
HOST = ()
SIZE = ("--config=size",)
ARM = ("--platform=aarch64-linux",)
FOLDERS = {HOST: "etsb-out/host-default", SIZE: "etsb-out/host-size", ARM: "etsb-out/aarch64-linux-default"}


def _workspace(root: Path) -> Path:
    new_workspace(root)
    (root / "app").mkdir()
    (root / "app" / "main.cpp").write_text(MAIN)
    (root / "app" / "BUILD").write_text(BUILD)
    return root


def _build(root: Path, flags: tuple[str, ...], *targets: str) -> subprocess.CompletedProcess:
    result = etsb(root, "build", *flags, *(targets or (LABEL,)))
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(scope="module")
def switched(tmp_path_factory) -> tuple[Path, dict[tuple[str, ...], subprocess.CompletedProcess]]:
    """A workspace whose //app:app was built for the host, in the size
    configuration and for aarch64, in that order; each build's result."""
    root = _workspace(tmp_path_factory.mktemp("folders") / "w")
    return root, {flags: _build(root, flags) for flags in (HOST, SIZE, ARM)}


def test_every_platform_and_configuration_has_a_folder_of_its_own():
    folders = [configuration_dir(p, c) for p in PLATFORMS for c in CONFIGS]
    assert len(set(folders)) == len(folders) == len(PLATFORMS) * len(CONFIGS)
    assert output_dir({}) == "etsb-out/host-default"
    assert output_dir({"etsb_platform": "cortex-m55", "etsb_config": "size"}) == "etsb-out/cortex-m55-size"
    assert all(not f.endswith(("/bin", "/obj")) and os.path.basename(f) not in RETIRED for f in folders)


@pytest.mark.build
def test_the_builds_last_line_names_the_folder_of_its_platform_and_configuration(switched):
    root, results = switched
    for flags, result in results.items():
        assert built_outputs(result.stdout) == {LABEL: f"{FOLDERS[flags]}/bin/app/app"}, result.stdout
    machines = {flags: elf_machine(str(root / FOLDERS[flags] / "bin/app/app")) for flags in results}
    assert machines[ARM] == AARCH64 and machines[HOST] == machines[SIZE] != AARCH64
    assert (root / FOLDERS[HOST] / "bin/app/app").read_bytes() != (root / FOLDERS[SIZE] / "bin/app/app").read_bytes()


@pytest.mark.build
def test_switching_back_keeps_every_binary_and_rebuilds_nothing(switched):
    root, _ = switched
    before = {flags: (root / folder / "bin/app/app").stat().st_mtime_ns for flags, folder in FOLDERS.items()}
    for flags in (HOST, ARM, SIZE, HOST):
        result = _build(root, flags)
        assert steps(result.stdout) == [] and "ninja: no work to do." in result.stdout, (flags, result.stdout)
        assert built_outputs(result.stdout) == {LABEL: f"{FOLDERS[flags]}/bin/app/app"}
    after = {flags: (root / folder / "bin/app/app").stat().st_mtime_ns for flags, folder in FOLDERS.items()}
    assert after == before
    for folder in FOLDERS.values():
        assert (root / ninja_file(folder)).is_file() and (root / state_file(folder)).is_file()


@pytest.mark.build
def test_query_outputs_names_the_folder_of_the_platform_and_configuration_given(switched):
    root, results = switched
    for flags, result in results.items():
        assert output_of(root, LABEL, *flags) == root / built_outputs(result.stdout)[LABEL]
    # The same with the --define values --platform and --config set, and for a platform not built yet.
    assert output_of(root, "//app:note", "--define", "etsb_platform=cortex-m4", "--define", "etsb_config=size") == \
        root / "etsb-out/cortex-m4-size/bin/app/note.txt"
    assert not (root / "etsb-out/cortex-m4-size").exists()  # a query builds nothing


@pytest.mark.build
def test_etsb_out_bin_links_to_the_configuration_last_built(switched):
    root, _ = switched
    for flags in (ARM, HOST, SIZE):
        _build(root, flags)
        link = root / BIN
        assert link.is_symlink() and os.readlink(link) == os.path.relpath(f"{FOLDERS[flags]}/bin", "etsb-out")
        assert (link / "app/app").read_bytes() == (root / FOLDERS[flags] / "bin/app/app").read_bytes()


@pytest.mark.build
def test_run_and_size_take_the_binary_of_the_platform_given(switched):
    from selective_build.driver.pick import stripped_sizes

    root, _ = switched
    printed = {flags: etsb(root, "run", *flags, LABEL) for flags in (HOST, SIZE, ARM)}
    assert all(result.returncode == 0 for result in printed.values()), {f: r.stderr for f, r in printed.items()}
    assert printed[HOST].stdout == "built for the host\n"
    assert printed[SIZE].stdout == "built for the host\nsize configuration\n"
    assert printed[ARM].stdout == "built for aarch64\n"
    for flags in (HOST, ARM):
        result = etsb(root, "size", *flags, "--format", "json", LABEL)
        assert result.returncode == 0, result.stderr
        (measured,) = json.loads(result.stdout)["binaries"]
        assert measured["stripped"] == stripped_sizes([str(root / FOLDERS[flags] / "bin/app/app")])[0]


@pytest.mark.build
def test_clean_removes_every_configurations_outputs(tmp_path):
    root = _workspace(tmp_path / "w")
    for flags in (HOST, SIZE):
        _build(root, flags, "//app:note")
    (root / "etsb-out" / "tools").mkdir()
    assert etsb(root, "clean").returncode == 0
    assert sorted(os.listdir(root / "etsb-out")) == ["tools"]
    result = _build(root, SIZE, "//app:note")
    assert (root / "etsb-out/host-size/bin/app/note.txt").read_text() == "note\n", result.stdout


@pytest.mark.build
def test_the_layout_before_configuration_folders_is_retired_at_the_first_build(tmp_path):
    """A workspace built by an etsb that kept everything in etsb-out (its bin a folder, not a link)."""
    root = _workspace(tmp_path / "w")
    old = root / "etsb-out"
    (old / "bin" / "app").mkdir(parents=True)
    (old / "bin" / "app" / "note.txt").write_text("old\n")
    (old / "obj").mkdir()
    (old / "build.ninja").write_text("# old\n")
    (old / "tools").mkdir()
    _build(root, HOST, "//app:note")
    assert sorted(os.listdir(old)) == [".etsb", "bin", "external", "host-default", "tools"]
    assert (old / "bin").is_symlink() and (old / "bin" / "app" / "note.txt").read_text() == "note\n"


@pytest.mark.parametrize("flags, message", [
    (("--platform=aarch64",), "--platform must be one of host, x86_64-linux, aarch64-linux"),
    (("--config=small",), "--config must be one of default, size, executorch-ci, not 'small'"),
    (("--define", "etsb_platform=pc"), "--define etsb_platform: 'pc' is not known"),
    (("--define", "etsb_config=../x"), "--define etsb_config: '../x' is not known"),
])
@pytest.mark.parametrize("command", ["build", "query"])
def test_an_unknown_platform_or_configuration_is_refused_and_makes_no_folder(tmp_path, flags, message, command):
    root = _workspace(tmp_path / "w")
    argv = ("--output", "outputs") if command == "query" else ()
    result = etsb(root, command, *argv, *flags, "//app:note")
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    # No output folder, and no link: only the shared lock and repository links may be there.
    assert not (root / "etsb-out").exists() or set(os.listdir(root / "etsb-out")) <= {".etsb", "external"}
