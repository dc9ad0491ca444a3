"""The deploy path under Bazel 4 (Debian's 4.2.3; tests/test_bazel7.py builds
the same MLP with Bazel 7): `runtime = "static"` (ExecuTorch's runtime
compiled from the tree by the same BUILD overlay as in etsb's driver), the
size configuration and the platforms of bazel/etsb.bazelrc
(`--config=size`, `--config=aarch64_linux`, `--config=cortex_m55`).

One binary, //examples/executorch_tree:mlp_static (the corpus MLP embedded
with its input, dtype-selective), built on the shared output base of
test_bazel.py (conftest.py's bazel_examples) for the host in both
configurations, for aarch64 Linux (run under qemu-aarch64) and for the
Cortex-M55 (run under QEMU's mps3-an547 board, output through semihosting);
each prints torch's outputs and is within the issue's size goals (the
figures beside the driver's: docs/bazel.md).
`--define` values etsb does not know, or a platform define that is not the
target platform's, stop the analysis with a clear message; so does a binary
on the wheel's runtime built for any platform but the host."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from binary_helpers import linked
from conftest import MODELS_DIR
from helpers import BAZEL_BUILD, assert_deploy_matches_torch, run_on_board, stripped_size, write_deploy_inputs
from selective_build.driver.platforms import CONFIGS, PLATFORMS

pytestmark = [pytest.mark.build, pytest.mark.tree]

TARGET = "//examples/executorch_tree:mlp_static"
# The smaller of its two forms (dtype_selective_build), beside bazel-bin's examples/.
BINARY = Path("examples/executorch_tree/mlp_static_smallest/mlp_static")
# The goals (docs/deploy.md): the MLP on x86-64, and in a Cortex-M's flash.
HOST_GOAL_BYTES = 48 * 1000
FLASH_GOAL_BYTES = 100 * 1000


def build(bazel_examples, *configs: str, target: str = TARGET, binary: Path = BINARY) -> Path:
    """The MLP deploy binary built with `--config` `configs`; its path."""
    flags = (*BAZEL_BUILD, *(f"--config={config}" for config in configs))
    result = bazel_examples.bazel("build", *flags, target)
    assert result.returncode == 0, result.stderr[-5000:]
    info = bazel_examples.bazel("info", *flags, "bazel-bin")
    assert info.returncode == 0, info.stderr[-3000:]
    return Path(info.stdout.strip()) / binary


def run(platform: str, binary: Path) -> str:
    """What `binary` printed, run as etsb runs binaries of `platform` (natively or under QEMU)."""
    result = subprocess.run([*PLATFORMS[platform].emulator, str(binary)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


# ExecuTorch's kernel registry: 2,000 slots of 24 bytes by default, as many as the binary
# registers in the size configuration (the MLP's 35, as etsb's driver sizes it).
REGISTRY_BYTES = {"default": 48_000, "size": 840}


def registry_bytes(binary: Path) -> int:
    """The size of the runtime's kernel table in `binary` (its link's symbol table: the kept copy is stripped)."""
    symbols = subprocess.run(["nm", "-S", "-C", str(linked(binary))], capture_output=True, text=True,
                             check=True).stdout
    line = next(line for line in symbols.splitlines() if line.endswith("::registered_kernels_data"))
    return int(line.split()[1], 16)


@pytest.mark.parametrize("config", ["default", "size"])
def test_the_static_runtime_mlp_runs_like_torch_on_the_host(bazel_examples, config, tmp_path):
    """Both configurations run like torch; the size configuration's binary
    registers no prim op the MLP does not call (none) in a registry of its
    own size, and is within the issue's goal."""
    binary = build(bazel_examples, *([config] if config != "default" else []))
    assert_deploy_matches_torch("mlp", run("host", binary))
    # Linked statically against the tree's runtime: no libexecutorch.so is needed.
    assert "libexecutorch" not in subprocess.run(["ldd", str(binary)], capture_output=True, text=True).stdout
    assert registry_bytes(binary) == REGISTRY_BYTES[config]
    assert (b"executorch_prim::" in binary.read_bytes()) == (config == "default")
    size = stripped_size(binary, tmp_path)
    print(f"host {config}: {size:,} bytes stripped")
    if config == "size":
        assert size <= HOST_GOAL_BYTES, size


def test_the_aarch64_mlp_runs_like_torch_under_qemu(bazel_examples, tmp_path):
    binary = build(bazel_examples, "size", "aarch64_linux")
    assert b"\x02\x01\x01" == binary.read_bytes()[4:7] and binary.read_bytes()[18] == 183  # ELF64, AArch64
    assert_deploy_matches_torch("mlp", run("aarch64-linux", binary))
    size = stripped_size(binary, tmp_path, PLATFORMS["aarch64-linux"].strip)
    print(f"aarch64-linux size: {size:,} bytes stripped")
    assert size <= HOST_GOAL_BYTES, size


def test_the_cortex_m55_mlp_runs_like_torch_under_qemu(bazel_examples):
    binary = build(bazel_examples, "size", "cortex_m55")
    assert binary.read_bytes()[18] == 40  # ELF machine: Arm
    assert_deploy_matches_torch("mlp", run("cortex-m55", binary))
    sections = subprocess.run([PLATFORMS["cortex-m55"].size, str(binary)], capture_output=True, text=True,
                              check=True).stdout.splitlines()[1].split()
    flash = int(sections[0]) + int(sections[1])  # code and constants, and .data's image
    print(f"cortex-m55 size: {flash:,} bytes of flash")
    assert flash <= FLASH_GOAL_BYTES, flash


@pytest.mark.parametrize("configs", [("size",), ("cortex_m55",)], ids=["host_size", "cortex_m55"])
def test_two_lines_ship(bazel_examples, configs, tmp_path):
    """//examples/mlp:bin, two lines, with `--config=size` or on a board: the
    tree's runtime linked in, the deploy runner reading the program and its
    input from files, stripped; it prints what torch computed."""
    try:
        binary = build(bazel_examples, *configs, target="//examples/mlp:bin", binary=Path("examples/mlp/bin"))
        sections = subprocess.run(["readelf", "-S", "-d", "-W", str(binary)], capture_output=True, text=True,
                                  check=True).stdout
        assert ".symtab" not in sections and "libexecutorch" not in sections
        inputs = write_deploy_inputs("mlp", tmp_path)
        model = MODELS_DIR / "mlp" / "mlp.pte"
        if configs == ("size",):
            result = subprocess.run([str(binary), str(model), *map(str, inputs)], capture_output=True, text=True,
                                    timeout=120)
        else:
            result = run_on_board(PLATFORMS["cortex-m55"], binary, str(model), *map(str, inputs), cwd=tmp_path)
        assert result.returncode == 0, result.stderr[-3000:]
        assert_deploy_matches_torch("mlp", result.stdout)
    finally:
        if configs == ("size",):  # the examples' outputs in the shared folder are the shipped ones now
            bazel_examples.restore()


@pytest.mark.parametrize("board", ["cortex-m4", "cortex-m33"])
def test_the_other_boards_run_the_mlp_like_torch_under_qemu(bazel_examples, board):
    """`--config=cortex_m4` and `--config=cortex_m33`: the platform, toolchain
    and board support their table rows give Bazel, as the driver's."""
    binary = build(bazel_examples, "size", board.replace("-", "_"))
    assert_deploy_matches_torch("mlp", run(board, binary))


BAD_DEFINES = {
    ("--define=etsb_config=sise",): f"--define etsb_config=sise: 'sise' is not known (known: {', '.join(CONFIGS)})",
    ("--define=etsb_platform=cortex-m7",):
        f"--define etsb_platform=cortex-m7: 'cortex-m7' is not known (known: {', '.join(PLATFORMS)})",
    # The driver's spelling of a platform without Bazel's platform: the selects would lie.
    ("--define=etsb_platform=aarch64-linux",):
        "the target platform is host but --define etsb_platform=aarch64-linux: etsb's rules select() on the "
        "define, so the two must agree: give --config=aarch64_linux of bazel/etsb.bazelrc",
    # Bazel's platform without the define.
    ("--platforms=@etsb//bazel/platforms:cortex-m55", "--incompatible_enable_cc_toolchain_resolution",
     "--extra_toolchains=@etsb//bazel/platforms:cortex-m55_toolchain"):
        "the target platform is cortex-m55 but --define etsb_platform=host: etsb's rules select() on the define, "
        "so the two must agree: give --config=cortex_m55 of bazel/etsb.bazelrc",
}


@pytest.mark.parametrize("flags", list(BAD_DEFINES), ids=["config", "platform", "define_only", "platform_only"])
def test_defines_etsb_does_not_know_stop_the_analysis_clearly(bazel_examples, flags):
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "--nobuild", *flags, TARGET)
    assert result.returncode != 0
    assert BAD_DEFINES[flags] in result.stderr, result.stderr[-3000:]


@pytest.mark.parametrize("config", ["x86_64_linux", "aarch64_linux"])
def test_the_wheels_runtime_is_refused_off_the_host(bazel_examples, config):
    """A binary on the wheel's libexecutorch.so (the default runtime's choice with
    dtype_selective_build) fails at analysis for any platform but the host,
    naming the remedy, as etsb's driver does."""
    result = bazel_examples.bazel("build", *BAZEL_BUILD, "--nobuild", f"--config={config}",
                                  "//examples/mlp:bin_dtype_selective")
    assert result.returncode != 0
    platform = PLATFORMS[config.replace("_linux", "-linux")].name
    assert (f"a binary built for --define etsb_platform={platform} links the executorch wheel's libexecutorch.so, "
            "which serves this machine's development builds only: give the binary runtime = \"static\"") \
        in result.stderr, result.stderr[-3000:]
