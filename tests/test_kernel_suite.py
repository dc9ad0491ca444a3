"""ExecuTorch's own kernel test suite (and its portable library's own tests
that call our kernels) on etsb's portable kernels, with
ExecuTorch's portable kernels from the tree as the control (tests/kernel_suite.py
builds and runs it). Every case of every file whose operators our yaml provides
passes, but those tests/data/kernel_suite_failing.txt lists as defects still
to fix; the control passes every case it runs. Both figures are printed at
the end of the run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kernel_suite
from conftest import REPO, SUMMARY_LINES
from op_corpus import failing_cases  # scripts/gen_kernels_table.py's reader

FAILING = REPO / "tests" / "data" / "kernel_suite_failing.txt"


def listed_failures() -> dict[tuple[str, str], str]:
    """(file, case) -> what is wrong, from the ledger (read as the README's table reads it)."""
    return failing_cases(FAILING.read_text())


@pytest.fixture(scope="module")
def suite(module_folders):
    """The chosen files built once and run on both libraries; the figures printed at the end."""
    selection, results = kernel_suite.run_suite(module_folders("kernel_suite"))
    files, *counts = kernel_suite.figures(selection, results)
    SUMMARY_LINES.extend(["", f"ExecuTorch's kernel test suite (kernels/test), ours beside ExecuTorch's portable: "
                          f"{files}", *counts])
    return selection, results


@pytest.mark.build
@pytest.mark.tree
def test_every_case_passes_on_ours_but_the_listed_defects(suite):
    _, results = suite
    failing = {(name, case) for name, result in results["ours"].items()
               for case, outcome in result.cases.items() if outcome in ("fail", "crash")}
    unbuilt = {name: result.build_error for name, result in results["ours"].items() if result.build_error}
    assert not unbuilt, unbuilt
    listed = listed_failures()
    new = sorted(failing - set(listed))
    fixed = sorted(set(listed) - failing)
    assert not new, f"cases of ExecuTorch's suite that fail on our kernels: {new}"
    assert not fixed, f"cases that pass now: remove them from {FAILING.relative_to(REPO)}: {fixed}"


@pytest.mark.build
@pytest.mark.tree
def test_the_control_passes_every_case(suite):
    """ExecuTorch's portable kernels pass what the harness runs: a failure there is the harness's."""
    _, results = suite
    problems = {name: result.build_error or sorted(c for c, o in result.cases.items() if o in ("fail", "crash"))
                for name, result in results["portable"].items()
                if result.build_error or {"fail", "crash"} & set(result.cases.values())}
    assert not problems, problems
    assert kernel_suite.summary(results["portable"])["pass"] >= 800


@pytest.mark.build
@pytest.mark.tree
def test_the_record_kernels_readme_shows_is_this_runs(suite):
    """tests/data/kernel_suite_cases.json (the README's column) holds what was run."""
    selection, results = suite
    recorded = json.loads(kernel_suite.RECORD.read_text())
    assert kernel_suite.record(selection, results) == recorded, (
        "run: PYTHONPATH=tools:tests .venv/bin/python tests/kernel_suite.py --record, "
        "then python scripts/gen_kernels_table.py")


@pytest.mark.tree
def test_the_files_that_run_are_those_our_yaml_provides(tmp_path):
    selection = kernel_suite.prepare(tmp_path)
    suite_files = sorted(path.name for path in kernel_suite.SUITE.glob("op_*_test.cpp"))
    portable_files = sorted("portable/" + path.name for path in kernel_suite.PORTABLE_SUITE.glob("op_*_test.cpp"))
    assert sorted([*selection.runs, *selection.not_provided]) == sorted([*suite_files, *portable_files])
    assert {"op_add_test.cpp", "op_sum_test.cpp", "op_convolution_test.cpp", "op_var_test.cpp"} <= set(selection.runs)
    # The portable library's own tests call its kernel functions: they run where ours declares them.
    assert {"portable/op_gelu_test.cpp", "portable/op_div_test.cpp", "portable/op_mul_test.cpp"} <= set(selection.runs)
    assert selection.not_provided["portable/op_allclose_test.cpp"] == ("aten::allclose.out",)
    # ATen mode's test calls kernel functions without a context: never ours to run.
    assert "op__device_copy_aten_test.cpp" in selection.not_provided
    # A file whose every operator is ours but one overload of a helper it calls does not run.
    # (Its kernel functions dropped too: they would provide the overload to the portable library's tests.)
    ours = {key: operators for key, operators in
            kernel_suite.helpers((tmp_path / "include/executorch/kernels/etsb/Functions.h").read_text()).items()
            if key[0] != "native"}
    ours[("aten", "add_outf")] = {"aten::add.out"}
    # Without var.out, var_outf would bind to var.correction_out: the file waits for var.out itself.
    ours[("aten", "var_outf")] = {"aten::var.correction_out"}
    portable = kernel_suite.helpers((tmp_path / "portable_headers/Functions.h").read_text())
    without = kernel_suite.select_files(ours, portable)
    assert without.not_provided["op_add_test.cpp"] == ("aten::add.Scalar_out",)
    assert without.not_provided["op_var_test.cpp"] == ("aten::var.out",)


@pytest.mark.parametrize("text, message", [
    ("op_add_test.cpp OpAdd.Case\n", ":1: expected 'FILE CASE  WHAT IS WRONG'"),
    ("# a comment\na b  wrong\na b  again\n", ":3: a b is listed twice"),
])
def test_a_malformed_ledger_is_refused_with_its_line(text, message):
    with pytest.raises(SystemExit) as refused:
        failing_cases(text)
    assert str(refused.value).endswith(message) and "kernel_suite_failing.txt" in str(refused.value)


RUN = """\
[==========] Running 3 tests from 1 test suite.
[ RUN      ] OpX.Passes
[       OK ] OpX.Passes (0 ms)
[ RUN      ] OpX.Fails
op_x_test.cpp:10: Failure
[  FAILED  ] OpX.Fails (1 ms)
[ RUN      ] OpX.Skips
[  SKIPPED ] OpX.Skips (0 ms)
"""


def test_gtest_output_is_read_case_by_case():
    finished = RUN + "[==========] 3 tests from 1 test suite ran. (1 ms total)\n[  FAILED  ] OpX.Fails\n"
    assert kernel_suite.parse(finished) == ({"OpX.Passes": "pass", "OpX.Fails": "fail", "OpX.Skips": "skip"}, None)


def test_a_crash_names_the_case_that_was_running():
    cases, crashed = kernel_suite.parse(RUN + "[ RUN      ] OpX.Crashes\n")
    assert crashed == "OpX.Crashes" and len(cases) == 3
    assert kernel_suite.parse("")[1] == "(before the first case)"


def test_the_cases_after_a_crash_still_run(tmp_path: Path):
    """A stand-in binary that crashes on its second case the first time: the file is run again without it."""
    binary = tmp_path / "fake_test"
    binary.write_text(
        "#!/bin/sh\n"
        'case "$1" in\n'
        '  --gtest_filter=\\*) printf "[ RUN      ] A.one\\n[       OK ] A.one (0 ms)\\n[ RUN      ] A.two\\n"; '
        "kill -SEGV $$ ;;\n"
        '  *) printf "[ RUN      ] A.three\\n[       OK ] A.three (0 ms)\\n'
        '[==========] 1 test from 1 test suite ran. (0 ms total)\\n" ;;\n'
        "esac\n")
    binary.chmod(0o755)
    result = kernel_suite.run_file(binary)
    assert result.cases == {"A.one": "pass", "A.two": "crash", "A.three": "pass"}
