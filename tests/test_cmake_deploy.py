"""Binaries built to ship, from CMake: `et_model_binary(... RUNTIME static)`
compiles ExecuTorch's runtime from the tree, `-DETSB_CONFIG=size` is the
driver's size configuration, and etsb's toolchain files build for 64-bit Arm
Linux and the Cortex-M55 board. The flags and the runtime's sources are the
driver's, asked of `etsb cmake-platform` while configuring.

One build tree per platform, of docs/deploy.md's CMakeLists.txt (the corpus
MLP embedded with its input, both dtype forms as the driver's figures are
measured; on the host the CNN too, read from files): each runs (natively, under qemu-aarch64, under
qemu-system-arm) and prints what torch computed. Mistakes in a CMakeLists.txt
(an unknown ETSB_CONFIG, RUNTIME static without a tree, INPUTS without
EMBED_MODEL, the wheel's runtime on another platform) fail the configuration
at their line."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO, SUMMARY_LINES, TREE
from helpers import (assert_call_fails_configuration, assert_deploy_matches_torch, cmake_build, cmake_configure,
                     etsb, method_meta, run_on_board, stripped_size, write_deploy_inputs)
from selective_build.driver.platforms import PLATFORMS, toolchain

TOOLCHAINS = REPO / "rules" / "cmake" / "toolchains"
INPUT = method_meta("mlp", "forward")["inputs"][0]["file"]


def documented_project() -> str:
    """The CMakeLists.txt docs/deploy.md gives users (its section "With CMake")."""
    section = (REPO / "docs" / "deploy.md").read_text().split("\n## With CMake\n", 1)[1]
    return re.search(r"```cmake\n(.*?)```", section, re.S).group(1)


MLP = documented_project()
CNN = "et_model_binary(NAME cnn MODEL cnn.pte RUNTIME static)\n"
# Two lines: the default RUNTIME auto ships in the size configuration and on a board.
TWO_LINES = "et_model_binary(NAME two MODEL mlp.pte)\n"
# etsb's platform -> its toolchain file ('' : none) and what its build holds.
PROJECTS = {"host": ("", MLP + CNN + TWO_LINES), "aarch64-linux": ("aarch64-linux-gnu.cmake", MLP),
            **{board: (f"{board}.cmake", MLP + "enable_testing()\nadd_test(NAME mlp COMMAND mlp_dtype_selective)\n"
                       + (TWO_LINES if board == "cortex-m55" else ""))
               for board in ("cortex-m55", "cortex-m4", "cortex-m33")}}
# The goals for the MLP: bytes stripped on x86-64, bytes of flash on the Cortex-M55.
HOST_GOAL = 48 * 1000
FLASH_BUDGET = 100 * 1000


def configure_options(platform: str) -> list[str]:
    """What a user passes: etsb's config, the tree, the size configuration and the platform's toolchain file."""
    options = [f"-Detsb_DIR={REPO / 'rules' / 'cmake'}", f"-DEXECUTORCH_ROOT={TREE}", "-DETSB_CONFIG=size"]
    toolchain_file = PROJECTS[platform][0]
    return options + ([f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAINS / toolchain_file}"] if toolchain_file else [])


def build_project(platform: str, root: Path) -> Path:
    """The platform's project configured and built in ``root``; its build folder."""
    for tool in filter(None, (PLATFORMS[platform].compiler, *PLATFORMS[platform].emulator[:1])):
        assert shutil.which(tool), f"no {tool} on PATH: scripts/setup.sh installs the cross tools and QEMU"
    source = root / "src"
    source.mkdir(parents=True)
    for model in ("mlp", "cnn"):
        shutil.copy(MODELS_DIR / model / f"{model}.pte", source)
    shutil.copy(MODELS_DIR / "mlp" / INPUT, source)
    (source / "CMakeLists.txt").write_text(PROJECTS[platform][1])
    result = cmake_configure(source, root / "build", *configure_options(platform))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
    result = cmake_build(root / "build")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root / "build"


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> Path:
    return build_project("host", tmp_path_factory.mktemp("cmake_host"))


@pytest.fixture(scope="module")
def aarch64(tmp_path_factory) -> Path:
    return build_project("aarch64-linux", tmp_path_factory.mktemp("cmake_aarch64"))


@pytest.fixture(scope="module")
def cortex_m55(tmp_path_factory) -> Path:
    return build_project("cortex-m55", tmp_path_factory.mktemp("cmake_cortex_m55"))


def run(command: list, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(word) for word in command], capture_output=True, text=True, timeout=120,
                          cwd=cwd, stdin=subprocess.DEVNULL)


def readelf(*argv: object) -> str:
    return subprocess.run(["readelf", *map(str, argv)], capture_output=True, text=True, check=True).stdout


# -- the binaries -----------------------------------------------------------------------------


@pytest.mark.build
@pytest.mark.tree
def test_host_mlp_is_static_and_prints_what_torch_computed(host, tmp_path):
    binary = host / "mlp_smallest" / "mlp"
    assert "libexecutorch" not in readelf("-d", binary)
    result = run([binary])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)
    size = stripped_size(binary, tmp_path)
    SUMMARY_LINES.append(f"CMake x86-64 MLP (static, size config, embedded): {size:,} B stripped")
    assert size <= HOST_GOAL


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("platform", ["host", "cortex-m55"])
def test_two_lines_ship(platform, host, cortex_m55, tmp_path):
    """`et_model_binary(NAME two MODEL mlp.pte)` in the size configuration: the
    tree's runtime linked in, stripped, the deploy runner reading the program
    and its input from files, printing what torch computed."""
    binary = {"host": host, "cortex-m55": cortex_m55}[platform] / "two"
    sections = readelf("-S", "-d", "-W", binary)
    assert ".symtab" not in sections and "libexecutorch" not in sections
    inputs = write_deploy_inputs("mlp", tmp_path)
    model = MODELS_DIR / "mlp" / "mlp.pte"
    if platform == "host":
        result = run([binary, model, *inputs])
    else:
        result = run_on_board(PLATFORMS[platform], binary, str(model), *map(str, inputs), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)


@pytest.mark.build
@pytest.mark.tree
def test_host_size_configuration_takes_the_driver_flags(host):
    """The size configuration's flags and link reach the runtime, kernels and binary:
    the table's, not a copy; prim ops only the program's, the registry its size."""
    commands = (host / "build.ninja").read_text()
    size = toolchain({"etsb_config": "size"}, "g++")
    assert " ".join(size.compile_flags) in commands
    assert " ".join(size.link_flags) in commands
    assert (host / "mlp_deploy" / "selected_prim_ops.h").is_file()
    header = host / "mlp_dtype_selective_lib" / "executorch" / "runtime" / "kernel" / "selected_max_kernel_num.h"
    assert "EXECUTORCH_SELECTED_MAX_KERNEL_NUM" in header.read_text()


@pytest.mark.build
@pytest.mark.tree
def test_host_cnn_reads_its_program_and_inputs_from_files(host, tmp_path):
    inputs = write_deploy_inputs("cnn", tmp_path)
    result = run([host / "cnn", MODELS_DIR / "cnn" / "cnn.pte", *inputs])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("cnn", result.stdout)


@pytest.mark.build
@pytest.mark.tree
def test_aarch64_mlp_runs_under_qemu_as_torch_does(aarch64, tmp_path):
    binary = aarch64 / "mlp_smallest" / "mlp"
    assert re.findall(r"Machine:\s+(.+)", readelf("-h", binary)) == ["AArch64"]
    assert "libexecutorch" not in readelf("-d", binary)
    result = run([*PLATFORMS["aarch64-linux"].emulator, binary])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)
    size = stripped_size(binary, tmp_path, PLATFORMS["aarch64-linux"].strip)
    SUMMARY_LINES.append(f"CMake aarch64 MLP (static, size config, embedded): {size:,} B stripped")


@pytest.mark.build
@pytest.mark.tree
def test_cortex_m55_mlp_runs_on_the_board_as_torch_does(cortex_m55):
    binary = cortex_m55 / "mlp_smallest" / "mlp"
    header = readelf("-h", binary)
    assert "ARM" in header and "EXEC" in header, header
    result = run([*PLATFORMS["cortex-m55"].emulator, binary])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)
    sizes = run([PLATFORMS["cortex-m55"].size, binary]).stdout
    text, data, _ = (int(word) for word in sizes.splitlines()[1].split()[:3])
    SUMMARY_LINES.append(f"CMake cortex-m55 MLP (size config, embedded): flash {text + data:,} B")
    assert text + data <= FLASH_BUDGET, sizes


@pytest.mark.build
@pytest.mark.tree
def test_cortex_m55_tests_run_under_the_platforms_emulator(cortex_m55):
    """CMAKE_CROSSCOMPILING_EMULATOR comes from etsb's table: ctest runs the board's program under QEMU."""
    result = subprocess.run(["ctest", "--output-on-failure"], cwd=cortex_m55, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 tests passed" in result.stdout or "100% tests passed" in result.stdout, result.stdout


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("board", ["cortex-m4", "cortex-m33"])
def test_the_other_boards_toolchain_files_build_the_mlp_that_ctest_runs_under_qemu(board, tmp_path):
    """cortex-m4.cmake and cortex-m33.cmake: the board's flags, support and
    emulator from etsb's table, as for the Cortex-M55."""
    build = build_project(board, tmp_path)
    result = run([*PLATFORMS[board].emulator, build / "mlp_smallest" / "mlp"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)
    result = subprocess.run(["ctest", "--output-on-failure"], cwd=build, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and "100% tests passed" in result.stdout, result.stdout + result.stderr


# -- the command CMake asks -------------------------------------------------------------------


@pytest.mark.tree
@pytest.mark.parametrize("platform", [name for name, p in PLATFORMS.items() if not p.hosted])
def test_cmake_platform_gives_the_tables_flags_and_the_overlays_runtime(tmp_path, platform):
    output = tmp_path / "platform.cmake"
    result = etsb("cmake-platform", "--platform", platform, "--config", "size", "--executorch-root", str(TREE),
                  "--workspace", str(tmp_path / "ws"), "--output", str(output), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    values = dict(re.findall(r"^set\((\w+) \[=*\[(.*?)\]=*\]\)$", output.read_text(), re.M | re.S))
    chosen = toolchain({"etsb_platform": platform, "etsb_config": "size"}, "")
    assert values["ETSB_PLATFORM_COMPILE_OPTIONS"].split(";") == list(chosen.compile_flags)
    c_options = values["ETSB_PLATFORM_C_COMPILE_OPTIONS"].split(";")
    assert c_options == [f for f in chosen.compile_flags if f in c_options] and "-fno-rtti" not in c_options
    assert values["ETSB_PLATFORM_LINK_OPTIONS"].split(";") == list(chosen.link_flags)
    # The board's support, from the overlay's select() on the platform: no mmap, the minimal PAL;
    # the shared start-up, atomics, snprintf and weak delete, the board's memories then the shared sections.
    board = PLATFORMS[platform].board
    assert values["ETSB_TREE_BOARD_SOURCES"].endswith("platforms/cortex_m/pal.cpp")
    assert [path.rsplit("/", 1)[1] for path in values[f"ETSB_TREE_{board.upper()}_SOURCES"].split(";")] == \
        ["startup.cpp", "syscalls.cpp", "atomics.cpp", "format.cpp", "delete.cpp"]
    link = values[f"ETSB_TREE_{board.upper()}_LINK_OPTIONS"].split(";")
    assert "-nostartfiles" in link
    assert [flag.rsplit("/", 1)[1] for flag in link if flag.startswith("-T")] == [f"{board}.ld", "sections.ld"]
    core = values["ETSB_TREE_RUNTIME_CORE_SOURCES"].split(";")
    assert any(path.endswith("runtime/platform/default/minimal.cpp") for path in core)
    assert not any(path.endswith(("mmap_data_loader.cpp", "operator_registry.cpp")) for path in core)
    assert "flatc" in values["ETSB_TREE_SCHEMA_COMMAND"]


# -- mistakes ---------------------------------------------------------------------------------

RULES_PREAMBLE = f"cmake_minimum_required(VERSION 3.20)\nproject(bad LANGUAGES CXX)\ninclude({REPO / 'rules' / 'etsb.cmake'})\n"
PTE = MODELS_DIR / "mlp" / "mlp.pte"
# case -> (the call on line 4, what the message says)
BAD_CALLS = {
    "static_without_a_tree": (f"et_model_binary(NAME bin MODEL {PTE} RUNTIME static)",
                              "et_model_binary 'bin': RUNTIME static compiles ExecuTorch's runtime from an ExecuTorch "
                              "source tree, and this build has none: call et_executorch_tree(ROOT <tree>) before it, "
                              "configure with -DEXECUTORCH_ROOT=<tree> (find_package(etsb) takes it) or with "
                              "EXECUTORCH_ROOT in the environment, or keep the snapshot beside the checkout "
                              "(../shared/third_party/executorch beside the source tree)"),
    "inputs_without_embedding": (f"et_model_binary(NAME bin MODEL {PTE} INPUTS in.npy)",
                                 "et_model_binary 'bin': INPUTS are embedded beside the model: give EMBED_MODEL too"),
    "unknown_runtime": (f"et_model_binary(NAME bin MODEL {PTE} RUNTIME static_lib)",
                        "et_model_binary 'bin': RUNTIME must be auto (the default: shipped where built to ship), "
                        "shared or wheel (the executorch wheel's libexecutorch.so) or static (ExecuTorch's runtime "
                        "compiled from the tree), not 'static_lib'"),
    "pool_not_a_number": (f"et_model_binary(NAME bin MODEL {PTE} EMBED_MODEL METHOD_POOL_BYTES 4k)",
                          "et_model_binary 'bin': METHOD_POOL_BYTES must be a number of bytes, not '4k'"),
    "input_not_an_array": (f"et_model_binary(NAME bin MODEL {PTE} EMBED_MODEL INPUTS in.bin)",
                           "et_model_binary 'bin': INPUTS must name .npy arrays, got 'in.bin'"),
}


@pytest.mark.build
@pytest.mark.parametrize("case", sorted(BAD_CALLS))
def test_a_bad_deploy_call_fails_the_configuration_at_its_line(case, tmp_path, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_ROOT", raising=False)
    call, message = BAD_CALLS[case]
    assert_call_fails_configuration(tmp_path, RULES_PREAMBLE, call, "et_model_binary", message)


@pytest.mark.build
def test_two_lines_without_a_tree_say_what_ships_and_where_a_tree_is_looked_for(tmp_path, monkeypatch):
    """The default RUNTIME auto in the size configuration needs the tree: the
    error says so, naming the places, and the way back to the wheel."""
    monkeypatch.delenv("EXECUTORCH_ROOT", raising=False)
    assert_call_fails_configuration(
        tmp_path, RULES_PREAMBLE, f"et_model_binary(NAME bin MODEL {PTE})", "et_model_binary",
        "et_model_binary 'bin': RUNTIME auto ships a binary of ETSB_CONFIG size for ETSB_PLATFORM host with "
        "ExecuTorch's runtime compiled from an ExecuTorch source tree, and this build has none: call "
        "et_executorch_tree(ROOT <tree>) before it, configure with -DEXECUTORCH_ROOT=<tree>", "-DETSB_CONFIG=size")


def _configure_rules_alone(tmp_path, *flags: str):
    """Configure a project of the rules' preamble alone with ``flags``."""
    source = tmp_path / "src"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(RULES_PREAMBLE)
    return cmake_configure(source, tmp_path / "build", *flags)


@pytest.mark.build
def test_an_unknown_configuration_is_named_with_the_known_ones(tmp_path):
    from selective_build.driver.platforms import CONFIGS

    result = _configure_rules_alone(tmp_path, "-DETSB_CONFIG=smallest")
    assert result.returncode != 0
    text = " ".join(result.stderr.split())
    assert f"etsb: ETSB_CONFIG must be one of {', '.join(CONFIGS)}, not 'smallest'" in text, result.stderr
    assert "CMakeLists.txt:3 (include)" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.build
def test_a_platform_without_its_toolchain_file_is_refused(tmp_path):
    result = _configure_rules_alone(tmp_path, "-DETSB_PLATFORM=cortex-m55")
    assert result.returncode != 0
    assert ("etsb: ETSB_PLATFORM is cortex-m55 but CMake compiles for this machine: configure with etsb's "
            "toolchain file for it") in " ".join(result.stderr.split()), result.stderr
    assert "CMakeLists.txt:3 (include)" in result.stderr


@pytest.mark.build
def test_the_wheels_runtime_on_another_platform_fails_at_its_line(tmp_path):
    """The wheel's libexecutorch.so is an x86-64 library: refused at the call, as the driver refuses it."""
    assert_call_fails_configuration(
        tmp_path, RULES_PREAMBLE, f"et_model_binary(NAME bin MODEL {PTE} RUNTIME wheel)", "et_model_binary",
        "et_model_binary 'bin': it is built for ETSB_PLATFORM aarch64-linux, where the executorch wheel's "
        "libexecutorch.so (an x86-64 Linux library) cannot run: give it RUNTIME static",
        f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAINS / 'aarch64-linux-gnu.cmake'}")


def test_the_variables_are_bracket_arguments_and_a_list_item_with_a_semicolon_is_refused():
    from selective_build.emit.cmake_variables import render_cmake_variables
    from selective_build.model.errors import UserError

    text = render_cmake_variables({"A": "x ]] $y", "B": ("-Os", "-DX=1")}, "a test")
    assert text.splitlines()[1:] == ["set(A [=[x ]] $y]=])", "set(B [[-Os;-DX=1]])"]
    with pytest.raises(UserError, match="holds ';'"):
        render_cmake_variables({"B": ("/a;b",)}, "a test")
