"""The boards beside the Cortex-M55 (tests/test_cortex_m.py covers it and what
every board shares): `--platform=cortex-m4` (QEMU's mps2-an386) and
`--platform=cortex-m33` (mps2-an505, the class of the Raspberry Pi Pico 2's
RP2350), each with its own memories (platforms/cortex_m/<board>.ld) and the
shared start-up code.

One workspace, built once per board (the size configuration, the static
runtime, the deploy runner): the corpus MLP and small CNN, embedded with their
inputs, print what torch computed under each board's QEMU; the binaries are
the core's (its architecture and FPU in the ELF attributes) and `etsb size`
gives their flash and static RAM; `etsb run` builds and runs on the board;
and the single-operator programs of `rand` and `native_dropout`, whose
kernels keep a 64-bit atomic position that these cores cannot update in one
instruction (platforms/cortex_m/atomics.cpp), link and pass their in-graph
checks. Running out of memory is said: a stack overflow faults (each core's
guard), a program larger than the heap and a command line longer than the
start-up takes are refused."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from conftest import MODELS_DIR, REPO, SUMMARY_LINES, TREE
from helpers import (assert_deploy_matches_torch, deploy_outputs, embedded_binaries, etsb, method_meta,
                     new_workspace, run_on_board)
from selective_build.driver.platforms import CONFIG_DEFINE, PLATFORM_DEFINE, PLATFORMS, output_dir

pytestmark = [pytest.mark.build, pytest.mark.tree]

# Each board and what its binaries' ELF attributes say of its core and FPU.
BOARDS = {
    "cortex-m4": ("Tag_CPU_arch: v7E-M", "Tag_FP_arch: VFPv4-D16"),
    "cortex-m33": ("Tag_CPU_arch: v8-M.mainline", "Tag_FP_arch: FPv5/FP-D16 for ARMv8"),
}
MODELS = ("mlp", "cnn")
# Single-operator programs of the op corpus whose first method (bf16_contract)
# checks the kernel's contract in the graph and returns only True values:
# rand's takes no input (embedded); native_dropout's reads one from the host.
RANDOM = "random"
RAND, DROPOUT = "aten_rand_out", "aten_native_dropout_out"
RANDOM_BUILD = f'''load("//rules:executorch.bzl", "et_model_binary")

et_model_binary(
    name = "rand",
    model = "{RAND}.pte",
    runtime = "static",
    embed_model = True,
)

et_model_binary(
    name = "dropout",
    model = "{DROPOUT}.pte",
    runtime = "static",
)
'''
# A program of its own on the tree's runtime (the board's start-up, its main
# called with QEMU's command line): recursing N times with half a KiB of stack each.
DEEP = "deep"
DEEP_SOURCE = """#include <cstdio>
#include <cstdlib>

int deep(int depth, volatile char* previous) {
  volatile char frame[512];
  frame[0] = previous != nullptr ? static_cast<char>(previous[0] + 1) : 0;
  frame[511] = 1;
  if (depth == 0) return frame[0];
  return deep(depth - 1, frame) + frame[511] - 1;
}

int main(int argc, char** argv) {
  std::printf("reached %d\\n", deep(argc > 1 ? std::atoi(argv[1]) : 0, nullptr));
  return 0;
}
"""
DEEP_BUILD = f"""load("//rules:private/shim.bzl", "etsb_cxx_binary")

etsb_cxx_binary(
    name = "{DEEP}",
    srcs = ["{DEEP}.cpp"],
    deps = ["@executorch//:runtime_core"],
)
"""
TARGETS = (*(f"//{model}:{model}" for model in MODELS), f"//{RANDOM}:rand", f"//{RANDOM}:dropout", f"//{DEEP}:{DEEP}")


def flags(board: str) -> tuple[str, ...]:
    return ("--executorch-root", str(TREE), f"--platform={board}", "--config=size")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict:
    """Per board: its binaries (a copy of etsb-out/bin, link maps beside) and
    what `etsb run` of the embedded MLP printed, right after the board's build
    (so that it builds nothing); and the workspace, whose files the binaries
    read."""
    base = tmp_path_factory.mktemp("boards")
    root = new_workspace(base / "ws")
    for model in MODELS:  # a package each: their inputs have the same file names
        (root / model).mkdir()
        for path in (MODELS_DIR / model).iterdir():
            shutil.copy(path, root / model)
        (root / model / "BUILD").write_text(embedded_binaries([model]))
    (root / RANDOM).mkdir()
    for op in (RAND, DROPOUT):
        shutil.copy(MODELS_DIR / "ops" / op / f"{op}.pte", root / RANDOM)
    (root / RANDOM / "BUILD").write_text(RANDOM_BUILD)
    (root / DEEP).mkdir()
    (root / DEEP / f"{DEEP}.cpp").write_text(DEEP_SOURCE)
    (root / DEEP / "BUILD").write_text(DEEP_BUILD)
    np.load(MODELS_DIR / "ops" / DROPOUT / "cases.npz")["bf16_contract.input_0"].tofile(root / RANDOM / "input.bin")
    found = {"root": root}
    for board in BOARDS:
        result = etsb("build", *flags(board), *TARGETS, cwd=root)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        printed = etsb("run", *flags(board), "//mlp:mlp", cwd=root)
        shutil.copytree(root / "etsb-out" / "bin", base / board)
        found[board] = (base / board, printed)
    return found


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("model", MODELS)
def test_the_mlp_and_the_cnn_run_on_the_board_as_torch_does(built, board, model):
    result = run_on_board(PLATFORMS[board], built[board][0] / model / model, cwd=built["root"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert_deploy_matches_torch(model, result.stdout)


@pytest.mark.parametrize("board", BOARDS)
def test_float_programs_compile_no_cmsis_nn(built, board):
    """CMSIS-NN serves ExecuTorch's Cortex-M kernels only, which no float program calls:
    the catalogue's builds here compile none of it (driver/cxx.py, linked_if_selected)."""
    objects = built["root"] / output_dir({PLATFORM_DEFINE: board, CONFIG_DEFINE: "size"}) / "obj" / "external"
    assert (objects / "executorch").is_dir()
    assert not (objects / "cmsis_nn").exists()


@pytest.mark.parametrize("board", BOARDS)
def test_the_binary_is_the_boards_cores_with_its_fpu(built, board):
    binary = built[board][0] / "mlp" / "mlp"
    attributes = subprocess.run(["arm-none-eabi-readelf", "-A", str(binary)], capture_output=True, text=True,
                                check=True).stdout
    for tag in (*BOARDS[board], "Tag_ABI_VFP_args: VFP registers"):
        assert tag in attributes, (tag, attributes)


@pytest.mark.parametrize("board", BOARDS)
def test_etsb_run_runs_on_the_board(built, board):
    printed = built[board][1]
    assert printed.returncode == 0, printed.stdout + printed.stderr
    assert printed.stdout.startswith("output 0: Float [2, 4]\n"), printed.stdout
    values = np.array(printed.stdout.splitlines()[1].split(), dtype=np.float32).reshape(2, 4)
    expected = np.load(MODELS_DIR / "mlp" / method_meta("mlp")["outputs"][0]["file"])
    np.testing.assert_allclose(values, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("board", BOARDS)
def test_flash_and_ram_fit_the_board_and_are_what_size_reports(built, board):
    """`etsb size`'s measure of a board binary is its flash (text + data) and
    static RAM (data + bss), as arm-none-eabi-size counts them, within the
    board's memories; its parts add up to the flash."""
    from selective_build.driver import size as size_mod

    platform = PLATFORMS[board]
    for model in MODELS:
        binary = built[board][0] / model / model
        measured = size_mod.measure(str(binary.parent), model, f"//{model}:{model}", board=True)
        sizes = subprocess.run([platform.size, str(binary)], capture_output=True, text=True, check=True).stdout
        text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
        assert (measured.flash, measured.ram) == (text + data, data + bss), sizes
        assert sum(measured.parts.values()) == measured.flash and measured.parts[size_mod.PART_KERNELS] > 0
        assert measured.flash <= platform.flash_bytes and measured.ram <= platform.ram_bytes
        SUMMARY_LINES.append(f"{board} {model} (embedded, size config): flash {measured.flash:,} B, "
                             f"static RAM {measured.ram:,} B")


@pytest.mark.parametrize("board", BOARDS)
def test_rand_and_dropout_link_and_keep_their_contract_on_the_board(built, board):
    """rand's and native_dropout's kernels advance the stream's 64-bit
    position atomically: on these cores through the board's 8-byte atomics.
    Each program's first method checks the kernel's contract (range, mean,
    the dropout mask's rate and scaling) and returns True for each check."""
    binaries = built[board][0] / RANDOM
    symbols = subprocess.run(["arm-none-eabi-nm", str(binaries / "rand")], capture_output=True, text=True,
                             check=True).stdout
    assert " T __atomic_fetch_add_8" in symbols, "rand's stream position no longer takes the 8-byte atomic"
    for result in (run_on_board(PLATFORMS[board], binaries / "rand", cwd=built["root"]),
                   run_on_board(PLATFORMS[board], binaries / "dropout", f"{RANDOM}/{DROPOUT}.pte",
                                f"{RANDOM}/input.bin", cwd=built["root"])):
        assert result.returncode == 0, result.stdout + result.stderr
        outputs = deploy_outputs(result.stdout)
        assert outputs and all(output.dtype == np.bool_ and output.all() for output in outputs), result.stdout


def test_pick_smaller_keeps_the_board_binary_taking_the_least_flash(built, tmp_path):
    """`etsb pick-smaller` (how dtype_selective_build keeps the smaller link)
    compares board binaries by flash (text + data), not by file size, and says
    so, with the kept one's RAM (data + bss)."""
    candidates = [built["cortex-m4"][0] / model / model for model in ("cnn", "mlp")]
    result = etsb("pick-smaller", "--output", str(tmp_path / "picked"), "--no-link-map", *map(str, candidates),
                  cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    flash, ram = [], []
    for path in candidates:
        sizes = subprocess.run([PLATFORMS["cortex-m4"].size, str(path)], capture_output=True, text=True,
                               check=True).stdout
        text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
        flash.append(text + data)
        ram.append(data + bss)
    assert (f"picked: mlp ({flash[1]:,} bytes of flash, {ram[1]:,} of RAM; cnn {flash[0]:,}, mlp {flash[1]:,})"
            in result.stdout), result.stdout
    assert (tmp_path / "picked").read_bytes() == candidates[1].read_bytes()


@pytest.mark.parametrize("board", BOARDS)
def test_a_stack_overflow_ends_the_run_saying_so(built, board):
    """The stack's top 32 KiB of SRAM are kept from the heap, and crossing their
    limit faults (the Cortex-M33's stack limit register; the Cortex-M4's MPU
    guard): the run ends with status 134 and says why, instead of overwriting
    the heap and the program's data and going on."""
    binary = built[board][0] / DEEP / DEEP
    shallow = run_on_board(PLATFORMS[board], binary, "8", cwd=built["root"])
    assert shallow.returncode == 0 and shallow.stdout == "reached 8\n", shallow.stdout + shallow.stderr
    overflowing = run_on_board(PLATFORMS[board], binary, "400", cwd=built["root"])  # 200 KiB of frames
    assert overflowing.returncode == 134, overflowing.stdout + overflowing.stderr
    assert "etsb: stack overflow, run ended" in overflowing.stdout + overflowing.stderr
    assert "reached" not in overflowing.stdout


@pytest.mark.parametrize("board", BOARDS)
def test_a_program_larger_than_the_heap_and_a_long_command_line_are_refused_saying_so(built, board, tmp_path):
    """The file-reading binary asks for the program's bytes on the heap, which
    ends at the stack's reserve: a program larger than that is refused with its
    size (the toolchain's operator new aborted with no word); a command line
    longer than the start-up's buffer is said as such (it ran with none,
    printing a usage line)."""
    platform, binary = PLATFORMS[board], built[board][0] / RANDOM / "dropout"
    large = tmp_path / "large.pte"
    large.write_bytes(bytes(platform.ram_bytes + (1 << 20)))
    result = run_on_board(platform, binary, str(large), f"{RANDOM}/input.bin", cwd=built["root"])
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error: the program file is larger than the heap can hold (ExecuTorch error 33)\n{large}: " \
           f"{platform.ram_bytes + (1 << 20)} bytes" in result.stderr, result.stderr
    long_line = run_on_board(platform, binary, "x" * 600, cwd=built["root"])
    assert long_line.returncode == 2, long_line.stdout + long_line.stderr
    assert "etsb: command line over 511 bytes" in long_line.stdout + long_line.stderr
    assert "usage" not in long_line.stdout + long_line.stderr


@pytest.mark.parametrize("name", ["cortex-m55", *BOARDS])
def test_a_binary_too_large_for_the_flash_fails_its_link_naming_the_budget(name, tmp_path):
    """Code and constants beyond the board's flash (a 4.2 MB model embedded for the Cortex-M4 passed the
    deploy source's check of the embedded bytes alone): the link fails naming the flash's size, and
    the linker says by how much."""
    board = PLATFORMS[name]
    source = tmp_path / "big.cpp"
    # Constants a little larger than the flash, kept by the reset handler's reference.
    source.write_text(f"extern const char big[{board.flash_bytes}] = {{1}};\n"
                      'extern "C" void Reset_Handler() { for (;;) (void)*(volatile const char*)big; }\n')
    scripts = REPO / "platforms" / "cortex_m"
    result = subprocess.run([board.compiler, *board.link_flags, "-nostartfiles", "-o", str(tmp_path / "big"),
                             str(source), f"-T{scripts / (board.board + '.ld')}", f"-T{scripts / 'sections.ld'}"],
                            capture_output=True, text=True)
    assert result.returncode != 0
    assert (f"etsb: the binary (code, constants, an embedded program) takes more than the board's "
            f"{board.flash_bytes:,} bytes ({board.flash_bytes >> 20} MiB) of flash") in result.stderr, result.stderr
    assert "region `FLASH' overflowed by" in result.stderr
