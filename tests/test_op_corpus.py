"""Every operator of etsb's portable library, in every dtype torch accepts
for it, against torch: the single-operator corpus (tests/models/ops, one
multi-method program per operator, one method per dtype x shape case, torch's
outputs recorded at export) run through two trimmed binaries that
tests/models/ops/BUILD builds from all of its programs: op-selective, and
dtype-selective (each kernel keeping only the dtypes the corpus uses, so
every dtype switch is exercised trimmed too). Integers and Bool must match
exactly, floats within the manifest's tolerance. The op x dtype coverage
table is written to etsb-out/op_corpus_coverage.md and printed at the end
of the run."""

from __future__ import annotations


import shutil

import pytest

from conftest import REPO, SUMMARY_LINES, TREE
from helpers import etsb
from op_corpus import (DTYPES, OPS_DIR, coverage_table, load_manifest, operators_under_test,
                       operators_with_per_isa_builds, run_operators, yaml_operators)

pytestmark = pytest.mark.build

MANIFEST = load_manifest()
OUT = REPO / "etsb-out" / "bin" / "tests" / "models" / "ops"
COVERAGE = REPO / "etsb-out" / "op_corpus_coverage.md"
BINARIES = {"op_selective": OUT / "op_corpus",
            "dtype_selective": OUT / "op_corpus_dtypes_smallest" / "op_corpus_dtypes"}
RESULTS: dict[tuple[str, str], bool] = {}
# The dtype prefixes of method names (f32_broadcast), as export_ops.py writes them.
SHORT_DTYPES = dict(zip(("bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"), DTYPES))


@pytest.fixture(scope="module")
def built():
    result = etsb("build", "//tests/models/ops:op_corpus", "//tests/models/ops:op_corpus_dtypes")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    yield
    COVERAGE.write_text(coverage_table(MANIFEST, RESULTS) + "\n")


@pytest.fixture(scope="module")
def answers(request, built, module_folders):
    """``answers(test, binary, emulator, **params)``: the answers of the
    operators of the session's items of ``test`` with ``params``, run by
    ``binary`` (under ``emulator``) all in one process, once a module
    (op_corpus.run_operators: one process start, not one per operator; an
    operator that fails is run again alone)."""
    found = {}

    def get(test: str, binary, emulator: tuple[str, ...] = (), **params: str) -> dict:
        key = (test, *sorted(params.items()))
        if key not in found:
            entries = {o: MANIFEST["operators"][o] for o in operators_under_test(request.session, test, **params)}
            found[key] = run_operators(binary, entries, module_folders("op_corpus_run"), emulator)
        return found[key]

    return get


# Operators of the library that no program ExecuTorch exports can call, so the
# corpus cannot hold them: each with why, and what checks its kernel instead.
NOT_EXPORTABLE = {
    "aten::_native_batch_norm_legit.out":
        "torch.export functionalizes it (it updates the running statistics in place) into "
        "_native_batch_norm_legit_functional, which ExecuTorch 1.5.1 has no out variant for; "
        "tests/kernels/kernel_checks_spatial.cpp and ExecuTorch's op_native_batch_norm_test.cpp check it, "
        ".no_stats_out is in the corpus",
    "aten::lift_fresh_copy.out": "to_edge turns lift_fresh_copy into clone (_clone_dim_order), even when it is "
                                 "listed in preserve_ops; ExecuTorch's op_lift_fresh_copy_test.cpp checks it",
}


def test_the_corpus_covers_every_operator_of_the_library():
    declared = yaml_operators((REPO / "kernels" / "portable" / "functions.yaml").read_text())
    missing = set(declared) - set(MANIFEST["operators"]) - set(NOT_EXPORTABLE)
    assert not missing, f"operators with kernels but no corpus cases: {sorted(missing)}"
    assert set(NOT_EXPORTABLE) <= set(declared) - set(MANIFEST["operators"]), "a NOT_EXPORTABLE entry is stale"


# ExecuTorch's portable yaml entries that etsb's library leaves out on purpose,
# each with its reason. None: every entry is meant to be implemented.
DELIBERATE_OMISSIONS: dict[str, str] = {}


@pytest.mark.tree
def test_the_library_covers_executorchs_portable_yaml():
    """Entry for entry, ExecuTorch's portable yaml (its source tree's) is in
    etsb's, but for the deliberate omissions."""
    theirs = set(yaml_operators((TREE / "kernels" / "portable" / "functions.yaml").read_text()))
    ours = set(yaml_operators((REPO / "kernels" / "portable" / "functions.yaml").read_text()))
    missing = theirs - ours - set(DELIBERATE_OMISSIONS)
    assert not missing, f"ExecuTorch's portable entries etsb's library lacks: {sorted(missing)}"
    assert not set(DELIBERATE_OMISSIONS) & ours, "an omission is implemented: drop it from DELIBERATE_OMISSIONS"
    assert set(DELIBERATE_OMISSIONS) <= theirs, "a listed entry is not ExecuTorch's"


def test_the_corpus_files_are_listed_and_small():
    listed = {OPS_DIR / e["pte"] for e in MANIFEST["operators"].values()}
    listed |= {OPS_DIR / e["npz"] for e in MANIFEST["operators"].values()}
    on_disk = {p for p in OPS_DIR.glob("*/*") if p.is_file()}
    assert on_disk == listed
    # About 52 KB an operator (a program of ~36 one-case methods, and its npz):
    # the whole portable set of 209 entries fits in 12 MiB.
    assert sum(p.stat().st_size for p in listed) < 12 * 2**20


@pytest.mark.parametrize("variant", sorted(BINARIES))
@pytest.mark.parametrize("operator", sorted(MANIFEST["operators"]))
def test_every_case_matches_torch(answers, operator, variant):
    results, _ = answers("test_every_case_matches_torch", BINARIES[variant], variant=variant)[operator]
    if variant == "op_selective":
        RESULTS.update({(operator, method): problem is None for method, problem in results.items()})
    failures = [f"{method}: {problem}" for method, problem in sorted(results.items()) if problem]
    assert not failures, f"{operator} ({variant}):\n" + "\n".join(failures)


# x86 CPUs that qemu-x86_64 plays, each taking other builds of the kernels'
# vector code than this machine may: AVX2 + FMA without AVX-512, and SSE4.2
# without AVX (the baseline builds, and the fallbacks where a kernel has no
# baseline build). This machine's own CPU takes its widest builds.
EMULATED_CPUS = {"avx2": "Haswell", "baseline": "Nehalem"}
PER_ISA_OPERATORS = operators_with_per_isa_builds(MANIFEST)


def test_the_per_isa_operators_are_found():
    """The scan of the kernels' sources finds the operators known to have
    per-instruction-set builds (a scan finding none would test nothing)."""
    assert {"aten::convolution.out", "aten::mm.out", "aten::addmm.out", "aten::bmm.out", "aten::sigmoid.out",
            "aten::_native_batch_norm_legit_no_training.out", "aten::max_pool2d_with_indices.out"} <= \
        set(PER_ISA_OPERATORS)
    assert "aten::exp.out" not in PER_ISA_OPERATORS


@pytest.mark.parametrize("cpu", sorted(EMULATED_CPUS))
@pytest.mark.parametrize("operator", PER_ISA_OPERATORS)
def test_per_isa_operators_match_torch_on_older_x86_cpus(answers, operator, cpu):
    """The op-selective corpus binary's cases of each operator with
    per-instruction-set builds, run under qemu-x86_64 as an older CPU:
    whichever build the CPU picks, torch's answers."""
    assert shutil.which("qemu-x86_64"), "no qemu-x86_64 on PATH: scripts/setup.sh installs qemu-user"
    emulator = ("qemu-x86_64", "-cpu", EMULATED_CPUS[cpu])
    results, _ = answers("test_per_isa_operators_match_torch_on_older_x86_cpus", BINARIES["op_selective"], emulator,
                         cpu=cpu)[operator]
    failures = [f"{method}: {problem}" for method, problem in sorted(results.items()) if problem]
    assert not failures, f"{operator} as {EMULATED_CPUS[cpu]}:\n" + "\n".join(failures)


def test_every_dtype_torch_accepts_has_cases():
    """A dtype is either covered by cases or recorded as refused by torch (or
    skipped by ExecuTorch's exporter, with the reason), never silently absent."""
    for operator, entry in MANIFEST["operators"].items():
        covered = {m["dtype"] for m in entry["methods"].values()}
        refused = set(entry.get("unsupported_by_torch", {}))
        skipped = {SHORT_DTYPES.get(name.split("_", 1)[0]) for name in entry.get("skipped", {})}
        absent = [d for d in DTYPES if d not in covered | refused | skipped]
        assert not absent, (operator, absent)


@pytest.fixture(scope="session", autouse=True)
def _print_coverage():
    """The coverage table, printed at the end of the run when the corpus ran."""
    yield
    text = COVERAGE.read_text() if COVERAGE.exists() else ""
    if text and RESULTS:
        SUMMARY_LINES.extend(["", "single-operator corpus, cases per operator and dtype "
                              "(etsb-out/op_corpus_coverage.md):", *text.splitlines()])
