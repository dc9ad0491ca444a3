"""`--platform=cortex-m55`: a model binary for a Cortex-M55 without an
operating system, built with arm-none-eabi-g++ and newlib against ExecuTorch's
runtime from the tree, with the board support of platforms/cortex_m, and run
under QEMU's mps3-an547 board (stdio, files and the exit status through
semihosting).

The corpus MLP, embedded with its inputs (`embed_model = True`) and in the
size configuration, prints what torch computed (so do a small CNN and a
small transformer block), fits the flash budget, and
also runs from the host's files; a program's exit status reaches QEMU's; bad
choices (an unknown platform, the wheel's shared runtime on a board) are clear
errors."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS_DIR, SUMMARY_LINES, TREE
from helpers import assert_deploy_matches_torch, embedded_binaries, etsb, method_meta, new_workspace, run_on_board
from selective_build.driver.platforms import PLATFORMS

pytestmark = [pytest.mark.build, pytest.mark.tree]

PLATFORM = PLATFORMS["cortex-m55"]
FLAGS = ("--executorch-root", str(TREE), "--platform=cortex-m55", "--config=size")
INPUT = method_meta("mlp", "forward")["inputs"][0]["file"]
BUILD = f'''load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(
    name = "mlp",
    model = "mlp.pte",
    runtime = "static",
    embed_model = True,
    inputs = ["{INPUT}"],
)

et_model_binary(
    name = "mlp_file",
    model = "mlp.pte",
    runtime = "static",
)
'''
# A small CNN and a small transformer block, embedded with their inputs, each in a package of its own.
OTHERS = ("cnn", "attention")


# A method pool larger than the board's SRAM: a build-time error naming the budget.
TOO_LARGE_BUILD = (BUILD.split("\n\n")[0] + '\n\net_model_binary(\n    name = "too_large",\n    model = "mlp.pte",\n'
                   '    runtime = "static",\n    method_pool_bytes = 5000000,\n)\n')
# The wheel's runtime (a shared library): there is nothing to load it on a board.
SHARED_BUILD = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
                'et_model_binary(\n    name = "shared",\n    model = "mlp.pte",\n    runtime = "shared",\n)\n')
# The goal for the MLP with its operators, in bytes of flash (code, constants, .data's image).
FLASH_BUDGET = 100 * 1000


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    """The corpus MLP embedded (`mlp`) and read from a file (`mlp_file`),
    built for the Cortex-M55 in the size configuration, and a package with
    a binary on the wheel's runtime."""
    root = new_workspace(tmp_path_factory.mktemp("cortex_m") / "ws")
    for package, build in (("models", BUILD), ("bad", SHARED_BUILD), ("large", TOO_LARGE_BUILD)):
        (root / package).mkdir()
        shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", root / package)
        (root / package / "BUILD").write_text(build)
    shutil.copy(MODELS_DIR / "mlp" / INPUT, root / "models")
    for model in OTHERS:  # a package each: their inputs have the same file names
        (root / model).mkdir()
        for path in (MODELS_DIR / model).iterdir():
            shutil.copy(path, root / model)
        (root / model / "BUILD").write_text(embedded_binaries([model]))
    result = etsb("build", *FLAGS, "//models:mlp", "//models:mlp_file", *(f"//{m}:{m}" for m in OTHERS), cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def on_board(binary: Path, *arguments: str, cwd: Path) -> subprocess.CompletedProcess:
    """``binary`` run under the Cortex-M55's QEMU with ``arguments``, in ``cwd``."""
    return run_on_board(PLATFORM, binary, *arguments, cwd=cwd)


def assert_run_matches_torch(result: subprocess.CompletedProcess) -> None:
    """The run succeeded and printed torch's outputs of the MLP."""
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)


def test_embedded_mlp_runs_on_the_board_as_torch_does(workspace):
    binary = workspace / "etsb-out" / "bin" / "models" / "mlp"
    header = subprocess.run(["readelf", "-h", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "ARM" in header and "EXEC" in header, header
    assert_run_matches_torch(on_board(binary, cwd=workspace))


@pytest.mark.parametrize("model", OTHERS)
def test_a_cnn_and_a_transformer_run_on_the_board_as_torch_does(workspace, model):
    result = on_board(workspace / "etsb-out" / "bin" / model / model, cwd=workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch(model, result.stdout)


def instructions(result: subprocess.CompletedProcess) -> int:
    """The instructions per inference a board run printed on stderr (`instructions: N`, once)."""
    assert result.returncode == 0, result.stdout + result.stderr
    counts = re.findall(r"^instructions: (\d+)$", result.stderr, re.MULTILINE)
    assert len(counts) == 1, result.stderr
    return int(counts[0])


@pytest.fixture(scope="module")
def counting(tmp_path_factory) -> Path:
    """The MLP and the CNN of `workspace`, built to count instructions
    (`--define etsb_count_instructions=yes`), in a workspace of their own (the
    compiles they share with `workspace` come from the suite's compiler cache)."""
    root = new_workspace(tmp_path_factory.mktemp("cortex_m_counting") / "ws")
    for model in ("mlp", "cnn"):
        (root / model).mkdir()
        for path in (MODELS_DIR / model).iterdir():
            shutil.copy(path, root / model)
        (root / model / "BUILD").write_text(embedded_binaries([model]))
    result = etsb("build", *FLAGS, "--define", "etsb_count_instructions=yes", "//mlp:mlp", "//cnn:cnn", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def flash(binary: Path) -> int:
    """A board binary's flash: its text and data."""
    sizes = subprocess.run([PLATFORM.size, str(binary)], capture_output=True, text=True, check=True).stdout
    text, data = (int(word) for word in sizes.splitlines()[1].split()[:2])
    return text + data


def test_the_instructions_per_inference_are_printed_when_asked_for_and_the_same_on_every_run(workspace, counting):
    """Under QEMU's -icount shift=0 (the board's emulator command) the deploy
    runner's count of the method's instructions is exact: two runs of the same
    binary give the same positive count, the CNN's more than the MLP's; the
    outputs on stdout stay what the reader parses. A binary not built to count
    prints no count and is smaller by the counter's code."""
    mlp = counting / "etsb-out" / "bin" / "mlp" / "mlp"
    first, second = (on_board(mlp, cwd=counting) for _ in range(2))
    assert instructions(first) == instructions(second) > 1000, first.stderr
    assert_deploy_matches_torch("mlp", first.stdout)
    cnn = on_board(counting / "etsb-out" / "bin" / "cnn" / "cnn", cwd=counting)
    assert instructions(cnn) > instructions(first), (cnn.stderr, first.stderr)
    default = workspace / "etsb-out" / "bin" / "cnn" / "cnn"  # the same target, not counting
    quiet = on_board(default, cwd=workspace)
    assert quiet.returncode == 0 and "instructions:" not in quiet.stderr, quiet.stderr
    assert_deploy_matches_torch("cnn", quiet.stdout)
    counted = counting / "etsb-out" / "bin" / "cnn" / "cnn"
    assert 0 < flash(counted) - flash(default) < 400, (flash(counted), flash(default))


def test_program_and_inputs_from_the_host_files(workspace, tmp_path):
    """The deploy runner reads the program and its input through semihosting."""
    raw = tmp_path / "input.bin"
    np.load(MODELS_DIR / "mlp" / INPUT).tofile(raw)
    binary = workspace / "etsb-out" / "bin" / "models" / "mlp_file"
    assert_run_matches_torch(on_board(binary, "models/mlp.pte", str(raw), cwd=workspace))


def test_the_exit_status_is_the_programs(workspace):
    # An embedded program takes no arguments: the runner refuses them with status 2.
    result = on_board(workspace / "etsb-out" / "bin" / "models" / "mlp", "extra", cwd=workspace)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error: the program and its inputs are embedded: give no arguments" in result.stderr


def test_mlp_fits_the_flash_budget(workspace):
    binary = workspace / "etsb-out" / "bin" / "models" / "mlp"
    sizes = subprocess.run([PLATFORM.size, str(binary)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
    SUMMARY_LINES.append(f"cortex-m55 MLP (embedded, size config): flash {text + data:,} B "
                         f"(text {text:,}, data {data:,}), static RAM {data + bss:,} B")
    assert text + data <= FLASH_BUDGET, sizes


def linked_symbols(binary: Path) -> set[str]:
    """The names of the symbols a board binary defines."""
    table = subprocess.run(["arm-none-eabi-nm", "--defined-only", str(binary)], capture_output=True, text=True,
                           check=True).stdout
    return {line.split()[-1] for line in table.splitlines() if line.strip()}


def test_the_board_formats_with_its_own_snprintf_and_frees_only_what_it_allocated(workspace):
    """The embedded MLP's operator names are formatted by the board's snprintf
    (platforms/cortex_m/format.cpp), not newlib-nano's printf core; allocating
    nothing, it links no allocator (delete.cpp's weak operator delete, for the
    deleting destructors of ExecuTorch's virtual classes). The MLP read from a
    file allocates its program with operator new and links new.cpp's operator
    delete, which frees: both run as torch does (the tests above and below)."""
    embedded = linked_symbols(workspace / "etsb-out" / "bin" / "models" / "mlp")
    # newlib's snprintf is _snprintf_r's wrapper; its core _svfprintf_r and _printf_i.
    assert "snprintf" in embedded and not embedded & {"_snprintf_r", "_svfprintf_r", "_printf_i"}, embedded
    assert not embedded & {"malloc", "_malloc_r", "_free_r", "_sbrk"}, embedded
    from_file = linked_symbols(workspace / "etsb-out" / "bin" / "models" / "mlp_file")
    assert {"snprintf", "_malloc_r", "_free_r"} <= from_file and "_snprintf_r" not in from_file, from_file


def test_etsb_run_takes_npy_files_and_writes_npy_outputs(workspace, tmp_path):
    """`etsb run` reads the .npy inputs on the host, passes them through
    semihosting as raw files, and turns what the board printed into .npy files."""
    from helpers import assert_outputs_match

    inputs = MODELS_DIR / "mlp" / INPUT
    result = etsb("run", *FLAGS, "//models:mlp_file", "--", "--model", "models/mlp.pte", "--inputs", str(inputs),
                  "--output-dir", str(tmp_path / "out"), cwd=workspace)
    assert result.returncode == 0, result.stdout + result.stderr
    expected = [MODELS_DIR / "mlp" / o["file"] for o in method_meta("mlp", "forward")["outputs"]]
    assert_outputs_match(expected, tmp_path / "out", "mlp on cortex-m55 through etsb run")
    printed = etsb("run", *FLAGS, "//models:mlp", cwd=workspace)
    assert printed.returncode == 0 and printed.stdout.startswith("output 0: Float [2, 4]\n"), printed.stderr


def test_a_program_too_large_for_the_board_fails_the_build_naming_the_budget(workspace):
    result = etsb("build", *FLAGS, "//large:too_large", cwd=workspace)
    assert result.returncode == 1, result.stdout[-2000:]
    output = result.stdout + result.stderr
    budget = PLATFORM.ram_bytes - PLATFORM.ram_reserved_bytes
    assert "large/BUILD:" in output and "large/mlp.pte needs 5,000," in output and "(method pool 5,000,000, " \
        "planned buffers and inputs" in output and f"more than the board's budget of {budget} bytes" in output, \
        output[-3000:]


def test_a_program_read_from_a_file_too_large_for_the_boards_ram_fails_the_build(workspace):
    """A binary reading its program from a file holds the program in its heap: pools that fit,
    with a program that does not fit beside them, fail the build (a 5 MB program on a board of
    4 MiB of RAM built, then failed at run time), naming the program's bytes and the budget."""
    from selective_build.readers.pte_memory import read_method_memory
    from selective_build.stages.deploy_memory import deploy_pools

    program = (MODELS_DIR / "mlp" / "mlp.pte").read_bytes()
    budget = PLATFORM.ram_bytes - PLATFORM.ram_reserved_bytes
    planned = deploy_pools(read_method_memory(program, "mlp.pte")[0], True).planned
    pool = budget - planned - len(program) // 2  # the pools fit; with the program beside them, they do not
    (workspace / "read").mkdir(exist_ok=True)
    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", workspace / "read")
    (workspace / "read" / "BUILD").write_text(SHARED_BUILD.split("\n\n")[0] + "\n\n" + 
        f'et_model_binary(name = "read", model = "mlp.pte", method_pool_bytes = {pool})\n')
    result = etsb("build", *FLAGS, "//read:read", cwd=workspace)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-2000:]
    assert "read/BUILD:3:1:" in output and (f"read/mlp.pte: a binary reading it from a file holds its {len(program):,} "
                                            f"bytes in RAM, beside {pool + planned:,} bytes of static memory: more "
                                            f"than the board's budget of {budget} bytes") in output, output[-3000:]
    assert "embed_model = True keeps the program in flash" in output


def test_unknown_platform_is_a_clear_error(workspace):
    result = etsb("build", "--platform=cortex-m5", "//models:mlp", cwd=workspace)
    assert result.returncode == 2
    assert ("--platform must be one of host, x86_64-linux, aarch64-linux, cortex-m55, cortex-m4, cortex-m33, "
            "not 'cortex-m5'") in result.stderr
    assert "Traceback" not in result.stderr


def test_shared_runtime_on_a_board_is_a_clear_error(workspace):
    result = etsb("build", *FLAGS, "//bad:shared", cwd=workspace)
    assert result.returncode != 0
    assert ("bad/BUILD:3:1: error: cxx_binary '//bad:shared': it is built for --platform=cortex-m55 but links "
            "//runtime:executorch, prebuilt for --platform=host only") in result.stderr, result.stderr
    assert 'give the binary runtime = "static"' in result.stderr and "Traceback" not in result.stderr
    assert not (workspace / "etsb-out" / "bin" / "bad" / "shared").exists()


def test_stripped_size_uses_the_platforms_strip(workspace, tmp_path):
    """`etsb size` and the dtype-selective pick strip a Cortex-M binary with
    arm-none-eabi-strip (the host's strip cannot read it)."""
    from selective_build.driver.pick import stripped_sizes

    binary = workspace / "etsb-out" / "bin" / "models" / "mlp"
    assert subprocess.run(["strip", "-o", str(tmp_path / "host"), str(binary)], capture_output=True).returncode != 0
    subprocess.run(["arm-none-eabi-strip", "-o", str(tmp_path / "arm"), str(binary)], check=True)
    assert stripped_sizes([str(binary)]) == [(tmp_path / "arm").stat().st_size]


def test_size_splits_a_board_binary_into_its_parts(workspace):
    """`etsb size`'s measure of the embedded MLP on the board: its flash and
    static RAM (as arm-none-eabi-size counts them), and of the flash
    ExecuTorch's runtime core and prim ops apart, the kernels, their
    registration, the deploy runner, the embedded program, and newlib, libgcc
    and the board's start-up as the C library, each with bytes."""
    from selective_build.driver import size as size_mod

    binary = workspace / "etsb-out" / "bin" / "models" / "mlp"
    measured = size_mod.measure(str(workspace), "etsb-out/bin/models/mlp", "//models:mlp", board=True)
    parts = measured.parts
    for part in (size_mod.PART_RUNTIME, size_mod.PART_PRIM_OPS, size_mod.PART_KERNELS, size_mod.PART_REGISTRATION,
                 size_mod.PART_RUNNER, size_mod.PART_MODEL, size_mod.PART_CXX):
        assert parts.get(part, 0) > 0, (part, parts)
    assert parts[size_mod.PART_RUNTIME] > 10 * parts[size_mod.PART_PRIM_OPS], parts  # only the prim ops it calls
    assert parts[size_mod.PART_CXX] > 5_000 and size_mod.PART_KERNEL_SUPPORT not in parts, parts
    # The board's C library and start-up without newlib's printf core (the PAL's log lines, the
    # board's own snprintf), its allocator (nothing allocates), its signal-raising abort and
    # librdimon (6,526 bytes measured; 11,323 with newlib's printf and allocator, over 15,000
    # with all of them).
    assert parts[size_mod.PART_CXX] < 8_000, parts
    # The parts are of the flash, which etsb size reports with the static RAM, not the file's size.
    assert sum(parts.values()) == measured.flash and measured.runtime == 0
    sizes = subprocess.run([PLATFORM.size, str(binary)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
    assert (measured.flash, measured.ram) == (text + data, data + bss) and measured.flash < measured.stripped
    assert parts[size_mod.PART_OTHER_BOARD] < 1024 and size_mod.PART_OTHER not in parts, parts
    table = size_mod.render_size_table("//models:mlp", [measured])
    assert table.splitlines()[3].startswith("flash (text + data)") and "stripped" not in table, table
    assert f"//models:mlp: flash {text + data:,} B, static RAM {data + bss:,} B" in table, table
