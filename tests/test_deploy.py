"""Binaries built to ship: `etsb build --config size` with `runtime = "static"`.

They link the deploy runner (tools/runner/deploy.cpp) instead of the
development one, ExecuTorch's runtime compiled from the tree with the size
flags, only the prim ops their program calls, and run in static memory sized
from the program (`etsb deploy-source`). Embedded programs run with no
arguments; the others read the program and raw inputs from files. Each
prints its outputs, which must be torch's; every misuse is a clear error."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from binary_helpers import linked
from conftest import MODELS_DIR, SUMMARY_LINES, TREE
from helpers import (REAL_MANIFEST, REAL_MODELS_DIR, assert_deploy_matches_torch, deploy_outputs, etsb, method_meta,
                     new_workspace, stripped_size, symbols, write_deploy_inputs)

pytestmark = [pytest.mark.build, pytest.mark.tree]

# The corpus models embedded with their inputs, dtype-selective as a shipped binary is.
EMBEDDED = ("mlp", "cnn", "attention", "mixed_dtypes")
# A real architecture (convolutions, batch norm, clamps, a mean): its static memory sized from a real graph.
REAL = "mobilenet_v2"
# ExecuTorch's size test (the runtime, a file loader and a main; no operators), stripped, x86-64 GCC.
EXECUTORCH_SIZE_TEST_BYTES = 52_168


def _call(name: str, model: str, **attributes: object) -> str:
    """An et_model_binary call with the static runtime and `attributes` (Python values as Starlark)."""
    lines = [f'    name = "{name}",', f'    model = "{model}.pte",', '    runtime = "static",']
    for key, value in attributes.items():
        text = "[" + ", ".join(f'"{item}"' for item in value) + "]" if isinstance(value, list) else str(value)
        lines.append(f"    {key} = {text},")
    return "\net_model_binary(\n" + "\n".join(lines) + "\n)\n"


def _inputs(model: str) -> list[str]:
    return [i["file"] for i in method_meta(model)["inputs"]]


@pytest.fixture(scope="module")
def workspace(module_folders) -> Path:
    """Each embedded model in a package of its own, and the MLP read from a
    file and with too small a method pool; built in the size configuration."""
    root = new_workspace(module_folders("deploy") / "ws")
    for model in EMBEDDED:
        package = root / model
        package.mkdir()
        for path in (MODELS_DIR / model).iterdir():
            shutil.copy(path, package)
        build = 'load("//rules:executorch.bzl", "et_model_binary")\n' + _call(
            "bin", model, embed_model=True, inputs=_inputs(model), dtype_selective_build=True)
        if model == "mlp":
            build += _call("from_file", model) + _call("tight", model, embed_model=True, inputs=_inputs(model),
                                                       method_pool_bytes=64)
        (package / "BUILD").write_text(build)
    real = root / REAL
    shutil.copytree(REAL_MODELS_DIR / REAL, real)
    (real / "BUILD").write_text('load("//rules:executorch.bzl", "et_model_binary")\n' + _call(
        "bin", REAL, embed_model=True, inputs=[i["file"] for i in REAL_MANIFEST[REAL]["inputs"]]))
    result = etsb("build", "--executorch-root", str(TREE), "--config=size",
                  *(f"//{m}:all" for m in (*EMBEDDED, REAL)), cwd=root)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return root


def _binary(workspace: Path, model: str) -> Path:
    return workspace / "etsb-out" / "bin" / model / "bin_smallest" / "bin"


def _run(binary: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *argv], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("model", EMBEDDED)
def test_an_embedded_model_runs_with_no_arguments_like_torch(workspace, model, tmp_path):
    result = _run(_binary(workspace, model))
    assert result.returncode == 0 and not result.stderr, result.stderr
    assert_deploy_matches_torch(model, result.stdout)
    SUMMARY_LINES.append(f"deploy: {model} embedded, size config, "
                         f"{stripped_size(_binary(workspace, model), tmp_path):,} bytes stripped")


def test_a_real_model_runs_shipped_like_torch(workspace):
    """Its pools, sized from the program at build time, hold a real graph; its
    outputs are torch's within what separates torch's own float32 and float64 runs."""
    result = _run(workspace / "etsb-out" / "bin" / REAL / "bin")
    assert result.returncode == 0, result.stderr
    info = REAL_MANIFEST[REAL]
    tolerance = 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)
    got = deploy_outputs(result.stdout)
    expected = [np.load(REAL_MODELS_DIR / REAL / o["file"]) for o in info["outputs"]]
    assert len(got) == len(expected)
    for array, reference in zip(got, expected):
        assert array.shape == reference.shape and float(np.max(np.abs(array - reference))) <= tolerance


def test_the_mlp_is_smaller_than_executorchs_size_test_without_operators(workspace, tmp_path):
    """The trimmed binary with its model, operators and runtime against ExecuTorch's
    runtime alone (bench/bench_deploy.py builds that test here beside it)."""
    size = stripped_size(_binary(workspace, "mlp"), tmp_path)
    assert size < EXECUTORCH_SIZE_TEST_BYTES, size


def test_a_shipped_binary_carries_no_development_parts(workspace):
    binary = linked(_binary(workspace, "mlp"))  # the kept copy is stripped: its link's symbols
    table = symbols(binary)
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    assert "libexecutorch" not in dynamic
    # No .npy reader, no per-CPU kernel copies or CPU detection, no prim op the MLP does not call,
    # and no thread pool, nor a reference to one.
    for absent in ("etsb_npy", "gemm_avx2", "__cpu_indicator_init", "et_view", "et_copy_index", "parallel_for",
                   "threadpool", "get_thread_count"):
        assert absent not in table, absent
    # The kernel registry has a slot per kernel table row (3) and the prim ops' room (32), not 2,000.
    sized = subprocess.run(["nm", "-S", "-C", str(binary)], capture_output=True, text=True, check=True).stdout
    registry = [line.split() for line in sized.splitlines() if "registered_kernels_data" in line]
    assert len(registry) == 1 and int(registry[0][1], 16) == 35 * 24, registry  # a Kernel is 24 bytes here


def test_a_program_from_a_file_takes_raw_inputs(workspace, tmp_path):
    binary = workspace / "etsb-out" / "bin" / "mlp" / "from_file"
    raw = [str(path) for path in write_deploy_inputs("mlp", tmp_path)]
    result = _run(binary, str(MODELS_DIR / "mlp" / "mlp.pte"), *raw)
    assert result.returncode == 0, result.stderr
    assert_deploy_matches_torch("mlp", result.stdout)


def test_the_deploy_runner_refuses_misuse_clearly(workspace, tmp_path):
    from_file = workspace / "etsb-out" / "bin" / "mlp" / "from_file"
    program = str(MODELS_DIR / "mlp" / "mlp.pte")
    short = tmp_path / "short.bin"
    short.write_bytes(b"\0" * 8)
    corrupt = tmp_path / "corrupt.pte"
    corrupt.write_bytes(b"\0" * 64)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opened for reading, it would wait for a writer forever
    cases = [
        ((), 2, "usage: BIN MODEL.pte [INPUT.bin ...]"),
        ((str(tmp_path / "missing.pte"),), 1, "cannot read the program file"),
        ((str(corrupt),), 1, "not a program this runtime can load"),
        ((program,), 1, "the method takes inputs: give one file for each"),
        ((program, str(short)), 1, "does not hold exactly the input's bytes"),
        ((program, str(short), str(short)), 1, "the number of inputs is not the method's"),
        ((program, str(tmp_path / "missing.bin")), 1, "cannot open an input file"),
        ((program, str(fifo)), 1, f"error: cannot read an input file\n{fifo}: not a regular file"),
        ((str(fifo),), 1, f"error: cannot read the program file\n{fifo}: not a regular file"),
        ((str(tmp_path),), 1, f"error: cannot read the program file\n{tmp_path}: not a regular file"),
        # abs, which the MLP's binary has no kernel for (a program of small memory, that its pools hold): the
        # one load error that names a kernel.
        ((str(MODELS_DIR / "ops" / "aten_abs_out" / "aten_abs_out.pte"),), 1,
         "cannot load the method: it calls an operator this binary has no kernel for (OperatorMissing) "
         "(ExecuTorch error 20)"),
    ]
    for argv, status, message in cases:
        result = _run(from_file, *argv)
        assert result.returncode == status and message in result.stderr, (argv, result.returncode, result.stderr)
        assert "output 0" not in result.stdout
    embedded = _run(_binary(workspace, "mlp"), program)
    assert embedded.returncode == 2 and "embedded: give no arguments" in embedded.stderr, embedded.stderr
    assert "usage" in _run(_binary(workspace, "mlp"), "--help").stdout


def test_too_small_a_method_pool_is_named(workspace):
    result = _run(workspace / "etsb-out" / "bin" / "mlp" / "tight")
    assert result.returncode == 1 and "method pool is too small for this program (method_pool_bytes)" in \
        result.stderr, result.stderr


def test_mutated_programs_are_refused_never_a_crash(workspace, tmp_path):
    """A program read at run time is verified whole (ExecuTorch's flatbuffer
    verifier) and checked where the runtime is not (tools/runner/program_check.h):
    targeted corruptions and random byte changes are refused with a message
    or run, and none crashes the binary."""
    import random

    import pte_mutations

    binary = workspace / "etsb-out" / "bin" / "mlp" / "from_file"
    raw = [str(path) for path in write_deploy_inputs("mlp", tmp_path)]
    program = (MODELS_DIR / "mlp" / "mlp.pte").read_bytes()
    mutated = [pte_mutations.with_operator_index(program, 1 << 25), pte_mutations.with_output_index(program, 1 << 20),
               pte_mutations.with_planned_buffer_size(program, 1 << 40), pte_mutations.without_constant_data(program),
               program[:200], b""]
    rng = random.Random(20261126)
    for _ in range(1500):
        data = bytearray(program)
        for _ in range(rng.choice((1, 2, 4, 8))):
            data[rng.randrange(len(data))] = rng.randrange(256)
        mutated.append(bytes(data))
    path = tmp_path / "mutated.pte"
    refused = 0
    load_errors = set()  # the messages of methods that failed to load other than for a missing kernel
    for index, data in enumerate(mutated):
        path.write_bytes(data)
        result = subprocess.run([str(binary), str(path), *raw], capture_output=True, text=True, timeout=60)
        assert result.returncode in (0, 1), (index, result.returncode, result.stderr[-500:])
        if result.returncode == 1:
            refused += 1
            assert result.stderr.startswith("error: ") and "output 0" not in result.stdout, (index, result.stderr)
            if result.stderr.startswith("error: cannot load the method"):
                # A kernel is blamed for OperatorMissing (error 20) alone.
                assert ("kernel" in result.stderr) == ("(ExecuTorch error 20)" in result.stderr), (index, result.stderr)
                if "kernel" not in result.stderr:
                    load_errors.add(result.stderr.strip())
    # The targeted ones all fail to load or run, and most random changes are caught.
    assert refused > len(mutated) // 2
    assert load_errors, "no mutant failed to load its method for a reason other than a missing kernel"


def test_etsb_run_speaks_npy_for_a_deploy_binary(workspace, tmp_path):
    """`etsb run` builds the binary (already built: nothing to do), checks the
    .npy inputs against the program, runs it and writes .npy outputs."""
    from helpers import assert_outputs_match

    flags = ("--executorch-root", str(TREE), "--config=size")
    model = str(MODELS_DIR / "mlp" / "mlp.pte")
    inputs = ",".join(str(MODELS_DIR / "mlp" / name) for name in _inputs("mlp"))
    result = etsb("run", *flags, "//mlp:from_file", "--", "--model", model, "--inputs", inputs,
                  "--output-dir", str(tmp_path / "out"), cwd=workspace)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    expected = [MODELS_DIR / "mlp" / o["file"] for o in method_meta("mlp")["outputs"]]
    assert_outputs_match(expected, tmp_path / "out", "mlp through etsb run")
    printed = etsb("run", *flags, "//mlp:bin", cwd=workspace)
    assert printed.returncode == 0 and printed.stdout.startswith("output 0: Float [2, 4]\n"), printed.stderr


def test_etsb_run_refuses_misuse_clearly(workspace, tmp_path):
    flags = ("--executorch-root", str(TREE), "--config=size")
    model = str(MODELS_DIR / "mlp" / "mlp.pte")
    wrong = tmp_path / "wrong.npy"
    np.save(wrong, np.zeros((3, 3), dtype=np.float64))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = [
        (("//mlp:bin", "--", "--model", model), "//mlp:bin carries its program and inputs (embed_model = True)"),
        (("//mlp:from_file",), "//mlp:from_file reads its program from a file: give --model PTE"),
        (("//mlp:from_file", "--", "--model", model, "--method", "forward"),
         "unknown option '--method': //mlp:from_file is a deploy binary, which takes only --model, --inputs and "
         "--output-dir after '--'"),
        (("//mlp:from_file", "--", "--model", model, "--inputs", str(wrong)),
         f"{wrong}: error: input 0 of method 'forward' is Float of sizes [2, 8]; this array is Double of shape [3, 3]"),
        (("//mlp:all",), "etsb run runs one binary"),
        (("//mlp:from_file", "--", "--model", model, "--inputs", str(fifo)),
         f"{fifo}: error: not a regular file, expected a .npy file"),
        (("//mlp:from_file", "--", "--model", str(fifo)), f"{fifo}: error: not a regular file, expected a .pte file"),
    ]
    for argv, message in cases:
        result = etsb("run", *flags, *argv, cwd=workspace)
        assert result.returncode == 2 and message in result.stderr, (argv, result.returncode, result.stderr)
        assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()
