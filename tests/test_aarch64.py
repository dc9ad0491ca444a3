"""Binaries for 64-bit Arm Linux: `etsb build --platform=aarch64-linux`
compiles with Debian's aarch64-linux-gnu-g++ and links ExecuTorch's runtime
compiled from its tree (`runtime = "static"`), never the wheel's x86-64
libexecutorch.so (a binary that would is refused at its BUILD line). The
corpus MLP and CNN, with the development runner on .npy inputs and in the
size configuration with the deploy runner, are AArch64 executables that run
under qemu-aarch64 as torch does, and so does every case of the
single-operator corpus (every kernel of etsb's library). CMake: the toolchain file etsb ships
compiles the seeds' snippet's kernel libraries for aarch64 and stops any
link of a binary with the wheel's runtime with a message saying why."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO, SUMMARY_LINES, TREE
from driver_helpers import built_outputs
from helpers import (assert_deploy_matches_torch, assert_matches_torch, cmake_build, cmake_configure, etsb,
                     new_workspace, run_model, static_model_binaries, stripped_size, write_deploy_inputs)
from op_corpus import OPS_DIR, operators_under_test, run_operators
from op_corpus import load_manifest as load_ops_manifest
from selective_build.driver.platforms import PLATFORMS, strip_for
from selective_build.readers.elf import elf_machine

pytestmark = pytest.mark.build

PLATFORM = PLATFORMS["aarch64-linux"]
# The corpus MLP, a small CNN and a small transformer block.
MODELS = ("mlp", "cnn", "attention")
CONFIGS = ("default", "size")
BUILD = static_model_binaries(MODELS)
# The wheel's runtime, on line 3 of its BUILD file.
SHARED_BUILD = ('load("//rules:executorch.bzl", "et_model_binary")\n\n'
                'et_model_binary(\n    name = "mlp",\n    model = "mlp.pte",\n    runtime = "wheel",\n)\n')
TOOLCHAIN = REPO / "rules" / "cmake" / "toolchains" / "aarch64-linux-gnu.cmake"
OPS_MANIFEST = load_ops_manifest()
# The op corpus's programs (tests/models/ops/BUILD) in one binary on the tree's runtime.
OPS_BUILD = ('load("//rules:executorch.bzl", "et_model_binary", "et_operator_library")\n\n'
             'et_operator_library(\n    name = "corpus_operators",\n    models = glob(["*/*.pte"]),\n)\n\n'
             'et_model_binary(\n    name = "op_corpus",\n    model = "aten_add_out/aten_add_out.pte",\n'
             '    runtime = "static",\n    deps = [":corpus_operators"],\n)\n')


def tools_present() -> None:
    """The cross compiler and qemu-user are installed (scripts/setup.sh installs them)."""
    for tool in (PLATFORM.compiler, PLATFORM.emulator[0]):
        assert shutil.which(tool), f"no {tool} on PATH: scripts/setup.sh installs g++-aarch64-linux-gnu and qemu-user"


def build(workspace: Path, *argv: str) -> subprocess.CompletedProcess:
    """``etsb build --platform=aarch64-linux`` in ``workspace``, the snapshot as its tree."""
    return etsb("build", "--platform=aarch64-linux", "--executorch-root", str(TREE), *argv, cwd=workspace)


@pytest.fixture(scope="module", params=CONFIGS)
def built(request, module_folders) -> tuple[str, Path]:
    """The corpus MLP and CNN built for aarch64 in one configuration, in a workspace of its own."""
    tools_present()
    config = request.param
    root = new_workspace(module_folders(f"aarch64_{config}") / "ws")
    (root / "models").mkdir()
    for model in MODELS:
        shutil.copy(MODELS_DIR / model / f"{model}.pte", root / "models")
    (root / "models" / "BUILD").write_text(BUILD)
    result = build(root, f"--config={config}", *(f"//models:{model}" for model in MODELS))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    built = built_outputs(result.stdout)
    return config, root, {model: root / built[f"//models:{model}"] for model in MODELS}


def binary(built, model: str) -> Path:
    """Where the build's last lines said ``model``'s binary is."""
    return built[2][model]


def readelf(*argv: str) -> str:
    return subprocess.run(["readelf", *argv], capture_output=True, text=True, check=True).stdout


@pytest.mark.tree
@pytest.mark.parametrize("model", MODELS)
def test_the_binary_is_an_aarch64_executable_without_libexecutorch(built, model, tmp_path):
    config, root, _ = built
    header = readelf("-h", str(binary(built, model)))
    assert re.search(r"Class:\s+ELF64", header) and re.search(r"Machine:\s+AArch64", header), header
    assert re.search(r"Type:\s+(EXEC|DYN)", header), header
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", str(binary(built, model))))
    assert "libc.so.6" in needed and not [n for n in needed if "libexecutorch" in n], needed
    if model == "mlp":
        size = stripped_size(binary(built, model), tmp_path, PLATFORM.strip)
        SUMMARY_LINES.append(f"aarch64-linux ({config} config): MLP binary {size:,} bytes stripped")


@pytest.mark.tree
@pytest.mark.parametrize("model", MODELS)
def test_the_binary_runs_the_model_like_torch_under_qemu(built, model, tmp_path):
    config, _, _ = built
    if config == "default":
        run = run_model(binary(built, model), model, tmp_path / "out", emulator=PLATFORM.emulator)
        assert run.returncode == 0, run.stderr[-3000:]
        assert_matches_torch(model, tmp_path / "out")
    else:
        # The deploy runner: the program's path and the inputs' raw bytes; the outputs printed.
        inputs = write_deploy_inputs(model, tmp_path)
        run = subprocess.run([*PLATFORM.emulator, str(binary(built, model)), str(MODELS_DIR / model / f"{model}.pte"),
                              *map(str, inputs)], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-3000:]
        assert_deploy_matches_torch(model, run.stdout)


@pytest.mark.tree
def test_etsb_run_runs_either_runner_under_qemu_with_the_same_arguments(built, tmp_path):
    """One command line for both configurations: the development runner reads
    the .npy files itself; the deploy runner's are handled on the host."""
    from helpers import method_meta

    config, root, _ = built
    inputs = ",".join(str(MODELS_DIR / "cnn" / i["file"]) for i in method_meta("cnn")["inputs"])
    result = etsb("run", "--platform=aarch64-linux", f"--config={config}", "--executorch-root", str(TREE),
                  "//models:cnn", "--", "--model", str(MODELS_DIR / "cnn" / "cnn.pte"), "--inputs", inputs,
                  "--output-dir", str(tmp_path / "out"), cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert_matches_torch("cnn", tmp_path / "out")


@pytest.mark.tree
def test_pick_smaller_strips_aarch64_binaries_with_their_platforms_strip(built, tmp_path):
    """`etsb pick-smaller` (how dtype_selective_build keeps the smaller link)
    measures each candidate stripped by its platform's strip: the host's
    cannot read an AArch64 file."""
    _, root, _ = built
    candidates = [binary(built, "mlp"), binary(built, "cnn")]
    result = etsb("pick-smaller", "--output", str(tmp_path / "picked"), "--no-link-map", *map(str, candidates),
                  cwd=root)
    assert result.returncode == 0, result.stderr
    sizes = [stripped_size(path, tmp_path, PLATFORM.strip) for path in candidates]
    assert f" bytes stripped; mlp {sizes[0]:,}, cnn {sizes[1]:,})" in result.stdout, result.stdout
    smaller = candidates[sizes.index(min(sizes))]
    # The one kept is the smaller one stripped, as its size was quoted.
    subprocess.run([PLATFORM.strip, "-o", str(tmp_path / "expected"), str(smaller)], check=True)
    assert (tmp_path / "picked").read_bytes() == (tmp_path / "expected").read_bytes()


@pytest.fixture(scope="module")
def op_corpus(module_folders) -> Path:
    """The single-operator corpus's op-selective binary (every operator of
    etsb's portable library) built for aarch64 with the tree's runtime."""
    tools_present()
    root = new_workspace(module_folders("aarch64_ops") / "ws")
    shutil.copytree(OPS_DIR, root / "ops", ignore=shutil.ignore_patterns("BUILD", "manifest.json"))
    (root / "ops" / "BUILD").write_text(OPS_BUILD)
    result = build(root, "//ops:op_corpus")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root / built_outputs(result.stdout)["//ops:op_corpus"]


@pytest.fixture(scope="module")
def op_corpus_answers(request, op_corpus, module_folders) -> dict:
    """The cases of every operator this session tests, run by the op corpus's
    binary under qemu-aarch64 all in one process (op_corpus.run_operators: one
    emulator start instead of one per operator; an operator that fails is
    run again alone)."""
    tested = operators_under_test(request.session, "test_every_operator_matches_torch_under_qemu")
    return run_operators(op_corpus, {o: OPS_MANIFEST["operators"][o] for o in tested},
                         module_folders("aarch64_ops_run"), emulator=PLATFORM.emulator)


@pytest.mark.tree
@pytest.mark.parametrize("operator", sorted(OPS_MANIFEST["operators"]))
def test_every_operator_matches_torch_under_qemu(op_corpus_answers, operator):
    """etsb's kernels compiled for AArch64 (no x86 paths: generic vectors on
    NEON) answer every case of the corpus as torch does."""
    results, stderr = op_corpus_answers[operator]
    failed = {method: problem for method, problem in results.items() if problem is not None}
    assert results and not failed, (failed, stderr[-2000:])


def test_a_binary_is_stripped_by_the_strip_of_its_elf_machine(tmp_path):
    text = tmp_path / "text"
    text.write_text("not a binary")
    assert elf_machine(sys.executable) == 62 and strip_for(62) == "strip"
    target_libc = Path("/usr/aarch64-linux-gnu/lib/libc.so.6")
    assert elf_machine(str(target_libc)) == 183 and strip_for(183) == PLATFORM.strip
    assert elf_machine(str(text)) is None and strip_for(None) == "strip"


def test_a_binary_with_the_wheels_runtime_is_refused_at_its_build_line(tmp_path):
    """The wheel's libexecutorch.so is an x86-64 library: nothing is built, and
    the error names the binary, its BUILD line and the way out."""
    root = new_workspace(tmp_path / "ws")
    (root / "app").mkdir()
    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", root / "app")
    (root / "app" / "BUILD").write_text(SHARED_BUILD)
    result = etsb("build", "--platform=aarch64-linux", "//app:mlp", cwd=root)
    assert result.returncode != 0
    assert ("app/BUILD:3:1: error: cxx_binary '//app:mlp': it is built for --platform=aarch64-linux but links "
            "//runtime:executorch, prebuilt for --platform=host only") in result.stderr, result.stderr
    assert 'runtime = "static"' in result.stderr and "Traceback" not in result.stderr
    assert not list(root.glob("etsb-out/*/bin/app/mlp"))


def test_cmake_toolchain_file_compiles_the_seeds_kernel_libraries_for_aarch64(tmp_path):
    """The seeds' snippet with etsb's kernels (no tree), configured with the
    toolchain file: its generated libraries are AArch64 code; a binary's link
    stops with etsb's message (CMake has no tree-built runtime yet)."""
    tools_present()
    out = tmp_path / "build"
    result = cmake_configure(REPO / "examples" / "cmake_seeds", out, f"-Detsb_DIR={REPO / 'rules' / 'cmake'}",
                             f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warning" not in result.stderr.lower(), result.stderr
    compilers = "".join(path.read_text() for path in out.glob("CMakeFiles/*/CMakeCXXCompiler.cmake"))
    assert f'set(CMAKE_CXX_COMPILER "/usr/bin/{PLATFORM.compiler}")' in compilers
    result = cmake_build(out, "generated_lib", "model_lib")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    archives = sorted(out.glob("lib*.a"))
    assert len(archives) == 4, archives  # each library and its kernels
    for archive in archives:
        machines = re.findall(r"Machine:\s+(.+)", readelf("-h", str(archive)))
        assert machines and set(machines) == {"AArch64"}, (archive, machines)
    result = cmake_build(out, "executorch_binary")
    assert result.returncode != 0
    assert ("etsb: the executorch wheel's libexecutorch.so is not built for aarch64: binaries for it need "
            "ExecuTorch's runtime compiled for it") in result.stdout, result.stdout[-3000:]
