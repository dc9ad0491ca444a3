"""Int8 programs lowered by ExecuTorch's Cortex-M flow (tests/models/cortex_m,
MLPerf Tiny's four architectures, exported by tests/models/export_cortex_m.py)
built from two-line BUILD files: the catalogue takes ExecuTorch's Cortex-M
kernels from the tree (`@executorch//backends/cortex_m:kernels`) over Arm's
CMSIS-NN (`@cmsis_nn`, beside the tree) without the BUILD file naming them.

On the host, the programs lowered for CMSIS-NN's plain C run in the
development runner; on the Cortex-M55 (QEMU's mps3-an547), those lowered for
Helium run embedded in the size configuration. Each must give the lowered
program's own outputs (ExecuTorch's reference implementations) within one
quantization step. The binaries link only the `cortex_m::` kernels their
program calls and only the CMSIS-NN functions those reach.

Quick checks of the pieces around them (channels-last layouts, the printed
dim order of a deploy binary's output, the hint for a build without a tree)
are at the end."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, SUMMARY_LINES, TREE
from helpers import deploy_outputs, etsb, members_pulled_in, new_workspace

from selective_build.driver.platforms import PLATFORMS
from selective_build.model.errors import UserError
from selective_build.model.layouts import from_dim_order, to_dim_order
from selective_build.readers.deploy_output import read_deploy_output

CORPUS = REPO / "tests" / "models" / "cortex_m"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text())["models"]
ARCHITECTURES = ("ds_cnn", "fc_autoencoder", "mobilenet_v1", "resnet8")
TWO_LINES = 'load("//rules:executorch.bzl", "et_model_binary")\n\net_model_binary(name = "{name}", model = "{name}.pte")\n'
EMBEDDED = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
            'et_model_binary(\n    name = "{name}",\n    model = "{name}.pte",\n    runtime = "static",\n'
            '    embed_model = True,\n    inputs = ["forward.input_0.npy"],\n)\n')
M55 = PLATFORMS["cortex-m55"]
# A core with the DSP extension and no Helium: CMSIS-NN's DSP code (the class of the Pico 2's RP2350).
DSP_BOARD = "cortex-m33"
CORTEX_M_LIBRARY = "@executorch//backends/cortex_m:kernels"


def package(root: Path, isa: str, name: str, build: str, into: str = "") -> None:
    """Package //NAME (or //INTO) of ``root``: program NAME lowered for ``isa``, its input, and ``build`` as its BUILD file."""
    directory = root / (into or name)
    directory.mkdir()
    for path in (CORPUS / isa / name).iterdir():
        shutil.copy(path, directory)
    (directory / "BUILD").write_text(build.format(name=name))


def within_one_step(key: str, got: np.ndarray) -> float:
    """``got`` against the reference of program ``key`` (``isa/name``), in quantization steps (asserted <= 1)."""
    info = MANIFEST[key]
    expected = np.load(CORPUS / key / info["outputs"][0]["file"])
    assert got.dtype == expected.dtype and got.shape == expected.shape, key
    steps = float(np.abs(got.astype(np.float64) - expected).max()) / info["quant_step"]
    assert steps <= 1.0 + 1e-6, (key, steps)
    return steps


# -- built: the host -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def host(tmp_path_factory) -> tuple[Path, str]:
    """The four architectures lowered for CMSIS-NN's plain C, each a two-line
    BUILD file, built for the host; and what the build printed."""
    root = new_workspace(tmp_path_factory.mktemp("cortex_m_kernels") / "host")
    for name in ARCHITECTURES:
        package(root, "scalar", name, TWO_LINES)
    result = etsb("build", "--executorch-root", str(TREE), *(f"//{name}:{name}" for name in ARCHITECTURES), cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root, result.stdout + result.stderr


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("name", ARCHITECTURES)
def test_each_architecture_builds_from_two_lines_and_matches_its_reference(host, name, tmp_path):
    root, _ = host
    result = subprocess.run([str(root / "etsb-out" / "bin" / name / name), "--model", str(root / name / f"{name}.pte"),
                             "--inputs", str(root / name / "forward.input_0.npy"), "--output-dir", str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    within_one_step(f"scalar/{name}", np.load(tmp_path / "output_0.npy"))


@pytest.mark.build
@pytest.mark.tree
def test_the_build_names_the_library_the_model_chose(host):
    _, printed = host
    lines = [line for line in printed.splitlines() if f"etsb: {CORTEX_M_LIBRARY} serves" in line]
    # One line per binary (each of the four), naming the cortex_m operators its program calls.
    assert len(lines) == len(ARCHITECTURES), printed[-3000:]
    assert all("cortex_m::quantized_linear.out" in line and "(chosen from the model)" in line for line in lines)
    assert any("cortex_m::quantized_add.out" in line for line in lines)  # resnet8's shortcuts


@pytest.mark.build
@pytest.mark.tree
def test_only_the_kernels_called_and_the_cmsis_nn_functions_they_reach_are_linked(host):
    root, _ = host
    members = {name: set(members_pulled_in((root / "etsb-out" / "bin" / name / f"{name}.map").read_text()).values())
               for name in ("ds_cnn", "resnet8", "fc_autoencoder")}
    for name, linked in members.items():
        kernels = {re.search(r"ops__(op_\w+)\.cpp\.o", m).group(1) for m in linked if "backends__cortex_m__ops" in m}
        expected = {f"op_{op.split('::')[1].split('.')[0]}" for op in MANIFEST[f"scalar/{name}"]["operators"]}
        assert kernels == expected, (name, kernels, expected)
    cmsis = {name: {m.split("__")[-1] for m in linked if "libcmsis-nn.a" in m} for name, linked in members.items()}
    # The autoencoder's linears reach the fully connected kernel, and nothing of convolution or pooling.
    assert "arm_fully_connected_s8.c.o)" in cmsis["fc_autoencoder"], cmsis["fc_autoencoder"]
    assert not any("convolve" in m or "pool" in m for m in cmsis["fc_autoencoder"]), cmsis["fc_autoencoder"]
    assert any("elementwise_add" in m for m in cmsis["resnet8"]) and not any("elementwise_add" in m
                                                                             for m in cmsis["ds_cnn"])
    assert not any("softmax" in m or "lstm" in m for member in cmsis.values() for m in member)


@pytest.mark.build
@pytest.mark.tree
def test_a_program_lowered_for_another_core_is_refused_when_its_registration_compiles(host):
    """A program lowered for Helium would compute wrong linear layers with CMSIS-NN's plain C: its
    selection records the core it was lowered for, and the host build stops, saying why."""
    root, _ = host
    package(root, "mve", "ds_cnn", TWO_LINES, into="ds_cnn_helium")
    result = etsb("build", "--executorch-root", str(TREE), "//ds_cnn_helium:ds_cnn", cwd=root)
    assert result.returncode != 0, result.stdout[-2000:]
    assert "a selected program was lowered for Helium" in result.stdout + result.stderr
    assert "build for --platform=cortex-m55" in result.stdout + result.stderr


# A program outside the corpus, exported by scripts/export_unseen_cortex_m.py for the host (scalar):
# aten::maximum.out and aten::mul.out (etsb's portable kernels) beside cortex_m::minimum.out, whose
# kernels share a name (minimum_out) in different namespaces; quant_step is its last dequantize's scale.
MINMAX = REPO / "tests" / "data" / "cortex_m_minmax"
MINMAX_QUANT_STEP = 0.004393233917653561


@pytest.mark.build
@pytest.mark.tree
def test_kernels_of_one_name_from_two_libraries_in_different_namespaces_link_together(host, tmp_path):
    root, _ = host
    (root / "minmax").mkdir()
    for path in MINMAX.iterdir():
        shutil.copy(path, root / "minmax")
    (root / "minmax" / "BUILD").write_text(TWO_LINES.format(name="minmax_tanh"))
    result = etsb("build", "--executorch-root", str(TREE), "//minmax:minmax_tanh", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    run = subprocess.run([str(root / "etsb-out" / "bin" / "minmax" / "minmax_tanh"), "--model",
                          str(root / "minmax" / "minmax_tanh.pte"), "--inputs", str(root / "minmax" / "forward.input_0.npy"),
                          "--output-dir", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    expected, got = np.load(MINMAX / "forward.output_0.npy"), np.load(tmp_path / "output_0.npy")
    assert got.shape == expected.shape and np.abs(got.astype(np.float64) - expected).max() <= MINMAX_QUANT_STEP


# -- built: the Cortex-M55 ---------------------------------------------------------------------

def board_workspace(root: Path, platform: str, isa: str, extra: str = "", labels: tuple[str, ...] = ()) -> Path:
    """The four architectures lowered for ``isa``, embedded with their inputs, built in ``root``
    for the board ``platform`` in the size configuration (with ``extra`` in ds_cnn's BUILD file
    and ``labels`` built too)."""
    new_workspace(root)
    for name in ARCHITECTURES:
        package(root, isa, name, EMBEDDED + (extra if name == "ds_cnn" else ""))
    result = etsb("build", "--executorch-root", str(TREE), f"--platform={platform}", "--config=size",
                  *(f"//{name}:{name}" for name in ARCHITECTURES), *labels, cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def run_on(platform: str, root: Path, name: str) -> np.ndarray:
    """Architecture ``name``'s binary run on ``platform``'s board under QEMU; its output."""
    result = subprocess.run([*PLATFORMS[platform].emulator, str(root / "etsb-out" / "bin" / name / name)],
                            capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL, cwd=root)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return deploy_outputs(result.stdout)[0]


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> Path:
    """The architectures lowered for Helium on the Cortex-M55; and ds_cnn read from the host's
    files (two lines and the runtime a board has)."""
    return board_workspace(tmp_path_factory.mktemp("cortex_m_kernels") / "board", "cortex-m55", "mve",
                           '\net_model_binary(name = "ds_cnn_file", model = "ds_cnn.pte", runtime = "static")\n',
                           ("//ds_cnn:ds_cnn_file",))


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("name", ARCHITECTURES)
def test_each_architecture_runs_on_the_cortex_m55_with_helium(board, name):
    within_one_step(f"mve/{name}", run_on("cortex-m55", board, name))
    sizes = subprocess.run([M55.size, str(board / "etsb-out" / "bin" / name / name)], capture_output=True, text=True,
                           check=True).stdout
    text, data, bss = (int(word) for word in sizes.splitlines()[1].split()[:3])
    SUMMARY_LINES.append(f"cortex-m55 {name} int8 (CMSIS-NN, embedded, size config): flash {text + data:,} B, "
                         f"static RAM {data + bss:,} B")


@pytest.fixture(scope="module")
def dsp_board(tmp_path_factory) -> Path:
    """The architectures lowered for the DSP extension on the Cortex-M33."""
    return board_workspace(tmp_path_factory.mktemp("cortex_m_kernels") / "dsp", DSP_BOARD, "dsp")


@pytest.mark.build
@pytest.mark.tree
@pytest.mark.parametrize("name", ARCHITECTURES)
def test_each_architecture_runs_on_a_dsp_core(dsp_board, name):
    within_one_step(f"dsp/{name}", run_on(DSP_BOARD, dsp_board, name))


@pytest.mark.build
@pytest.mark.tree
def test_etsb_run_hands_a_channels_last_input_over_in_the_programs_dim_order(board, tmp_path):
    """`etsb run` writes the .npy input in the method's dim order (channels-last
    for ds_cnn's 1x1x49x10 frames is not row-major) and reads the output back."""
    result = etsb("run", "--executorch-root", str(TREE), "--platform=cortex-m55", "--config=size",
                  "//ds_cnn:ds_cnn_file", "--", "--model", str(board / "ds_cnn" / "ds_cnn.pte"),
                  "--inputs", str(board / "ds_cnn" / "forward.input_0.npy"), "--output-dir", str(tmp_path), cwd=board)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    within_one_step("mve/ds_cnn", np.load(tmp_path / "output_0.npy"))


# -- quick: layouts, the deploy runner's printed dim order, the hint without a tree ----------------

@pytest.mark.parametrize("sizes, order", [((2, 3, 4, 5), (0, 2, 3, 1)), ((1, 1, 49, 10), (0, 2, 1, 3)),
                                          ((3, 4), (1, 0)), ((2, 1, 3), (0, 1, 2)), ((0, 3, 2, 2), (0, 2, 3, 1))])
def test_layouts_agree_with_numpy_transposes(sizes, order):
    array = np.arange(int(np.prod(sizes)), dtype=np.int16).reshape(sizes)
    placed = to_dim_order(array.tobytes(), sizes, order, 2)
    assert placed == np.ascontiguousarray(array.transpose(order)).tobytes()
    assert from_dim_order(placed, sizes, order, 2) == array.tobytes()


def test_a_deploy_output_in_a_dim_order_is_read_back_row_major():
    array = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    data = np.ascontiguousarray(array.transpose(0, 2, 3, 1)).tobytes()
    printed = f"output 0: dtype 6, sizes [1, 2, 3, 4], dim order [0, 2, 3, 1], {len(data)} bytes\n{data.hex()}\n"
    output = read_deploy_output(printed, "out.txt")[0]
    assert output.data == array.tobytes() and output.sizes == (1, 2, 3, 4)


@pytest.mark.parametrize("order, message", [("0, 2, 2, 1", "is not a permutation of its 4 dimensions"),
                                            ("0, 1", "is not a permutation of its 4 dimensions")])
def test_a_bad_printed_dim_order_is_refused_at_its_line(order, message):
    printed = f"output 0: dtype 6, sizes [1, 2, 3, 4], dim order [{order}], 96 bytes\n{'00' * 96}\n"
    with pytest.raises(UserError) as error:
        read_deploy_output(printed, "out.txt")
    assert message in str(error.value) and "out.txt:2" in str(error.value)


@pytest.mark.parametrize("isa, feature", [("scalar", "cortex_m_lowered_for:dsp_or_scalar"),
                                          ("dsp", "cortex_m_lowered_for:dsp_or_scalar"),
                                          ("mve", "cortex_m_lowered_for:helium")])
def test_a_selection_records_the_core_a_program_was_lowered_for(isa, feature, tmp_path):
    selection = tmp_path / "selected_operators.yaml"
    model = CORPUS / isa / "fc_autoencoder" / "fc_autoencoder.pte"
    assert etsb("gen-oplist", "--output_path", str(selection), "--model_file_path", str(model)).returncode == 0
    assert f"build_features:\n- {feature}\n" in selection.read_text()


def test_without_a_tree_a_cortex_m_program_is_refused_naming_the_library(tmp_path):
    model = CORPUS / "scalar" / "ds_cnn" / "ds_cnn.pte"
    selection = tmp_path / "selected_operators.yaml"
    assert etsb("gen-oplist", "--output_path", str(selection), "--model_file_path", str(model)).returncode == 0
    result = etsb("gen-bindings", "--functions_yaml_path", str(REPO / "kernels" / "portable" / "functions.yaml"),
                  "--custom_ops_yaml_path", str(REPO / "kernels" / "quantized" / "quantized.yaml"),
                  "--op_selection_yaml_path", str(selection), "--output_dir", str(tmp_path / "out"), "--lib_name", "x")
    assert result.returncode != 0 and not (tmp_path / "out").exists()
    assert "cortex_m::quantized_conv2d.out: no kernel yaml entry" in result.stderr
    assert "backends/cortex_m (@executorch//backends/cortex_m:kernels" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.tree
def test_a_cmsis_nn_root_that_is_not_a_directory_is_named_where_a_label_needs_it(tmp_path, monkeypatch):
    """$CMSIS_NN_ROOT naming no directory: @cmsis_nn is not a repository of the build, and the
    reason a label naming it fails says which path, from where."""
    from selective_build.driver.workspace import Workspace

    monkeypatch.setenv("CMSIS_NN_ROOT", str(tmp_path / "nowhere"))
    workspace = Workspace(str(tmp_path), "", {}, str(TREE))
    assert "cmsis_nn" not in [r.name for r in workspace.repositories()]
    assert workspace.missing_repositories()["cmsis_nn"] == (
        f"the CMSIS-NN source tree given ({tmp_path / 'nowhere'}, from CMSIS_NN_ROOT) is not a directory")
    monkeypatch.delenv("CMSIS_NN_ROOT")
    assert "cmsis_nn" in [r.name for r in Workspace(str(tmp_path), "", {}, str(TREE)).repositories()]
