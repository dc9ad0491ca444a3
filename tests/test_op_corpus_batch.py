"""op_corpus.run_operators, which runs many operators' programs in one runner
process, against a stand-in runner (a script with the runner's --all-methods
command line that writes torch's own outputs, read from the inputs folder,
where npz.extractall put them beside the inputs): every operator's answer is
the one a process of its own gives, and a failure is reported with the
operator it belongs to, whether its outputs differ or the process died on it."""

from __future__ import annotations

import sys
from pathlib import Path

from op_corpus import load_manifest, run_operator, run_operators

MANIFEST = load_manifest()["operators"]
OPERATORS = ("aten::abs.out", "aten::add.out", "aten::relu.out")

# Argument 1: what to do on reaching a program whose path holds it: "crash"
# (the process dies, nothing more written), "wrong" (its outputs' last byte
# changed) or "exit" (every output written, then exit status 3).
STAND_IN = """\
import os, shutil, sys
fault, argv = sys.argv[1], [a for a in sys.argv[2:] if a != "--all-methods"]
lists = {argv[i]: argv[i + 1].split(",") for i in range(0, len(argv), 2)}
for model, inputs, out in zip(lists["--model"], lists["--inputs-dir"], lists["--output-dir"]):
    marked = fault.split(":")[1] in model
    if marked and fault.startswith("crash"):
        os.abort()
    for name in sorted(os.listdir(inputs)):
        if ".output_" in name:
            method, index = name.split(".output_")
            os.makedirs(os.path.join(out, method), exist_ok=True)
            data = bytearray(open(os.path.join(inputs, name), "rb").read())
            if marked and fault.startswith("wrong") and len(data) > 10 + int.from_bytes(data[8:10], "little"):
                data[-1] ^= 0x10  # the last element's top byte (past the .npy header): another value
            open(os.path.join(out, method, "output_" + index), "wb").write(data)
sys.exit(3 if fault.startswith("exit") else 0)
"""


def stand_in(tmp_path: Path, fault: str) -> Path:
    """An executable stand-in for the runner, with ``fault`` (see STAND_IN)."""
    script = tmp_path / "runner.py"
    script.write_text(STAND_IN)
    binary = tmp_path / "runner"
    binary.write_text(f"#!/bin/sh\nexec {sys.executable} {script} {fault} \"$@\"\n")
    binary.chmod(0o755)
    return binary


def entries() -> dict[str, dict]:
    return {operator: MANIFEST[operator] for operator in OPERATORS}


def folder(operator: str) -> str:
    return MANIFEST[operator]["pte"].split("/")[0]


def test_every_operator_answers_as_it_does_alone(tmp_path):
    binary = stand_in(tmp_path, "none:none")
    found = run_operators(binary, entries(), tmp_path / "batch")
    for operator in OPERATORS:
        alone, _ = run_operator(binary, operator, MANIFEST[operator], tmp_path / folder(operator))
        assert found[operator] == (alone, "") and not any(alone.values()), operator


def test_a_crash_fails_its_operator_alone_and_the_others_still_pass(tmp_path):
    binary = stand_in(tmp_path, f"crash:{folder('aten::add.out')}/")
    found = run_operators(binary, entries(), tmp_path / "batch")
    assert not any(found["aten::abs.out"][0].values()) and not any(found["aten::relu.out"][0].values())
    results = found["aten::add.out"][0]
    assert results and all(problem.startswith("no outputs (exit -6)") for problem in results.values()), results


def test_outputs_that_differ_fail_their_operator_only(tmp_path):
    binary = stand_in(tmp_path, f"wrong:{folder('aten::relu.out')}/")
    found = run_operators(binary, entries(), tmp_path / "batch")
    assert not any(found["aten::abs.out"][0].values()) and not any(found["aten::add.out"][0].values())
    problems = found["aten::relu.out"][0]
    assert any(problem and "torch's" in problem for problem in problems.values()), problems


def test_a_failed_process_whose_outputs_all_match_is_run_again_per_operator(tmp_path):
    """Every operator is run alone, each failing with the exit status as a
    process of its own reports it."""
    binary = stand_in(tmp_path, "exit:none")
    found = run_operators(binary, entries(), tmp_path / "batch")
    for operator in OPERATORS:
        assert found[operator][0]["(runner)"].startswith("exit 3"), found[operator]
