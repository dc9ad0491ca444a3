"""Int8 on microcontrollers: MLPerf Tiny's four architectures through ExecuTorch's Cortex-M flow, per board.

    .venv/bin/python bench/bench_cortex_m.py [--boards cortex-m55] [--models ds_cnn,...]
    (the first run exports the programs at MLPerf Tiny's sizes, a few minutes; writes
    bench/results/bench_cortex_m.md)

Per board and architecture (random weights, exported by tests/models/export_cortex_m.py
--scale reference for the board's instruction set, into etsb-out/bench/cortex_m/models):
etsb's binary (`et_model_binary(name, model)` with the static runtime, the program and a
sample input embedded, `--config size`) beside ExecuTorch's own way of building the same
program (its stock Cortex-M library registering all its operators beside the tree's portable
library, its CI flags: `--config executorch-ci`) and the same architecture through the portable
int8 path (`quantized_decomposed::` operators around etsb's float kernels, the export's
`--isa portable`), each run under QEMU and checked against its reference (within one
quantization step); flash (text + data) and RAM (data + bss: everything is static) of each. Goal: DS-CNN on the Cortex-M55 within 96 KB of
flash and 48 KB of RAM.

Speed: the instructions each binary's inference executes (the deploy runner's `instructions: N`,
counted under QEMU's -icount shift=0: exact and the same on every run; the binaries are built a
second time for it, with `--define etsb_count_instructions=yes`, since the counter costs about
200 bytes of flash that shipped binaries do not carry), and the portable int8
path's over etsb's (CMSIS-NN's). Goal: at least 3x on DS-CNN, on every board.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np

from lib.env import EXPORT_PYTHON, MODELS_DIR, REPO, TREE, starlark_env
from lib.results import finish, markdown
from lib.timing import choose, listed, parser
from lib.workspace import BuildFailed, etsb_build, model_target, new_workspace, write_model_package
from selective_build.driver.platforms import (CONFIG_DEFINE, EXECUTORCH_CI_CONFIG, PLATFORM_DEFINE, PLATFORMS,
                                              SIZE_CONFIG, output_dir)
from selective_build.readers.deploy_output import read_deploy_output

ARCHITECTURES = ("ds_cnn", "mobilenet_v1", "resnet8", "fc_autoencoder")
# The instruction set each board's programs are lowered for (export_cortex_m.py --isa).
BOARD_ISA = {"cortex-m55": "mve", "cortex-m4": "dsp", "cortex-m33": "dsp"}
PORTABLE = "portable"  # the portable int8 path's programs (export_cortex_m.py --isa portable)
ROOT = REPO / "etsb-out" / "bench" / "cortex_m"
PROGRAMS = ROOT / "models"
GOAL = {"ds_cnn": (96 * 1024, 48 * 1024)}  # (flash, RAM) on the Cortex-M55
SPEED_GOAL = {"ds_cnn": 3.0}  # the portable int8 path's instructions over etsb's, on every board
# What makes a board binary count its instructions (rules/BUILD's count_instructions).
COUNT_INSTRUCTIONS = "etsb_count_instructions=yes"
INSTRUCTIONS = re.compile(r"^instructions: (\d+)$", re.MULTILINE)
CORTEX_M_YAML = "@executorch//backends/cortex_m:operators.yaml"
STOCK = ("et_operator_library(\n    name = \"all_cortex_m\",\n    ops_schema_yaml_target = \"{yaml}\",\n)\n\n"
         .format(yaml=CORTEX_M_YAML))
STOCK_ATTRIBUTES = ('runtime = "static",', "embed_model = True,", 'inputs = ["forward.input_0.npy"],',
                    'deps = [":all_cortex_m"],', f'custom_ops_yaml_target = "{CORTEX_M_YAML}",',
                    'functions_yaml_target = "@executorch//kernels/portable:functions.yaml",',
                    'kernel_deps = ["@executorch//backends/cortex_m:kernels", "@executorch//kernels/portable:kernels"],')
NOTES = """Flash: text + data of the ELF (what the board's flash holds: code, constants, the embedded program
and input, .data's image); RAM: data + bss (the method's pool, its planned buffers and the kernels' scratch are
static arrays sized to the program; the stack's reserve is the linker script's and not counted). 'etsb':
`et_model_binary(name, model)` with the static runtime and the program embedded, `--config size`. 'ExecuTorch's
way': the same program with ExecuTorch's stock Cortex-M library (every operator of its operators.yaml
registered and linked, as its `cortex_m_ops_lib` does) beside its portable library, the full runtime (every
prim op), built with ExecuTorch's CI flags (`--config executorch-ci`). 'matches': the binary's output against
the lowered program run in Python (the portable path's: the quantized torch module), in quantization
steps (<= 1 passes). 'portable int8': the architecture quantized with ExecuTorch's XNNPACKQuantizer and
lowered without a delegate (`quantized_decomposed::` operators around float kernels: etsb's portable and
quantized kernels, chosen by the catalogue), the same etsb binary otherwise.

Published figures for the same tasks, whole applications on real boards (not measured here): ExecuTorch's
Arduino keyword-spotting example with CMSIS-NN (Cortex-M33 under Zephyr) 564,664 B of flash and 45,044 B of
RAM; TFLite Micro's micro_speech sketch 151,480 B, TVM's AOT build of it 125,544 B (whole sketches on an
Arduino Nano 33 BLE); TFLite Micro's framework alone 9,732 B of text on a Cortex-M3.
"""
SPEED_NOTES = """
Instructions per inference: what the deploy runner of the same binary built to count them
(`--define etsb_count_instructions=yes`; the flash and RAM above are without it) prints on stderr
(`instructions: N`), the board's SysTick
cycles over the method's execution alone (not the program's loading) turned into nanoseconds with the board's
clock (platforms/cortex_m/startup.cpp), which QEMU's `-icount shift=0` (the boards' emulator command) makes one
per instruction: exact to one cycle of the clock (31 to 50 instructions), identical on every run. Instructions,
not cycles: QEMU models no pipeline, caches or wait states, so a real core's time also depends on what each
instruction costs (MVE and DSP instructions do several multiply-accumulates each).
"""


def export(boards: list[str], models: list[str]) -> dict:
    """The reference-size programs of ``models`` for the boards' instruction sets (exported once); the manifest."""
    manifest_path = PROGRAMS / "manifest.json"
    known = json.loads(manifest_path.read_text())["models"] if manifest_path.exists() else {}
    for isa in sorted({BOARD_ISA[board] for board in boards} | {PORTABLE}):
        missing = [name for name in models if f"{isa}/{name}" not in known]
        if missing:
            print(f"exporting {', '.join(missing)} for {isa} (reference sizes)", file=sys.stderr)
            subprocess.run([str(EXPORT_PYTHON), "export_cortex_m.py", "--scale", "reference", "--out", str(PROGRAMS),
                            "--isa", isa, *missing], cwd=MODELS_DIR, check=True)
    return json.loads(manifest_path.read_text())["models"]


def flash_and_ram(binary: Path, board: str) -> tuple[int, int]:
    """A board binary's flash (text + data) and static RAM (data + bss), in bytes."""
    sizes = subprocess.run([PLATFORMS[board].size, str(binary)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
    return text + data, data + bss


def steps_and_instructions(binary: Path, board: str, key: str, info: dict) -> tuple[float | None, int | None]:
    """How far the binary's output is from the reference, in quantization steps, and the
    instructions its inference executed (each None: the run failed)."""
    result = subprocess.run([*PLATFORMS[board].emulator, str(binary)], capture_output=True, text=True, timeout=900,
                            stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        return None, None
    output = read_deploy_output(result.stdout, str(binary))[0]
    got = np.frombuffer(output.data, dtype=np.float32).reshape(output.sizes)
    expected = np.load(PROGRAMS / key / info["outputs"][0]["file"])
    counted = INSTRUCTIONS.search(result.stderr)
    return (float(np.abs(got.astype(np.float64) - expected).max()) / info["quant_step"],
            int(counted.group(1)) if counted else None)


def speed_cell(ours: tuple | None, portable: tuple | None, goal: float | None) -> tuple[str, str]:
    """The portable int8 path's instructions over etsb's, and whether that meets ``goal``."""
    if not (ours and portable and ours[3] and portable[3]):
        return "-", ""
    ratio = portable[3] / ours[3]
    return f"{ratio:.2f}x", (f"speed {'met' if ratio >= goal else 'missed'} ({goal:g}x)" if goal else "")


def goal_cell(measured: tuple, goal: tuple[int, int]) -> str:
    """Whether flash and RAM are within the goal's, each, and by how much they miss it."""
    return "; ".join(f"{what} {'met' if got <= limit else f'missed by {got - limit:,} B'} ({limit // 1024} KB)"
                     for what, got, limit in (("flash", measured[0], goal[0]), ("RAM", measured[1], goal[1])))


def speed_row(board: str, name: str, sides: tuple, problems: list[str]) -> list[str]:
    """The instructions row of ``name`` on ``board`` (etsb, ExecuTorch's way, portable int8);
    a missed speed goal is added to ``problems``."""
    ours, _, portable = sides
    ratio, goal = speed_cell(ours, portable, SPEED_GOAL.get(name))
    if goal.startswith("speed missed"):
        problems.append(f"{board} {name}: the portable int8 path's instructions are {ratio} etsb's, "
                        f"under {SPEED_GOAL[name]:g}x")
    return [board, name, *(f"{side[3]:,}" if side and side[3] else "-" for side in sides), ratio, goal]


def measure_side(workspace: Path, env: dict, board: str, side: str, config: str, models: list[str],
                 manifest: dict) -> dict:
    """One side's binaries of ``models`` on ``board``: (model, side) -> (flash, RAM, steps, instructions).
    Flash and RAM as shipped; then the same binaries built to count their instructions, run."""
    package = board.replace("-", "_")
    labels = [f"//{package}/{name}:{side}" for name in models]
    folder = workspace / output_dir({PLATFORM_DEFINE: board, CONFIG_DEFINE: config}) / "bin"
    binaries = {name: folder / package / name / side for name in models}
    build = ("--executorch-root", str(TREE), f"--platform={board}", f"--config={config}")
    etsb_build(workspace, labels, env, *build)
    sizes = {name: flash_and_ram(binary, board) for name, binary in binaries.items()}
    etsb_build(workspace, labels, env, *build, "--define", COUNT_INSTRUCTIONS)
    measured = {}
    for name, binary in binaries.items():
        key = f"{PORTABLE if side == PORTABLE else BOARD_ISA[board]}/{name}"
        measured[(name, side)] = (*sizes[name], *steps_and_instructions(binary, board, key, manifest[key]))
    return measured


def main() -> int:
    """Export what is missing, build both sides per board, run them under QEMU, write the table."""
    args = parser(__doc__, boards=(str, "cortex-m55", "boards, comma-separated: " + ", ".join(BOARD_ISA)),
                  models=(str, ",".join(ARCHITECTURES), "architectures, comma-separated")).parse_args()
    boards = choose("board", listed(args.boards), BOARD_ISA)
    models = choose("model", listed(args.models), ARCHITECTURES)
    if not (TREE / "backends" / "cortex_m").is_dir():
        raise SystemExit(f"no ExecuTorch tree at {TREE}: set ETSB_EXECUTORCH_TREE")
    manifest = export(boards, models)
    workspace = ROOT / "ws"
    new_workspace(workspace)
    env, problems, rows, speed_rows = starlark_env(), [], [], []
    for board in boards:
        isa = BOARD_ISA[board]
        for name in models:
            files = [(p.name, p) for p in (PROGRAMS / isa / name).iterdir()]
            portable = [(f"portable_{p.name}", p) for p in (PROGRAMS / PORTABLE / name).iterdir()]
            write_model_package(workspace / board.replace("-", "_") / name, files + portable, "", [
                model_target("etsb", f"{name}.pte", 'runtime = "static",', "embed_model = True,",
                             'inputs = ["forward.input_0.npy"],'),
                STOCK + model_target("executorch", f"{name}.pte", *STOCK_ATTRIBUTES),
                model_target(PORTABLE, f"portable_{name}.pte", 'runtime = "static",', "embed_model = True,",
                             'inputs = ["portable_forward.input_0.npy"],')])
        measured = {}
        for side, config in (("etsb", SIZE_CONFIG), ("executorch", EXECUTORCH_CI_CONFIG), (PORTABLE, SIZE_CONFIG)):
            try:
                measured.update(measure_side(workspace, env, board, side, config, models, manifest))
            except BuildFailed as failure:
                problems.append(f"{board} {side}: {failure}")
        for name in models:
            ours, theirs, portable = (measured.get((name, side)) for side in ("etsb", "executorch", PORTABLE))
            if ours and ours[2] is None or ours and ours[2] > 1.0 + 1e-6:
                problems.append(f"{board} {name}: etsb's binary does not match its reference")
            goal = GOAL.get(name) if board == "cortex-m55" else None
            speed_rows.append(speed_row(board, name, (ours, theirs, portable), problems))
            rows.append([board, name, f"{manifest[f'{isa}/{name}']['pte_size']:,}",
                         *(f"{ours[i]:,}" if ours else "-" for i in (0, 1)),
                         *(f"{theirs[i]:,}" if theirs else "-" for i in (0, 1)),
                         f"{theirs[0] / ours[0]:.2f}x" if ours and theirs else "-",
                         *(f"{portable[i]:,}" if portable else "-" for i in (0, 1)),
                         *(f"{side[2]:.2f}" if side and side[2] is not None else "fails"
                           for side in (ours, theirs, portable)),
                         goal_cell(ours, goal) if goal and ours else ""])
    table = markdown(["board", "model", ".pte bytes", "etsb flash", "etsb RAM", "ExecuTorch's way flash",
                      "ExecuTorch's way RAM", "flash ratio", "portable int8 flash", "portable int8 RAM",
                      "etsb matches (steps)", "ExecuTorch's matches (steps)", "portable int8 matches (steps)",
                      "goal"], rows)
    speed = markdown(["board", "model", "etsb instructions", "ExecuTorch's way instructions",
                      "portable int8 instructions", "portable / etsb", "goal"], speed_rows)
    return finish("bench_cortex_m", "## Flash and RAM per board\n\n" + table + "\n\n## Instructions per inference\n\n"
                  + speed + "\n\n" + NOTES + SPEED_NOTES, problems)


if __name__ == "__main__":
    sys.exit(main())
