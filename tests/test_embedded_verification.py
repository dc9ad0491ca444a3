"""A program embedded in a binary is verified at build time (issue 48): the
file-reading deploy runner checks a program at run time (ExecuTorch's
InternalConsistency verifier, its own program checks); the embedded one skips
them to stay small, so `etsb deploy-source --embed` makes them on the host,
on the same bytes (tools/runner/verify_program.cpp), and refuses the program,
naming it. Mutated MLP programs are embedded as a user's would be: each is
refused at build time, or builds into a binary that runs cleanly (outputs,
or a clear error), never one that crashes. scripts/mutate_embedded.py runs
the 1,000-mutant campaign."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

import pte_mutations
from conftest import MODELS_DIR
from helpers import etsb, new_workspace

pytestmark = pytest.mark.build

MLP = MODELS_DIR / "mlp" / "mlp.pte"
MLP_INPUT = MODELS_DIR / "mlp" / "forward.input_0.npy"
MLP_INPUT_BYTES = 2 * 8 * 4
# The mutants of issue 48 that crashed embedded binaries (offset, byte written): each refused by
# the file-reading binary with ExecuTorch error 35 (InvalidProgram).
CRASHED = ((68, 0x01), (999, 0x29), (1401, 0x4D), (153, 0xBC))
# Mutants checked with the verifier, and how many of those it accepts are embedded and run.
MUTANTS, EMBEDDED = 600, 12


def mutate(program: bytes, changes) -> bytes:
    data = bytearray(program)
    for at, value in changes:
        data[at] = value
    return bytes(data)


@pytest.fixture(scope="module")
def workspace(module_folders) -> Path:
    """The MLP embedded with its input from a two-line BUILD file, built once."""
    root = new_workspace(module_folders("embedded_verification") / "ws")
    package = root / "mlp"
    package.mkdir()
    shutil.copy(MLP, package / "m.pte")
    shutil.copy(MLP_INPUT, package / "in.npy")
    (package / "BUILD").write_text('et_model_binary(name = "bin", model = "m.pte", embed_model = True, '
                                   'inputs = ["in.npy"])\n')
    built = etsb("build", "//mlp:bin", cwd=root)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return root


@pytest.fixture(scope="module")
def verifier() -> str:
    from selective_build.driver.program_verifier import runtime_of, verifier
    return verifier(runtime_of(None))


def embed(workspace: Path, data: bytes) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess | None]:
    """``data`` as the package's program, built (the binary removed first); then run if it built."""
    (workspace / "mlp" / "m.pte").write_bytes(data)
    binary = workspace / "etsb-out" / "bin" / "mlp" / "bin"
    binary.unlink(missing_ok=True)
    built = etsb("build", "//mlp:bin", cwd=workspace)
    if built.returncode != 0:
        assert not binary.exists()
        return built, None
    return built, subprocess.run([str(binary)], capture_output=True, text=True, timeout=60, errors="replace")


def test_the_mutants_that_crashed_are_build_errors_naming_the_model(workspace):
    program = MLP.read_bytes()
    for at, value in CRASHED:
        built, ran = embed(workspace, mutate(program, [(at, value)]))
        said = built.stdout + built.stderr
        assert ran is None, (at, ran.returncode if ran else None)
        assert "mlp/m.pte: error: cannot be embedded: not a program this runtime can load (ExecuTorch error 35)" \
            in said, (at, said[-3000:])
        assert "Traceback" not in said
    # The program itself still builds and runs.
    built, ran = embed(workspace, program)
    assert built.returncode == 0 and ran.returncode == 0 and ran.stdout.startswith("output 0: dtype 6"), ran.stderr


def test_mutated_programs_are_refused_or_run_cleanly_never_a_crash(workspace, verifier):
    """Seeded mutants through the verifier; a sample of those it accepts embedded into binaries and run."""
    program = MLP.read_bytes()
    rng = random.Random(4805)
    accepted, refused = [], 0
    for _ in range(MUTANTS):
        data = mutate(program, [(rng.randrange(len(program)), rng.randrange(256)) for _ in range(rng.choice((1, 2, 4)))])
        path = workspace / "mutant.pte"
        path.write_bytes(data)
        checked = subprocess.run([verifier, str(path), str(MLP_INPUT_BYTES)], capture_output=True, text=True,
                                 timeout=60, errors="replace")
        assert checked.returncode in (0, 1), (checked.returncode, checked.stdout, checked.stderr[-500:])
        if checked.returncode == 0:
            assert checked.stdout.startswith("planned: "), checked.stdout
            accepted.append(data)
        else:
            assert checked.stdout.startswith("error: "), checked.stdout
            refused += 1
    # Random bytes mostly land in constant data (weights), which no verifier can judge.
    assert refused > MUTANTS // 10 and len(accepted) > MUTANTS // 3, (refused, len(accepted))
    outcomes = {}
    for data in accepted[::len(accepted) // EMBEDDED][:EMBEDDED]:
        built, ran = embed(workspace, data)
        if ran is None:
            # An error naming the program (`needed by` it, for an operator no library provides), or its
            # input when the mutated method takes another.
            said = built.stdout + built.stderr
            errors = [line for line in said.splitlines() if "error: " in line and not line.startswith("mlp/BUILD")]
            assert any("mlp/m.pte" in line or "mlp/in.npy" in line for line in errors), said[-3000:]
            assert "Traceback" not in said
            outcome = "refused by etsb's readers"
        else:
            assert ran.returncode in (0, 1), (ran.returncode, ran.stderr[-500:])
            # (The wheel's runtime logs lines of its own before the runner's error.)
            last = (ran.stderr.strip().splitlines() or [""])[-1]
            assert ran.stdout.startswith("output 0") if ran.returncode == 0 else last.startswith("error: "), \
                (ran.stdout[:300], ran.stderr[-500:])
            outcome = "ran" if ran.returncode == 0 else "clean error"
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes.get("ran", 0) >= EMBEDDED // 2, outcomes


def test_the_verifier_refuses_bad_files_clearly(verifier, tmp_path):
    """Missing, empty, truncated or not a file: a message and exit status 1, never a crash; misuse is 2."""
    program = MLP.read_bytes()
    empty, truncated, directory = tmp_path / "empty.pte", tmp_path / "truncated.pte", tmp_path / "folder.pte"
    empty.write_bytes(b"")
    truncated.write_bytes(program[:len(program) // 2])
    directory.mkdir()
    whole = tmp_path / "whole.pte"
    whole.write_bytes(program)
    cases = [
        ((str(tmp_path / "missing.pte"), "64"), 1, "error: cannot open the program file: No such file or directory"),
        ((str(empty), "64"), 1, "error: the program file is empty"),
        ((str(truncated), "64"), 1, "error: not a program this runtime can load (ExecuTorch error 35)"),
        ((str(directory), "64"), 1, "error: cannot read the program file"),
        ((str(whole),), 1, "error: the method takes 1 inputs; 0 are embedded"),
        ((str(whole), "16"), 1, "error: input 0 of the method takes 64 bytes; the embedded one holds 16"),
        ((str(whole), "6x"), 2, "error: not a byte count: '6x'"),
        ((), 2, ""),
        ((str(whole), "64"), 0, "planned: 704"),
    ]
    for argv, status, said in cases:
        result = subprocess.run([verifier, *argv], capture_output=True, text=True, timeout=60)
        assert result.returncode == status and result.stdout.startswith(said), (argv, result.stdout, result.stderr)
    assert subprocess.run([verifier], capture_output=True, text=True).stderr.startswith("usage: verify_program")


def test_deploy_source_names_the_program_it_refuses(tmp_path):
    """Through `etsb deploy-source --embed`: the program named, nothing written."""
    truncated = tmp_path / "truncated.pte"
    truncated.write_bytes(MLP.read_bytes()[:1500])
    crashed = tmp_path / "crashed.pte"
    crashed.write_bytes(mutate(MLP.read_bytes(), [CRASHED[0]]))
    huge = tmp_path / "huge.pte"
    huge.write_bytes(pte_mutations.with_planned_buffer_size(MLP.read_bytes(), 3 << 30))
    cases = [
        (truncated, f"{truncated}: error: "),
        (crashed, f"{crashed}: error: cannot be embedded: not a program this runtime can load (ExecuTorch error 35)"),
        (huge, f"{huge}: error: a deploy binary of this program needs 3,221,"),
    ]
    for model, message in cases:
        result = etsb("deploy-source", "--model", str(model), "--embed", "--inputs", str(MLP_INPUT), "--output",
                      str(tmp_path / "deploy.cpp"), cwd=tmp_path)
        assert result.returncode == 2 and message in result.stderr, (model, result.stderr)
        assert "Traceback" not in result.stderr and not (tmp_path / "deploy.cpp").exists()
