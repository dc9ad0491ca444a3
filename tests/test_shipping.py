"""Two lines ship: `et_model_binary(name, model)` with `--config=size`, or on
any platform but the host, is the shipped binary (the default `runtime =
"auto"`): ExecuTorch's runtime from the tree, the deploy runner,
dtype-selective kernels, stripped, its size on the build's line (flash and
RAM on a board). The host's development configuration keeps the development
runner on the wheel's runtime, and `runtime = "wheel"` keeps the wheel's in
every configuration. Without a tree, what needs one says where one is looked
for; a tree kept beside the workspace is found."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, TREE
from helpers import assert_matches_torch, etsb, method_meta, new_workspace
from selective_build.driver.platforms import PLATFORMS

BUILD = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
         'et_model_binary(name = "bin", model = "mlp.pte")\n\n'
         'et_model_binary(name = "wheel", model = "mlp.pte", runtime = "wheel")\n')
INPUT = MODELS_DIR / "mlp" / method_meta("mlp", "forward")["inputs"][0]["file"]
# What the build's line says of a binary built to ship.
HOSTED_SIZE = re.compile(r"^//m:(\w+): (\S+) \(([\d,]+) bytes stripped; loads shared, not counted: (.*)\)$", re.M)
BOARD_SIZE = re.compile(r"^//m:bin: (\S+) \(([\d,]+) bytes of flash, ([\d,]+) of RAM\)$", re.M)


def model_workspace(root: Path, tree: Path | None) -> Path:
    """A workspace with the two-line BUILD file for the corpus MLP, its tree in `.etsbrc` when given."""
    new_workspace(root)
    if tree:
        (root / ".etsbrc").write_text(f"common --executorch-root={tree}\n")
    (root / "m").mkdir()
    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", root / "m")
    (root / "m" / "BUILD").write_text(BUILD)
    return root


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    return model_workspace(tmp_path_factory.mktemp("shipping") / "ws", TREE)


def build(workspace: Path, *argv: str) -> subprocess.CompletedProcess:
    result = etsb("build", *argv, cwd=workspace)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def number(text: str) -> int:
    return int(text.replace(",", ""))


def needed(binary: Path) -> str:
    return subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout


def runs_like_torch(workspace: Path, out: Path, *flags: str, target: str = "//m:bin") -> None:
    """`etsb run` of the binary (under its platform's emulator) on the MLP's input matches torch."""
    result = etsb("run", *flags, target, "--", "--model", "m/mlp.pte", "--inputs", str(INPUT),
                  "--output-dir", str(out), cwd=workspace)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert_matches_torch("mlp", out)


def is_stripped(binary: Path) -> bool:
    sections = subprocess.run(["readelf", "-S", "-W", str(binary)], capture_output=True, text=True, check=True)
    return ".symtab" not in sections.stdout


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("platform", ["host", "aarch64-linux"])
def test_two_lines_ship_in_the_size_configuration(workspace, platform, tmp_path):
    result = build(workspace, "--config=size", f"--platform={platform}", "//m:bin")
    name, path, size, libraries = HOSTED_SIZE.search(result.stdout).groups()
    binary = workspace / path
    assert name == "bin" and is_stripped(binary) and binary.stat().st_size == number(size)
    assert "libexecutorch" not in needed(binary) and "libexecutorch" not in libraries
    assert not list(binary.parent.glob("libexecutorch*"))
    runs_like_torch(workspace, tmp_path / "out", "--config=size", f"--platform={platform}")


@pytest.mark.build
@pytest.mark.tree
def test_two_lines_ship_to_a_board_with_its_flash_and_ram(workspace, tmp_path):
    result = build(workspace, "--platform=cortex-m55", "//m:bin")
    path, flash, ram = BOARD_SIZE.search(result.stdout).groups()
    binary = workspace / path
    assert is_stripped(binary)
    sizes = subprocess.run([PLATFORMS["cortex-m55"].size, str(binary)], capture_output=True, text=True,
                           check=True).stdout
    text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
    assert (number(flash), number(ram)) == (text + data, data + bss)
    runs_like_torch(workspace, tmp_path / "out", "--platform=cortex-m55")


@pytest.mark.build
@pytest.mark.tree
def test_the_development_configuration_and_the_wheel_stay_a_word_away(workspace, tmp_path):
    """The host's default configuration: the development runner (it takes
    .npy inputs and --output-dir) on the wheel's runtime, no size on its
    line; `runtime = "wheel"` keeps the wheel's runtime in the size configuration."""
    result = build(workspace, "//m:bin")
    line = next(line for line in result.stdout.splitlines() if line.startswith("//m:bin: "))
    assert "(" not in line
    assert "libexecutorch.so" in needed(workspace / line.split(": ", 1)[1])
    runs_like_torch(workspace, tmp_path / "dev")
    result = build(workspace, "--config=size", "//m:wheel")
    name, path, _, libraries = HOSTED_SIZE.search(result.stdout).groups()
    assert name == "wheel" and "libexecutorch.so" in libraries and "libexecutorch.so" in needed(workspace / path)


def test_without_a_tree_the_shipped_binary_names_where_one_is_looked_for(tmp_path):
    root = model_workspace(tmp_path / "ws", None)
    result = etsb("build", "--config=size", "//m:bin", cwd=root)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    for place in ("--executorch-root DIR", "EXECUTORCH_ROOT", ".etsbrc",
                  "the snapshot beside the checkout (the workspace's ../shared/third_party/executorch)",
                  "//m:bin needs it through //m:bin -> "):
        assert place in result.stderr, result.stderr


@pytest.mark.build
def test_a_wildcard_without_a_tree_leaves_out_only_what_this_configuration_needs(tmp_path):
    """The development configuration builds the binary on the wheel's runtime;
    the size configuration leaves it out, saying why."""
    root = model_workspace(tmp_path / "ws", None)
    result = build(root, "//m/...")
    assert "left out" not in result.stderr and "//m:bin: " in result.stdout
    result = build(root, "--config=size", "//m/...")
    assert "etsb: left out 1 target that need the repository '@executorch'" in result.stderr
    assert result.stderr.rstrip().endswith("): //m:bin"), result.stderr


@pytest.mark.build
@pytest.mark.tree
def test_a_tree_beside_the_workspace_is_found(tmp_path):
    """The fourth place: `../shared/third_party/executorch` beside the workspace."""
    root = new_workspace(tmp_path / "checkout")
    (tmp_path / "shared" / "third_party").mkdir(parents=True)
    (tmp_path / "shared" / "third_party" / "executorch").symlink_to(TREE)
    (root / "p").mkdir()
    (root / "p" / "BUILD").write_text(
        'load("//rules:private/shim.bzl", "etsb_genrule")\n\n'
        'etsb_genrule(name = "yaml", srcs = ["@executorch//kernels/portable:functions.yaml"], outs = ["f.yaml"],\n'
        '             cmd = "cp $< $@")\n')
    result = etsb("build", "//p:yaml", cwd=root)
    assert result.returncode == 0, result.stderr
    assert (root / "etsb-out" / "bin" / "p" / "f.yaml").read_bytes() == \
        (TREE / "kernels" / "portable" / "functions.yaml").read_bytes()
