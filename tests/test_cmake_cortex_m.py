"""Int8 programs lowered by ExecuTorch's Cortex-M flow (tests/models/cortex_m)
built by CMake from two-line CMakeLists.txt files, as test_cortex_m_kernels.py
builds them with etsb's driver: CMake's catalogue (rules/private/etsb_catalogue.cmake)
takes ExecuTorch's Cortex-M kernels from the tree (executorch_cortex_m_kernels)
over CMSIS-NN beside it (etsb_cmsis_nn) without the project naming them.

On the host, programs lowered for CMSIS-NN's plain C run in the development
runner; with etsb's toolchain files, programs lowered for Helium run embedded
on the Cortex-M55 and those lowered for the DSP extension on the Cortex-M33,
under QEMU. Each must give its lowered program's outputs within one
quantization step; the link map shows only the called kernels and the CMSIS-NN
functions they reach. Then the mistakes: a Helium program for the host, a
CMSIS_NN_ROOT that is no CMSIS-NN tree, a tree without CMSIS-NN beside it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import REPO, TREE
from helpers import cmake_build, cmake_configure, deploy_outputs, members_pulled_in
from selective_build.driver.platforms import PLATFORMS
from test_cortex_m_kernels import CORPUS, MANIFEST, within_one_step

pytestmark = [pytest.mark.build, pytest.mark.tree]

TOOLCHAINS = REPO / "rules" / "cmake" / "toolchains"
PREAMBLE = "cmake_minimum_required(VERSION 3.20)\nproject(kws LANGUAGES CXX)\n"
# The two lines (after CMake's own): etsb's rules, and the binary.
TWO_LINES = "find_package(etsb REQUIRED)\net_model_binary(NAME {name} MODEL {name}/{name}.pte)\n"
EMBEDDED = ("find_package(etsb REQUIRED)\net_model_binary(NAME {name} MODEL {name}/{name}.pte RUNTIME static "
            "EMBED_MODEL INPUTS {name}/forward.input_0.npy)\n")
HOST_PROGRAMS = ("ds_cnn", "resnet8", "fc_autoencoder")
LIBRARY_LINE = "etsb: executorch_cortex_m_kernels serves "


def project(root: Path, isa: str, names: tuple[str, ...], body: str, tree: Path = TREE,
            *options: str) -> subprocess.CompletedProcess:
    """A project in ``root``/src of programs ``names`` lowered for ``isa`` (``body`` once per name,
    after the preamble's first copy of it), configured into ``root``/build against ``tree``."""
    source = root / "src"
    source.mkdir(parents=True)
    text = PREAMBLE
    for index, name in enumerate(names):
        shutil.copytree(CORPUS / isa / name, source / name)
        line = body.format(name=name)
        text += line if index == 0 else line.split("\n", 1)[1]  # find_package once
    (source / "CMakeLists.txt").write_text(text)
    return cmake_configure(source, root / "build", f"-Detsb_DIR={REPO / 'rules' / 'cmake'}",
                           f"-DEXECUTORCH_ROOT={tree}", *options)


def built(root: Path, isa: str, names: tuple[str, ...], body: str, *options: str) -> tuple[Path, str]:
    """``project`` configured and built; its build folder and what the build printed."""
    configured = project(root, isa, names, body, TREE, *options)
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    result = cmake_build(root / "build")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root / "build", result.stdout + result.stderr


# -- the host ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> tuple[Path, str]:
    return built(tmp_path_factory.mktemp("cmake_cortex_m") / "host", "scalar", HOST_PROGRAMS, TWO_LINES)


@pytest.mark.parametrize("name", HOST_PROGRAMS)
def test_each_program_builds_from_two_lines_and_matches_its_reference(host, name, tmp_path):
    build, _ = host
    source = build.parent / "src" / name
    result = subprocess.run([str(build / name), "--model", str(source / f"{name}.pte"),
                             "--inputs", str(source / "forward.input_0.npy"), "--output-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    within_one_step(f"scalar/{name}", np.load(tmp_path / "output_0.npy"))


def test_the_build_names_the_library_each_model_chose(host):
    _, printed = host
    lines = [line for line in printed.splitlines() if LIBRARY_LINE in line]
    assert len(lines) == len(HOST_PROGRAMS), printed[-3000:]
    assert all(line.endswith("(chosen from the model)") and "cortex_m::quantized_linear.out" in line
               for line in lines)
    assert sum("cortex_m::quantized_add.out" in line for line in lines) == 1  # resnet8's shortcuts


def test_only_the_kernels_called_and_the_cmsis_nn_functions_they_reach_are_linked(host):
    build, _ = host
    members = {name: set(members_pulled_in((build / f"{name}.map").read_text()).values()) for name in HOST_PROGRAMS}
    for name, linked in members.items():
        kernels = {re.search(r"\((?:\d+_)?(op_\w+)\.cpp\.o\)", m).group(1) for m in linked
                   if "executorch_cortex_m_kernels.a(" in m}
        expected = {f"op_{op.split('::')[1].split('.')[0]}" for op in MANIFEST[f"scalar/{name}"]["operators"]}
        assert kernels == expected, (name, kernels, expected)
    cmsis = {name: {m.split("(")[-1] for m in linked if m.startswith("libetsb_cmsis_nn.a(")}
             for name, linked in members.items()}
    assert "arm_fully_connected_s8.c.o)" in cmsis["fc_autoencoder"], cmsis["fc_autoencoder"]
    assert not any("convolve" in m or "pool" in m for m in cmsis["fc_autoencoder"]), cmsis["fc_autoencoder"]
    assert any("elementwise_add" in m for m in cmsis["resnet8"])
    assert not any("elementwise_add" in m for m in cmsis["ds_cnn"])
    assert not any("softmax" in m or "lstm" in m for member in cmsis.values() for m in member)


def test_a_program_lowered_for_helium_is_refused_on_the_host(tmp_path):
    configured = project(tmp_path, "mve", ("ds_cnn",), TWO_LINES)
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    result = cmake_build(tmp_path / "build", "ds_cnn_lib")
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "a selected program was lowered for Helium" in output, output[-3000:]


# -- the boards ----------------------------------------------------------------------------------


def run_on(platform: str, binary: Path) -> np.ndarray:
    """``binary`` run on ``platform``'s board under QEMU; its first output."""
    result = subprocess.run([*PLATFORMS[platform].emulator, str(binary)], capture_output=True, text=True,
                            timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return deploy_outputs(result.stdout)[0]


@pytest.mark.parametrize("platform, isa", [("cortex-m55", "mve"), ("cortex-m33", "dsp")])
def test_a_board_runs_the_program_lowered_for_its_core(platform, isa, tmp_path):
    """etsb's toolchain file, the size configuration: ds_cnn embedded with its input, on the board's core
    (Helium on the Cortex-M55, the DSP extension on the Cortex-M33)."""
    build, printed = built(tmp_path, isa, ("ds_cnn",), EMBEDDED, "-DETSB_CONFIG=size",
                           f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAINS / f'{platform}.cmake'}")
    assert LIBRARY_LINE in printed
    within_one_step(f"{isa}/ds_cnn", run_on(platform, build / "ds_cnn"))
    # CMSIS-NN compiled for the core (each source takes its Helium or DSP path from the core's macros).
    linked = set(members_pulled_in((build / "ds_cnn.map").read_text()).values())
    # (Objects are .c.obj on a board, CMake's name for a system it does not know.)
    assert any(m.startswith("libetsb_cmsis_nn.a(arm_convolve_s8.c.o") for m in linked), linked


# -- mistakes ------------------------------------------------------------------------------------


def test_a_cmsis_nn_root_that_is_no_cmsis_nn_tree_fails_the_configuration_naming_it(tmp_path):
    configured = project(tmp_path, "scalar", ("fc_autoencoder",), TWO_LINES, TREE,
                         f"-DCMSIS_NN_ROOT={tmp_path / 'nowhere'}")
    assert configured.returncode != 0
    message = " ".join(configured.stderr.split())
    assert (f"etsb: CMSIS_NN_ROOT (the variable) is '{tmp_path / 'nowhere'}', which is not a CMSIS-NN source "
            "tree: it has no Include/arm_nnfunctions.h") in message, configured.stderr
    assert "CMakeLists.txt:3 (find_package)" in configured.stderr  # which takes the tree: etsbConfig.cmake


@pytest.fixture
def tree_alone(tmp_path) -> Path:
    """The ExecuTorch tree at a path with no cmsis-nn beside it."""
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / "executorch").symlink_to(TREE)
    return tmp_path / "alone" / "executorch"


def test_without_cmsis_nn_naming_the_library_fails_saying_where_it_was_looked_for(tmp_path, tree_alone):
    body = (f"find_package(etsb REQUIRED)\net_executorch_tree(ROOT {tree_alone})\n"
            "et_model_binary(NAME {name} MODEL {name}/{name}.pte CUSTOM_OPS_YAML_TARGET ${{ETSB_EXECUTORCH_CORTEX_M_CUSTOM_OPS_YAML}} "
            "KERNEL_DEPS executorch_cortex_m_kernels executorch_portable_kernels)\n")
    configured = project(tmp_path, "scalar", ("fc_autoencoder",), body, tree_alone)
    assert configured.returncode != 0
    message = " ".join(configured.stderr.split())
    assert ("KERNEL_DEPS names 'executorch_cortex_m_kernels', which the ExecuTorch tree makes with CMSIS-NN, and "
            "there is no CMSIS-NN source tree (ExecuTorch's Cortex-M kernels call it): CMSIS_NN_ROOT is set neither "
            f"as a CMake variable nor in the environment, and {tree_alone.parent}/cmsis-nn, beside the ExecuTorch "
            "tree, has no Include/arm_nnfunctions.h: configure with -DCMSIS_NN_ROOT=<a CMSIS-NN tree>") in message, \
        configured.stderr


def test_without_cmsis_nn_two_lines_fail_naming_the_library_that_has_the_operators(tmp_path, tree_alone):
    configured = project(tmp_path, "scalar", ("fc_autoencoder",), TWO_LINES, tree_alone)
    assert configured.returncode == 0, configured.stdout[-3000:] + configured.stderr[-3000:]
    assert "etsb: no executorch_cortex_m_kernels (ExecuTorch's Cortex-M kernels): no CMSIS-NN source tree" \
        in configured.stdout
    result = cmake_build(tmp_path / "build", "fc_autoencoder_lib_bindings")
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode != 0
    assert "cortex_m::quantized_linear.out: no kernel yaml entry for this operator" in output, output[-3000:]
    assert ("backends/cortex_m (executorch_cortex_m_kernels, taken by itself with -DEXECUTORCH_ROOT=<tree> (or "
            "et_executorch_tree(ROOT <tree>)) and CMSIS-NN beside the tree or at CMSIS_NN_ROOT") in output
    assert "Traceback" not in output
