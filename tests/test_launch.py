"""`etsb run`'s parts that need no build: its command line (the runner's
arguments after `--`), how a binary of each platform is started here, the
`.npy` files it writes for a deploy binary, and the board budgets the
platforms table gives the compiles (checked against the board's linker script)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from conftest import REPO
from selective_build.argv import parse, usage_line
from selective_build.driver.launch import command_line, run_binary
from selective_build.driver.platforms import PLATFORMS, X86_64_LINUX, board_budget_flags, toolchain
from selective_build.emit.deploy_source import FLASH_BUDGET, RAM_BUDGET, deploy_source
from selective_build.emit.npy import can_hold, npy_bytes
from selective_build.model.dtypes import SCALAR_TYPES
from selective_build.model.errors import UserError
from selective_build.model.program import DeployPools
from selective_build.readers.npy import read_npy


@pytest.mark.parametrize("array", [np.arange(12, dtype=np.float32).reshape(3, 4), np.array(7, dtype=np.int64),
                                   np.array([True, False]), np.zeros((2, 0, 3), dtype=np.float16),
                                   np.arange(5, dtype=np.uint8)])
def test_npy_files_written_without_numpy_are_numpys(array, tmp_path):
    dtype = SCALAR_TYPES[{"float32": "Float", "int64": "Long", "bool": "Bool", "float16": "Half",
                          "uint8": "Byte"}[array.dtype.name]]
    data = npy_bytes(dtype, array.shape, array.tobytes())
    loaded = np.load(io.BytesIO(data))
    assert loaded.dtype == array.dtype and loaded.shape == array.shape and np.array_equal(loaded, array)
    assert len(data) % 64 == array.nbytes % 64  # the data starts on a 64-byte boundary
    path = tmp_path / "a.npy"
    path.write_bytes(data)
    assert read_npy(str(path)).data == array.tobytes()


def test_bfloat16_has_no_npy_dtype():
    assert not can_hold(SCALAR_TYPES["BFloat16"]) and can_hold(SCALAR_TYPES["Float"])


def test_the_arguments_after_dashes_are_the_runners():
    command, values = parse(["run", "--config=size", "//app:bin", "--", "--model", "m.pte", "--threads", "2"])
    assert values.target == "//app:bin" and values.runner_args == ["--model", "m.pte", "--threads", "2"]
    assert values.config == "size" and usage_line(command).endswith("TARGET [-- ARGUMENT ...]")
    assert parse(["run", "//app:bin"])[1].runner_args == []


def test_a_binary_starts_directly_under_qemu_user_or_on_a_board():
    assert command_line(PLATFORMS["host"], "bin", ["--model", "m.pte"]) == ["bin", "--model", "m.pte"]
    assert command_line(PLATFORMS["aarch64-linux"], "bin", ["a"])[:2] == ["qemu-aarch64", "-L"]
    board = command_line(PLATFORMS["cortex-m55"], "bin", ["m.pte", "in.bin"])
    assert board[0] == "qemu-system-arm" and board[-4:] == ["-kernel", "bin", "-append", "m.pte in.bin"]
    assert command_line(PLATFORMS["cortex-m55"], "bin", [])[-2:] == ["-kernel", "bin"]
    with pytest.raises(UserError, match="'my model.pte': a cortex-m55 binary's arguments reach it through "
                                        "semihosting's command line"):
        command_line(PLATFORMS["cortex-m55"], "bin", ["my model.pte"])


@pytest.mark.parametrize("runner", ["development", "deploy, embedded"])
def test_a_binary_killed_by_a_signal_is_named_with_the_shells_status(runner, tmp_path, capsys):
    """A crash is 128 + the signal (139 for SIGSEGV), the signal named; never Python's 256 - 11 = 245."""
    from types import SimpleNamespace

    from selective_build.driver.layout import DEPLOY_EMBEDDED, DEVELOPMENT_RUNNER
    binary = tmp_path / "bin"
    binary.write_text("#!/bin/sh\nkill -SEGV $$\n")
    binary.chmod(0o755)
    target = SimpleNamespace(label="//app:bin",
                             runner=DEVELOPMENT_RUNNER if runner == "development" else DEPLOY_EMBEDDED)
    request = SimpleNamespace(model=None, inputs=[], output_dir=None)
    assert run_binary(target, str(binary), PLATFORMS["host"], [], request) == 139
    assert "etsb run: //app:bin was killed by signal SIGSEGV (11); exit status 139" in capsys.readouterr().err
    binary.write_text("#!/bin/sh\nexit 3\n")
    assert run_binary(target, str(binary), PLATFORMS["host"], [], request) == 3
    assert "signal" not in capsys.readouterr().err


def test_x86_64_linux_is_the_hosts_compiler_for_binaries_to_ship():
    chosen = toolchain({"etsb_platform": X86_64_LINUX}, "g++")
    assert chosen.cxx == "g++" and PLATFORMS[X86_64_LINUX].hosted and not board_budget_flags(PLATFORMS[X86_64_LINUX])


@pytest.mark.parametrize("name", [name for name, platform in PLATFORMS.items() if not platform.hosted])
def test_the_boards_budget_is_its_linker_scripts_memory(name):
    """Each board's linker script (platforms/cortex_m/<board>.ld) and the table
    give the same sizes, the shared sections.ld keeps the table's reserve, and
    the compiles get the RAM a program's static data may take and the flash."""
    board = PLATFORMS[name]
    scripts = REPO / "platforms" / "cortex_m"
    script = (scripts / f"{board.board}.ld").read_text()
    lengths = {name: int(size) << 10 if unit == "K" else int(size) << 20
               for name, size, unit in re.findall(r"^\s*(\w+) \(\w+\)\s*: ORIGIN = \w+, LENGTH = (\d+)([KM])$",
                                                  script, re.M)}
    assert lengths["FLASH"] == board.flash_bytes and lengths["SRAM"] == board.ram_bytes
    assert f"__StackTop - end >= {board.ram_reserved_bytes >> 10}K" in (scripts / "sections.ld").read_text()
    flags = board_budget_flags(board)
    assert flags == (f"-D{RAM_BUDGET}={board.ram_bytes - board.ram_reserved_bytes}",
                     f"-D{FLASH_BUDGET}={board.flash_bytes}")
    assert all(flag in toolchain({"etsb_platform": name}, "g++").compile_flags for flag in flags)
    assert board.emulator[:3] == ("qemu-system-arm", "-M", board.emulator[2]) and board.board in board.emulator[2]


def test_a_deploy_source_checks_its_program_against_a_boards_budget():
    text = deploy_source(DeployPools(1000, 200, 16), b"\x01\x02", [b"\x00" * 8], 'odd "name".pte')
    assert f"static_assert(sizeof(etsb_deploy::method_pool) + 216 <= {RAM_BUDGET}, " in text
    assert "needs 1,216 bytes of static memory" in text and f"static_assert(10 <= {FLASH_BUDGET}, " in text
    assert 'odd \\"name\\".pte needs 1,216 bytes of static memory (method pool 1,000, planned buffers and inputs ' \
           '200, kernel scratch 16)' in text
    assert text.index(f"#ifdef {RAM_BUDGET}") < text.index("static_assert")
    assert "reading it from a file" not in text  # embedded: the program is in flash
    assert "reading it from a file" not in deploy_source(DeployPools(1000, 200, 16), b"\x01", [], "m.pte", 5)


def test_a_deploy_source_counts_a_program_read_from_a_file_in_the_boards_ram():
    """The file-reading runner holds the whole program in its heap: on a board, the program's
    bytes and the static pools must fit the RAM budget together."""
    text = deploy_source(DeployPools(1000, 200, 16), None, [], "m.pte", program_size=5_000_000)
    assert f"static_assert(sizeof(etsb_deploy::method_pool) + 216 <= {RAM_BUDGET}, " in text
    assert f"static_assert(sizeof(etsb_deploy::method_pool) + 5000216 <= {RAM_BUDGET}, " in text
    assert ("m.pte: a binary reading it from a file holds its 5,000,000 bytes in RAM, beside 1,216 bytes of static "
            "memory: more than the board's budget of \" ETSB_TEXT(") in text
    assert text.index(f"#ifdef {RAM_BUDGET}") < text.index("5000216") < text.index("#endif")


def test_a_deploy_sources_method_pool_is_sized_by_the_targets_pointers():
    """A 32-bit board's runtime structures take about half a 64-bit host's: the compiler picks the pool."""
    text = deploy_source(DeployPools(3000, 200, 0, 1600), None, [], "m.pte")
    assert "uint8_t method_pool[sizeof(void*) > 4 ? 3000 : 1600];" in text
    assert "kMethodPoolSize = sizeof(method_pool);" in text and "needs 1,800 bytes" in text
    assert "uint8_t method_pool[3000];" in deploy_source(DeployPools(3000, 200, 0), None, [], "m.pte")
