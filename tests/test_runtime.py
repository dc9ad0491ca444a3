"""Generated registration code through the real ExecuTorch runtime: compile it
with hand-written kernels and the runner, link libexecutorch.so, run a corpus
model, and compare with torch's outputs, for each of the three ways of
registering kernels."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from conftest import MODELS_DIR, REPO
from selective_build.__main__ import main
from selective_build.readers.pte import read_program

import pte_mutations
from helpers import ET, cxx

pytestmark = pytest.mark.build
KERNELS = REPO / "tests" / "data" / "kernels"
# The scratch the `kernels_scratch` build's relu asks for, twice a call:
# both fit in --max-memory-mb 2 with the MLP, the second not in 1.
SCRATCH_BYTES = 640 * 1024
CXX = cxx("-O1")


@pytest.fixture(scope="module")
def objects(tmp_path_factory) -> dict[str, Path]:
    """The runner and the test kernels, compiled once for every way."""
    out = tmp_path_factory.mktemp("objects")
    built = {}
    for name, source, defines in (("kernels", KERNELS / "mlp_kernels.cpp", []),
                                  ("runner", REPO / "tools/runner/runner.cpp", []),
                                  ("runner_register", REPO / "tools/runner/runner.cpp", ["-DETSB_REGISTER_LIB=mlp"]),
                                  ("runner_table", REPO / "tools/runner/runner.cpp", ["-DETSB_KERNEL_TABLE_LIB=mlp"]),
                                  ("kernels_scratch", KERNELS / "mlp_kernels.cpp",
                                   [f"-DMLP_KERNELS_SCRATCH_BYTES={SCRATCH_BYTES}"])):
        built[name] = out / f"{name}.o"
        subprocess.run([*CXX, *defines, "-c", str(source), "-o", str(built[name])], check=True)
    return built


def build(objects, out: Path, runner: str, flags=(), drop_operator: str | None = None, kernels: str = "kernels") -> Path:
    """Select the MLP's operators, generate bindings for the test kernels (the
    object ``kernels``), link a binary. ``drop_operator`` removes that
    operator's rows from the generated table."""
    selection = out / "selected_operators.yaml"
    assert main(["gen-oplist", "--output_path", str(selection), "--model_file_path", str(MLP)]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "mlp.yaml"), "--op-selection-yaml-path",
                 str(selection), "--output-dir", str(out), "--lib-name", "mlp", *flags]) == 0
    source = out / "register_kernels.cpp"
    if drop_operator:
        source.write_text("\n".join(line for line in source.read_text().splitlines()
                                     if f'Kernel("{drop_operator}"' not in line))
    binary = out / "mlp_bin"
    subprocess.run([*CXX, "-I", str(out), str(source), str(objects[kernels]), str(objects[runner]),
                    f"-L{ET / 'lib'}", "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)], check=True)
    return binary


def run(binary: Path, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([binary, *map(str, argv)], capture_output=True, text=True)


MLP = MODELS_DIR / "mlp/mlp.pte"
MLP_INPUT = MODELS_DIR / "mlp/forward.input_0.npy"


@pytest.mark.parametrize("way, runner, flags", [
    ("static initialiser", "runner", []),
    ("explicit register_mlp_kernels()", "runner_register", ["--manual-registration"]),
    ("kernel table for load_method", "runner_table", ["--manual-registration"]),
])
def test_mlp_runs_with_generated_registration(way, runner, flags, objects, tmp_path):
    binary = build(objects, tmp_path, runner, flags)
    out = tmp_path / "out"
    out.mkdir()
    result = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", out)
    assert result.returncode == 0, result.stderr
    expected = np.load(MODELS_DIR / "mlp/forward.output_0.npy")
    actual = np.load(out / "output_0.npy")
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_a_binary_without_a_kernel_fails_at_load_with_missing_operator(objects, tmp_path):
    """What the build-time coverage check prevents: registering only part of the
    selection gives the runtime's OperatorMissing at load."""
    binary = build(objects, tmp_path, "runner", drop_operator="aten::relu.out")
    result = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path)
    assert result.returncode == 1
    assert "needs kernels this binary lacks" in result.stderr
    # The runner names the operator and the exact key it lacks, readably.
    assert "aten::relu.out  key v1/6;0,1|6;0,1|6;0,1  (Float 2-D contiguous, Float 2-D contiguous, " \
           "Float 2-D contiguous)" in result.stderr


def npy_bytes(header: str, data: bytes = b"", version: int = 1) -> bytes:
    """A .npy file with ``header`` as its header text, as given (numpy would not write most of these)."""
    text = header.encode() + b"\n"
    length = struct.pack("<H", len(text)) if version == 1 else struct.pack("<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + length + text + data


def bad_inputs(tmp_path: Path) -> list[tuple[list, int, str]]:
    """(arguments, exit status, start of the last stderr line) for inputs and
    command lines the runner must refuse."""
    good = np.load(MLP_INPUT)
    shape = tuple(good.shape)
    data = good.tobytes()
    np.save(tmp_path / "shape.npy", np.zeros((shape[0] + 1,) + shape[1:], dtype=good.dtype))
    np.save(tmp_path / "dtype.npy", good.astype(np.float64))
    files = {
        "garbage": b"not numpy at all",
        "short": MLP_INPUT.read_bytes()[:-4],
        "long": MLP_INPUT.read_bytes() + b"\0",
        "fortran": npy_bytes(f"{{'descr': '<f4', 'fortran_order': True, 'shape': {shape}, }}", data),
        "big_endian": npy_bytes(f"{{'descr': '>f4', 'fortran_order': False, 'shape': {shape}, }}", data),
        "no_shape": npy_bytes("{'descr': '<f4', 'fortran_order': False, }", data),
        "twice": npy_bytes(f"{{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': {shape}}}", data),
        "extra_key": npy_bytes(f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, 'x': 1}}", data),
        "negative": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 4)}", data),
        "huge_dim": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", data),
        "overflow": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483647, 2147483647, 2147483647)}"),
        "17_dims": npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (" + "1, " * 17 + ")}", data),
        "not_a_dict": npy_bytes("['descr', '<f4']", data),
        "trailing": npy_bytes(f"{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}}} x", data),
        "unclosed": npy_bytes("{'descr': '<f4", data),
        "version_9": npy_bytes("{}", data, version=9),
        "header_too_long": b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 30) + b"{",
    }
    for name, content in files.items():
        (tmp_path / f"{name}.npy").write_bytes(content)
    (tmp_path / "dir.npy").mkdir()
    os.mkfifo(tmp_path / "fifo.npy")
    expect = {
        "shape": f"shape ({shape[0] + 1}, {', '.join(map(str, shape[1:]))}), the method expects {shape}",
        "dtype": "dtype Double, the method expects Float",
        "garbage": "not a .npy file (bad magic)",
        "short": f"holds {len(data) - 4} data bytes, its shape needs {len(data)}",
        "long": f"holds {len(data) + 1} data bytes, its shape needs {len(data)}",
        "fortran": "Fortran-order arrays are not supported",
        "big_endian": "unsupported dtype '>f4'",
        "no_shape": "the header lacks one of 'descr', 'fortran_order' and 'shape'",
        "twice": "header key 'descr' given twice",
        "extra_key": "unknown header key 'x'",
        "negative": "a dimension is not an integer from 0 to 2147483647",
        "huge_dim": "a dimension is not an integer from 0 to 2147483647",
        "overflow": "the shape's size overflows",
        "17_dims": "more than 16 dimensions",
        "not_a_dict": "the header is not a dict",
        "trailing": "text after the header's dict",
        "unclosed": "the dtype is not a quoted string",
        "version_9": "unsupported .npy version 9.0",
        "header_too_long": "a header of 1073741824 bytes, more than the 65536 read",
        "dir": "is a directory",
        "fifo": "not a regular file",
        "missing": "cannot open it: No such file or directory",
    }
    cases = [(["--inputs", tmp_path / f"{name}.npy"], 1, f"error: input 0 ({tmp_path}/{name}.npy): {message}")
             for name, message in expect.items()]
    directory = tmp_path / "no_inputs_here"
    directory.mkdir()
    usage = [
        (["--inputs", f"{MLP_INPUT},{MLP_INPUT}"], 1, "error: method 'forward' takes 1 inputs, got 2"),
        (["--inputs", f"{MLP_INPUT},"], 1, f"error: --inputs has an empty entry: {MLP_INPUT},"),
        (["--inputs", MLP_INPUT, "--method", "backward"], 1, f"error: {MLP}: no method 'backward'"),
        (["--inputs", MLP_INPUT, "--colour", "red"], 2, "error: unknown flag --colour (see --help)"),
        (["--inputs", MLP_INPUT, "stray"], 2, "error: unexpected argument 'stray' (see --help)"),
        (["--inputs", MLP_INPUT, "--inputs", MLP_INPUT], 2, "error: --inputs given twice"),
        (["--inputs", MLP_INPUT, "--method", ""], 2, "error: --method needs a non-empty value"),
        (["--inputs", MLP_INPUT, "--iterations"], 2, "error: missing value after --iterations"),
        (["--inputs", MLP_INPUT, "--max-memory-mb", "0"], 2,
         "error: --max-memory-mb takes a whole number of megabytes from 1 to 1073741824, not '0'"),
        (["--all-methods", "--inputs", MLP_INPUT, "--inputs-dir", directory], 2,
         "error: --all-methods runs every method on its own inputs: drop --method, --inputs and --iterations"),
        (["--all-methods", "--method", "forward", "--inputs-dir", directory], 2,
         "error: --all-methods runs every method on its own inputs: drop --method, --inputs and --iterations"),
        (["--all-methods"], 2, "error: --all-methods needs --inputs-dir"),
        (["--inputs", MLP_INPUT, "--inputs-dir", directory], 2, "error: --inputs-dir goes with --all-methods"),
        (["--all-methods", "--all-methods", "--inputs-dir", directory], 2, "error: --all-methods given twice"),
        (["--all-methods", "--inputs-dir", f"{directory},{directory}"], 2,
         "error: --all-methods takes as many --inputs-dir and --output-dir entries as --model ones"),
        (["--all-methods", "--inputs-dir", f"{directory},"], 2, f"error: --inputs-dir has an empty entry: {directory},"),
        (["--inputs", MLP_INPUT, "--profile", ""], 2, "error: --profile needs a non-empty value"),
        (["--all-methods", "--inputs-dir", directory, "--profile", tmp_path / "p.json"], 2,
         "error: --profile times one method: it does not go with --all-methods"),
        (["--inputs", MLP_INPUT, "--profile", tmp_path / "none" / "p.json"], 1,
         f"error: --profile {tmp_path}/none/p.json: cannot write it: No such file or directory"),
        (["--inputs", MLP_INPUT, "--profile", directory], 1,
         f"error: --profile {directory}: cannot write it: Is a directory"),
        # A run that fails leaves no profile behind (checked by the caller).
        (["--inputs", f"{MLP_INPUT},{MLP_INPUT}", "--profile", tmp_path / "failed.json"], 1,
         "error: method 'forward' takes 1 inputs, got 2"),
        # Each method's inputs are looked for in the directory: here there are none.
        (["--all-methods", "--inputs-dir", directory], 1, "error: method 'forward' failed"),
    ]
    usage += [(["--inputs", MLP_INPUT, "--iterations", value], 2,
               f"error: --iterations takes a whole number from 1 to 1000000000, not '{value}'")
              for value in ("0", "-3", "x", "2.5", "1e3", " 4", "99999999999999999999", "1000000001")]
    return cases + usage


def test_runner_bad_input_is_named_and_writes_nothing(objects, tmp_path):
    """Every refusal is one line naming the input and what is wrong, with no
    crash, and nothing written; the planned memory's size is checked before
    it is allocated."""
    binary = build(objects, tmp_path, "runner")
    out = tmp_path / "out"
    out.mkdir()
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    for argv, status, message in bad_inputs(inputs):
        result = run(binary, "--model", MLP, "--output-dir", out, *argv)
        assert result.returncode == status, (argv, result.returncode, result.stderr)
        # Our message is the last line; the runtime may log before it.
        assert result.stderr.splitlines()[-1].startswith(message), (argv, result.stderr)
    assert list(out.iterdir()) == []
    assert not (inputs / "p.json").exists() and not (inputs / "failed.json").exists()


def test_scratch_returns_to_the_budget_and_a_refusal_is_said(objects, tmp_path):
    """The kernels' scratch goes back to --max-memory-mb's budget when the
    runtime resets its temp allocator after each kernel, so that 2,000 runs
    take no more than one; a request the budget refuses is counted and said
    on stderr, and the outputs are those of a run that had it."""
    binary = build(objects, tmp_path, "runner", kernels="kernels_scratch")
    expected = np.load(MODELS_DIR / "mlp/forward.output_0.npy")
    many = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path / "many", "--iterations", "2000",
               "--max-memory-mb", "2")
    assert many.returncode == 0 and "warning" not in many.stderr, many.stderr
    tight = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path / "tight", "--iterations", "3",
                "--max-memory-mb", "1")
    assert tight.returncode == 0, tight.stderr
    assert tight.stderr.splitlines()[-1] == (
        f"warning: --max-memory-mb 1 refused 3 of the kernels' scratch requests (the largest {SCRATCH_BYTES} bytes): "
        "those kernels ran without scratch, on a slower path; allow the method more memory"), tight.stderr
    for name in ("many", "tight"):
        np.testing.assert_allclose(np.load(tmp_path / name / "output_0.npy"), expected, rtol=1e-5, atol=1e-6)


def test_profile_times_each_instruction_of_the_program(objects, tmp_path):
    """--profile: the runtime calls the runner's event tracer for each of the
    MLP's kernel calls, each timed once per run (the first of the runs left
    out); its outputs are those of a run without it."""
    binary = build(objects, tmp_path, "runner")
    profile = tmp_path / "profile.json"
    result = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path / "p", "--iterations", "3",
                 "--profile", profile)
    assert result.returncode == 0, result.stderr
    plain = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path / "q")
    assert plain.returncode == 0, plain.stderr
    assert (tmp_path / "p" / "output_0.npy").read_bytes() == (tmp_path / "q" / "output_0.npy").read_bytes()
    data = json.loads(profile.read_text())
    assert (data["format"], data["method"], data["runs"], data["traced"]) == ("etsb-profile-1", "forward", 2, True)
    assert data["run"]["calls"] == 2 and data["execute"]["calls"] == 2
    calls = read_program(MLP.read_bytes(), str(MLP)).methods[0].kernel_calls
    found = [(i["chain"], i["index"], i["kind"], i["calls"]) for i in data["instructions"]]
    assert found == [(0, index, "operator", 2) for index in range(len(calls))], found
    for instruction in data["instructions"]:
        assert 0 < instruction["min_ns"] and 2 * instruction["min_ns"] <= instruction["ns"], instruction
    assert sum(i["ns"] for i in data["instructions"]) <= data["execute"]["ns"] <= data["run"]["ns"], data


def test_all_methods_runs_each_method_on_its_own_inputs(objects, tmp_path):
    """--all-methods reads IN/<method>.input_<i>.npy and writes
    DIR/<method>/output_<i>.npy, the same outputs as one run per method."""
    binary = build(objects, tmp_path, "runner")
    inputs = tmp_path / "in"
    inputs.mkdir()
    shutil.copy(MLP_INPUT, inputs / "forward.input_0.npy")
    result = run(binary, "--model", MLP, "--all-methods", "--inputs-dir", inputs, "--output-dir", tmp_path / "all")
    assert result.returncode == 0, result.stderr
    single = run(binary, "--model", MLP, "--inputs", MLP_INPUT, "--output-dir", tmp_path / "one")
    assert single.returncode == 0, single.stderr
    assert (tmp_path / "all" / "forward" / "output_0.npy").read_bytes() == (tmp_path / "one" / "output_0.npy").read_bytes()


def test_all_methods_runs_a_list_of_programs_in_one_process(objects, tmp_path):
    """--all-methods with lists: program k reads the k-th inputs folder and
    writes the k-th output folder; one that fails (here: no inputs) is named
    and the next still runs, the exit status 1."""
    binary = build(objects, tmp_path, "runner")
    inputs, empty = tmp_path / "in", tmp_path / "empty"
    inputs.mkdir()
    empty.mkdir()
    shutil.copy(MLP_INPUT, inputs / "forward.input_0.npy")
    outs = [tmp_path / f"out{k}" for k in range(3)]
    result = run(binary, "--model", f"{MLP},{MLP},{MLP}", "--all-methods", "--inputs-dir", f"{inputs},{empty},{inputs}",
                 "--output-dir", ",".join(map(str, outs)))
    assert result.returncode == 1, result.stderr
    assert result.stderr.count("error: method 'forward' failed") == 1, result.stderr
    expected = np.load(MODELS_DIR / "mlp/forward.output_0.npy")
    for k in (0, 2):
        np.testing.assert_allclose(np.load(outs[k] / "forward" / "output_0.npy"), expected, rtol=1e-5, atol=1e-6)
    assert not outs[1].exists()


def test_runner_help_and_bad_models(objects, tmp_path):
    """--help, and programs that are corrupt or hostile: each refused in one line, none crashing the runner
    (some crash ExecuTorch's own loader, which the runner works around)."""
    binary = build(objects, tmp_path, "runner")
    result = run(binary, "--help")
    assert result.returncode == 0 and "--max-memory-mb N" in result.stdout and result.stderr == ""
    bad = tmp_path / "bad.pte"
    for content, message in (
            (b"", f"{bad}: not a valid program (InvalidArgument (0x12))"),
            (MLP.read_bytes()[:200], f"{bad}: not a valid program (InvalidProgram (0x23))"),
            # Cut inside its constant data: the loader (tools/runner/program_loader.h) reads no range past the end.
            (MLP.read_bytes()[:-100], f"{bad}: not a valid program (InvalidProgram (0x23))"),
            (pte_mutations.with_planned_buffer_size(MLP.read_bytes(), 1 << 40),
             "the method's planned buffer 0 needs 1099511627776 bytes, more than --max-memory-mb 4096 allows"),
            # ExecuTorch loads a method with an unresolvable operator when a later one resolves.
            (pte_mutations.with_operator_index(MLP.read_bytes(), 1 << 25),
             "cannot load method 'forward': the runtime reported errors while loading it"),
            # ExecuTorch aborts reading an output that is not a value of the method.
            (pte_mutations.with_output_index(MLP.read_bytes(), 1 << 20),
             "the method's output 0 is invalid (InvalidProgram (0x23))"),
            # A constant tensor without data reaches no kernel.
            (pte_mutations.without_constant_data(MLP.read_bytes()), "execution failed: InvalidProgram (0x23)")):
        bad.write_bytes(content)
        result = run(binary, "--model", bad, "--output-dir", tmp_path / "out", "--inputs", MLP_INPUT)
        assert result.returncode == 1 and result.stderr.splitlines()[-1] == f"error: {message}", result.stderr
    assert not (tmp_path / "out").exists()


def test_steps_run_the_method_once_per_step_in_one_process(objects, tmp_path):
    """--steps IN runs step_0, step_1, ... in order, each on its own inputs,
    writing DIR/step_<k>/output_<i>.npy: the MLP keeps no state, so each step
    writes what a run of its own writes."""
    binary = build(objects, tmp_path, "runner")
    second = tmp_path / "second.npy"
    np.save(second, np.load(MLP_INPUT) * 2)
    for k, source in enumerate((MLP_INPUT, second)):
        (tmp_path / "in" / f"step_{k}").mkdir(parents=True)
        shutil.copy(source, tmp_path / "in" / f"step_{k}" / "input_0.npy")
    result = run(binary, "--model", MLP, "--steps", tmp_path / "in", "--output-dir", tmp_path / "steps")
    assert result.returncode == 0 and result.stdout == "steps: 2\n", result.stderr
    for k, source in enumerate((MLP_INPUT, second)):
        single = run(binary, "--model", MLP, "--inputs", source, "--output-dir", tmp_path / f"one{k}")
        assert single.returncode == 0, single.stderr
        assert ((tmp_path / "steps" / f"step_{k}" / "output_0.npy").read_bytes()
                == (tmp_path / f"one{k}" / "output_0.npy").read_bytes())


def test_steps_refuse_bad_step_directories_and_write_nothing(objects, tmp_path):
    """A bad --steps directory, or a bad input in any step, is named in one
    line before any step runs."""
    binary = build(objects, tmp_path, "runner")

    def steps(*layout: str) -> Path:
        root = tmp_path / f"case{len(list(tmp_path.glob('case*')))}"
        root.mkdir()
        for entry in layout:
            if entry.endswith("/"):
                (root / entry).mkdir(parents=True)
            elif entry.endswith(".npy"):
                (root / entry).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(MLP_INPUT, root / entry)
            else:
                (root / entry).write_text("")
        return root

    good = "step_0/input_0.npy"
    cases = [
        ([tmp_path / "missing"], 1, f"error: --steps {tmp_path / 'missing'}: not a readable directory"),
        ([steps()], 1, "no step_0 directory"),
        ([steps(good, "step_2/input_0.npy")], 1, "the steps are not step_0 to step_<n-1> without a gap"),
        ([steps(good, "step_01/")], 1, "'step_01' is not step_<k> with k from 0 to 99999"),
        ([steps(good, "step_x/")], 1, "'step_x' is not step_<k>"),
        ([steps(good, "step_1")], 1, "step_1: not a directory"),
        ([steps(good, "step_1/")], 1, "error: input 0 ("),
        ([steps(good, "step_1/input_0.npy", "step_2/input_1.npy")], 1, "error: input 0 ("),
    ]
    out = tmp_path / "out"
    for argv, status, message in cases:
        result = run(binary, "--model", MLP, "--output-dir", out, "--steps", *argv)
        assert result.returncode == status, (argv, result.stderr)
        assert message in result.stderr.splitlines()[-1], (argv, result.stderr)
        assert not out.exists(), argv
    directory = steps(good)
    for extra in (["--inputs", MLP_INPUT], ["--iterations", "2"], ["--all-methods", "--inputs-dir", directory],
                  ["--profile", str(tmp_path / "profile.json")]):
        result = run(binary, "--model", MLP, "--output-dir", out, "--steps", directory, *extra)
        assert result.returncode == 2, extra
        assert result.stderr == ("error: --steps reads each step's inputs from its directory: "
                                 "drop --inputs, --iterations, --profile and --all-methods\n"), extra
