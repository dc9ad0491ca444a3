"""`etsb deploy-source`: the deploy runner's generated source, without building.

Static memory sized from the program's memory plan and counts; the program and
its inputs embedded as aligned arrays (verified first by ExecuTorch's verifier,
which etsb compiles once: tests/test_embedded_verification.py); ExecuTorch's
selected_prim_ops.h; and every bad input (a file that is no .npy, an array
unlike the method's input, a corrupt program, static memory no target holds)
refused with its place, writing nothing."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pte_mutations
from conftest import MODELS_DIR
from helpers import ETSB, etsb

MLP = MODELS_DIR / "mlp" / "mlp.pte"
MLP_INPUT = MODELS_DIR / "mlp" / "forward.input_0.npy"
MIXED = MODELS_DIR / "mixed_dtypes" / "mixed_dtypes.pte"


def deploy_source(tmp_path: Path, *argv: str, output: str = "deploy.cpp"):
    return etsb("deploy-source", "--output", str(tmp_path / output), *argv, cwd=tmp_path)


def test_the_pools_come_from_the_program(tmp_path):
    from selective_build.readers.pte_memory import read_method_memory
    from selective_build.stages.deploy_memory import deploy_pools

    method = read_method_memory(MLP.read_bytes(), str(MLP))[0]
    assert method.name == "forward" and method.planned_buffers == (704,)
    assert [(i.dtype, i.sizes) for i in method.inputs] == [(6, (2, 8))]
    from_files = deploy_pools(method, inputs_from_files=True)
    embedded = deploy_pools(method, inputs_from_files=False, method_pool=4096, temp_pool=128)
    # Inputs read from files take room in the planned pool: 2 x 8 floats.
    assert (embedded.planned, from_files.planned - embedded.planned) == (704, 64)
    assert (embedded.method, embedded.temp) == (4096, 128)
    assert from_files.method % 256 == 0 and from_files.method >= 1024


@pytest.mark.build  # an embedded program is verified: etsb compiles its verifier once
def test_an_embedded_program_and_input_are_aligned_arrays_of_their_bytes(tmp_path):
    result = deploy_source(tmp_path, "--model", str(MLP), "--embed", "--inputs", str(MLP_INPUT))
    assert result.returncode == 0, result.stderr
    text = (tmp_path / "deploy.cpp").read_text()
    assert "alignas(16) static const uint8_t program_bytes[" in text
    assert f"extern const size_t kProgramSize = {MLP.stat().st_size};" in text
    body = text.split("program_bytes[", 1)[1].split("};", 1)[0]
    assert bytes(int(b, 16) for b in re.findall(r"0x([0-9a-f]{2})", body)) == MLP.read_bytes()
    data = np.load(MLP_INPUT).tobytes()
    assert f"extern const size_t kInputSizes[] = {{{len(data)}}};" in text
    # The same text from the same inputs, whichever directory it runs in.
    again = deploy_source(tmp_path, "--model", str(MLP), "--embed", "--inputs", str(MLP_INPUT), output="b.cpp")
    assert again.returncode == 0 and (tmp_path / "b.cpp").read_text() == text


def test_a_program_read_at_run_time_is_not_embedded(tmp_path):
    assert deploy_source(tmp_path, "--model", str(MLP), "--method-pool-bytes", "8192").returncode == 0
    text = (tmp_path / "deploy.cpp").read_text()
    assert "extern const uint8_t* const kProgram = nullptr;" in text and "program_bytes" not in text
    assert "uint8_t method_pool[8192];" in text and "kInputCount = 0;" in text


@pytest.mark.build  # (verified, as above)
def test_a_program_without_inputs_embeds_without_any(tmp_path):
    """(One whose method takes inputs cannot: test_bad_inputs_are_named_and_nothing_is_written.)"""
    arange = MODELS_DIR / "ops" / "aten_arange_out" / "aten_arange_out.pte"
    result = deploy_source(tmp_path, "--model", str(arange), "--embed")
    assert result.returncode == 0, result.stderr
    assert "kInputCount = 0;" in (tmp_path / "deploy.cpp").read_text()


def test_the_prim_ops_header_names_what_the_program_calls(tmp_path):
    from selective_build.emit.deploy_source import prim_op_macro, selected_prim_ops_header

    assert prim_op_macro("executorch_prim::et_view.default") == "INCLUDE_EXECUTORCH_PRIM_ET_VIEW_DEFAULT"
    assert prim_op_macro("aten::sym_size.int") == "INCLUDE_ATEN_SYM_SIZE_INT"
    header = selected_prim_ops_header(["aten::sym_size.int", "executorch_prim::add.Scalar", "aten::sym_size.int"],
                                      "m.pte")
    assert header.splitlines()[2:] == ["#define INCLUDE_ATEN_SYM_SIZE_INT", "#define INCLUDE_EXECUTORCH_PRIM_ADD_SCALAR"]
    # The MLP calls none: the header selects nothing.
    result = deploy_source(tmp_path, "--model", str(MLP), "--prim-ops-header", str(tmp_path / "p.h"))
    assert result.returncode == 0 and "#define" not in (tmp_path / "p.h").read_text()


def test_bad_inputs_are_named_and_nothing_is_written(tmp_path):
    not_npy = tmp_path / "x.npy"
    not_npy.write_bytes(b"just text")
    wrong_shape = tmp_path / "wrong_shape.npy"
    np.save(wrong_shape, np.zeros((8, 2), dtype=np.float32))
    wrong_dtype = tmp_path / "wrong_dtype.npy"
    np.save(wrong_dtype, np.zeros((2, 8), dtype=np.float64))
    fortran = tmp_path / "fortran.npy"
    np.save(fortran, np.asfortranarray(np.zeros((2, 8), dtype=np.float32)))
    corrupt = tmp_path / "corrupt.pte"
    corrupt.write_bytes(MLP.read_bytes()[:100])
    huge = tmp_path / "huge.pte"
    huge.write_bytes(pte_mutations.with_planned_buffer_size(MLP.read_bytes(), 1 << 40))
    cases = [
        (("--model", str(MLP), "--embed", "--inputs", str(not_npy)), f"{not_npy}: error: not a .npy array"),
        (("--model", str(MLP), "--embed", "--inputs", str(wrong_shape)),
         f"{wrong_shape}: error: input 0 of method 'forward' is Float of sizes [2, 8]; this array is Float of "
         "shape [8, 2]"),
        (("--model", str(MLP), "--embed", "--inputs", str(wrong_dtype)), "this array is Double of shape [2, 8]"),
        (("--model", str(MLP), "--embed", "--inputs", str(fortran)), "it is in Fortran order"),
        (("--model", str(MLP), "--embed", "--inputs", str(MLP_INPUT), "--inputs", str(MLP_INPUT)),
         "method 'forward' takes 1 inputs; 2 were given"),
        (("--model", str(MLP), "--inputs", str(MLP_INPUT)), "--inputs needs --embed"),
        (("--model", str(corrupt), "--embed"), f"{corrupt}: error: corrupt .pte"),
        # Embedded without its input, the program could never run: the binary takes no arguments.
        (("--model", str(MLP), "--embed"),
         f"{MLP}: error: method 'forward' takes 1 input and none is embedded: a binary with this program embedded "
         "could never run; give it as .npy files (et_model_binary's `inputs`, deploy-source's --inputs)"),
        (("--model", str(MIXED), "--embed"), f"{MIXED}: error: method 'forward' takes 2 inputs and none is embedded"),
        (("--model", str(tmp_path / "missing.pte")), "missing.pte"),
        # Static memory no target holds is refused before a compiler sees it, with its figure.
        (("--model", str(huge)), f"{huge}: error: a deploy binary of this program needs 1,099,511,6"),
        (("--model", str(MLP), "--runtime-library", str(tmp_path)), "--runtime-library needs --embed"),
        (("--model", str(MLP), "--embed", "--inputs", str(MLP_INPUT), "--runtime-library", str(tmp_path / "no.so")),
         f"--runtime-library {tmp_path / 'no.so'}: no such file"),
        (("--model", str(MLP), "--method-pool-bytes", "-1"), "--method-pool-bytes"),
    ]
    for argv, message in cases:
        result = deploy_source(tmp_path, *argv)
        assert result.returncode == 2 and message in result.stderr, (argv, result.stderr)
        assert "Traceback" not in result.stderr
        assert not (tmp_path / "deploy.cpp").exists()


def test_an_embedded_program_needs_a_host_compiler_for_its_verifier(tmp_path):
    """The verifier is compiled for this machine on first use: without a compiler, a clear error."""
    for compiler, message in (("/nonexistent/g++", "there is no C++ compiler '/nonexistent/g++' to compile it"),
                              ("false", "failed: false exited with status 1")):
        result = subprocess.run([str(ETSB), "deploy-source", "--model", str(MLP), "--embed", "--inputs", str(MLP_INPUT),
                                 "--output", str(tmp_path / "deploy.cpp")], capture_output=True, text=True,
                                env={**os.environ, "ETSB_HOST_CXX": compiler})
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert "Traceback" not in result.stderr and not (tmp_path / "deploy.cpp").exists()


def test_the_verifiers_verdicts_are_read_and_its_crash_is_a_refusal(tmp_path):
    """The verifier runs in a process of its own: what it prints is the verdict, and a crash
    of the runtime inside it (or a silent exit) refuses the program, naming it."""
    from selective_build.driver.program_verifier import check_planned, verify_program
    from selective_build.model.errors import UserError

    def tool(body: str) -> str:
        path = tmp_path / "verifier.sh"
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(0o755)
        return str(path)

    assert verify_program(tool("echo 'planned: 704 16'"), "m.pte", [64]) == (704, 16)
    cases = [("kill -SEGV $$", "m.pte: error: cannot be embedded: ExecuTorch's runtime crashed reading it (SIGSEGV)"),
             ("echo 'error: the program has no method'; exit 1", "cannot be embedded: the program has no method"),
             ("echo 'said on stderr' >&2; exit 3", "cannot be embedded: said on stderr"),
             ("exit 0", "cannot be embedded: exit status 0")]
    for body, message in cases:
        with pytest.raises(UserError) as refused:
            verify_program(tool(body), "m.pte", [64])
        assert message in str(refused.value), str(refused.value)
    with pytest.raises(UserError, match=r"ExecuTorch reads the planned buffers \[704\] where etsb reads \[64\]"):
        check_planned("m.pte", (704,), (64,))
