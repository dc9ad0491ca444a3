"""Threads in etsb's kernels through ExecuTorch's own thread pool (the
wheel's libexecutorch_threadpool.so): kernels/portable/cpu/util/parallel_util.h
and the matrix product, convolution, max pooling, elementwise maps, batch
norm, mean and transposes it cuts (gemm_f32.h, op_convolution.cpp, op_max_pool2d_with_indices.cpp,
op_relu.cpp, op_hardtanh.cpp, op_add.cpp, op_native_batch_norm.cpp,
op_mean.cpp, op_permute_copy.cpp, op_split_with_sizes_copy.cpp),
checked from C++ (tests/kernels/parallel_checks.cpp and
parallel_elementwise_checks.cpp) with and without the pool linked; the
development runner's `--threads N` on real models (the same bits at one and
two threads, torch's outputs; the small CNNs never waking the pool's
workers); its bad values; and a binary against the tree's runtime, which
links no pool."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import MODELS_DIR, REPO, TREE
from helpers import (ET, REAL_MANIFEST, REAL_MODELS_DIR, assert_real_model_matches_torch, compile_objects, etsb,
                     new_workspace, static_model_binaries)

pytestmark = pytest.mark.build

OUT = REPO / "etsb-out" / "bin" / "examples" / "real_models"
CHECKS = [REPO / "tests" / "kernels" / name for name in ("parallel_checks.cpp", "parallel_elementwise_checks.cpp")]
KERNELS = REPO / "kernels" / "portable" / "cpu"
# The kernels whose cuts the checks call, linked in.
CUT_KERNELS = [KERNELS / f"op_{name}.cpp" for name in ("convolution", "max_pool2d_with_indices", "relu", "hardtanh",
                                                       "add", "native_batch_norm", "mean", "permute_copy",
                                                       "split_with_sizes_copy")]
# Convolutions (ResNet's dense ones, MobileNet-v2's pointwise and depthwise) and a decoder's matrix products.
MODELS = ("resnet", "mobilenet_v2", "gpt_decoder")
POOL = "libexecutorch_threadpool.so"


def needed(binary: Path) -> list[str]:
    """The shared libraries ``binary`` names (its DT_NEEDED entries)."""
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


@pytest.fixture(scope="module")
def checks(tmp_path_factory) -> tuple[Path, Path]:
    """The checks with the kernels they cut linked with the pool (kept under
    --as-needed: the kernels refer to it only weakly) and without it."""
    out = tmp_path_factory.mktemp("parallel_checks")
    sources = [*CHECKS, *CUT_KERNELS]
    objects = [out / f"{source.stem}.o" for source in sources]
    flags = [f"-I{REPO}", "-Wall", "-Wextra", "-Werror"]
    compile_objects([(flags, source, obj) for source, obj in zip(sources, objects)], "-O2")
    with_pool, without = out / "with_pool", out / "without"
    common = [f"-L{ET / 'lib'}", f"-Wl,-rpath,{ET / 'lib'}", "-pthread"]
    for binary, libraries in ((with_pool, ["-Wl,--no-as-needed", "-lexecutorch_threadpool", "-Wl,--as-needed"]),
                              (without, [])):
        link = subprocess.run(["g++", *map(str, objects), "-o", str(binary), *common, *libraries, "-lexecutorch"],
                              capture_output=True, text=True)
        assert link.returncode == 0, link.stderr
    return with_pool, without


def test_the_pool_runs_pieces_on_two_threads_and_gemm_and_conv_give_the_same_bits(checks):
    with_pool, _ = checks
    assert POOL in needed(with_pool)
    result = subprocess.run([str(with_pool), "pool"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and " 0 failed" in result.stdout, result.stdout


def test_without_a_pool_the_kernels_run_on_the_calling_thread(checks):
    _, without = checks
    assert POOL not in needed(without)
    result = subprocess.run([str(without), "none"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and " 0 failed" in result.stdout, result.stdout


@pytest.fixture(scope="module")
def built() -> None:
    result = etsb("build", *(f"//examples/real_models:{model}_ours" for model in MODELS))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def run(model: str, out: Path, *flags: str, before: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """The model's development binary (etsb's kernels) on its sample inputs, outputs in ``out`` (``before``: a
    command it runs under)."""
    info = REAL_MANIFEST[model]
    inputs = ",".join(str(REAL_MODELS_DIR / model / i["file"]) for i in info["inputs"])
    return subprocess.run([*before, str(OUT / f"{model}_ours"), "--model", str(REAL_MODELS_DIR / info["pte"]),
                           "--inputs", inputs, "--output-dir", str(out), *flags], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("model", MODELS)
def test_one_and_two_threads_give_the_same_bits(built, model, tmp_path):
    assert POOL in needed(OUT / f"{model}_ours")
    outputs = {}
    for threads in ("1", "2"):
        result = run(model, tmp_path / threads, "--threads", threads)
        assert result.returncode == 0, result.stderr
        assert_real_model_matches_torch(model, tmp_path / threads)
        outputs[threads] = sorted((tmp_path / threads).glob("output_*.npy"))
    assert len(outputs["1"]) == len(REAL_MANIFEST[model]["outputs"])
    for one, two in zip(outputs["1"], outputs["2"]):
        assert one.read_bytes() == two.read_bytes(), (model, one.name)


def futex_calls(model: str, runs: int, tmp_path: Path) -> int:
    """The futex calls (the pool's workers put to sleep and woken) of ``runs`` runs of ``model`` on two threads."""
    trace = tmp_path / f"futex.{runs}"
    result = run(model, tmp_path / "out", "--threads", "2", "--iterations", str(runs),
                 before=("strace", "-f", "-qq", "-c", "-e", "trace=futex", "-o", str(trace)))
    assert result.returncode == 0, result.stderr
    return sum(int(line.split()[3]) for line in trace.read_text().splitlines() if line.endswith(" futex"))


@pytest.mark.parametrize("model", ("resnet", "mobilenet_v2"))
def test_two_threads_leave_the_workers_asleep_on_a_small_model(built, model, tmp_path):
    """No loop of the small CNNs (0.2-0.4 ms) pays for waking the pool's workers (parallel_util.h's kWakeWork): on
    two threads their runs never wake them, so the futex calls do not grow with the runs (at a threshold of 8
    pieces, 7 and 20 more a run)."""
    assert shutil.which("strace"), "strace is needed to count the pool's wake-ups"
    few, many = futex_calls(model, 5, tmp_path), futex_calls(model, 200, tmp_path)
    assert few > 0 and many <= few + 4, (few, many)


@pytest.mark.parametrize("value", ["0", "-2", "1025", "x", "", "2x", "1.5"])
def test_the_runner_refuses_a_bad_thread_count(built, value, tmp_path):
    result = run("resnet", tmp_path, "--threads", value)
    assert result.returncode == 2, result.stderr
    assert f"--threads takes a whole number from 1 to 1024, not '{value}'" in result.stderr
    assert "Traceback" not in result.stderr and not list(tmp_path.glob("*.npy"))


def test_the_runner_refuses_threads_given_without_a_value(built, tmp_path):
    result = run("resnet", tmp_path, "--threads")
    assert result.returncode == 2 and "--threads" in result.stderr, result.stderr


@pytest.mark.tree
def test_a_binary_on_the_trees_runtime_links_no_pool_and_says_so(tmp_path):
    """runtime = "static" (the runtime compiled from the tree, as for other
    CPUs and microcontrollers): no pool in the binary, one thread runs, and
    more are refused with the reason."""
    root = new_workspace(tmp_path / "ws")
    package = root / "mlp"
    package.mkdir()
    shutil.copy(MODELS_DIR / "mlp" / "mlp.pte", package)
    (package / "BUILD").write_text(static_model_binaries(["mlp"]))
    result = etsb("build", "--executorch-root", str(TREE), "//mlp:mlp", cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    binary = root / "etsb-out" / "bin" / "mlp" / "mlp"
    assert not [library for library in needed(binary) if "threadpool" in library]
    argv = [str(binary), "--model", str(package / "mlp.pte"), "--inputs",
            str(MODELS_DIR / "mlp" / "forward.input_0.npy"), "--output-dir", str(tmp_path / "out")]
    assert subprocess.run([*argv, "--threads", "1"], capture_output=True, text=True).returncode == 0
    refused = subprocess.run([*argv, "--threads", "2"], capture_output=True, text=True)
    assert refused.returncode == 2 and "links no thread pool" in refused.stderr, refused.stderr
