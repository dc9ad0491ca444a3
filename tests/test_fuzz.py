"""The runner's fuzz targets and the kernel checks under sanitizers (clang,
libFuzzer, AddressSanitizer, UndefinedBehaviorSanitizer), built by
scripts/fuzz.sh into a directory of the tests' own and run over their
checked-in seeds (tests/fuzz/) for a bounded number of inputs, with a fixed
seed. A finding (a crash, a sanitizer report, a broken invariant) fails the
test; the input is left in the directory, for scripts/fuzz.sh to replay."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO
from op_corpus import load_manifest, run_operator

pytestmark = pytest.mark.build

FUZZ = REPO / "scripts" / "fuzz.sh"
SEEDS = REPO / "tests" / "fuzz"


@pytest.fixture(scope="module")
def fuzz_out(module_folders) -> Path:
    """The fuzz targets and kernel_checks, built once."""
    out = module_folders("fuzz")
    result = subprocess.run([str(FUZZ), "--build"], env={**os.environ, "FUZZ_OUT": str(out)},
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-5000:]
    return out


def fuzz(out: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(FUZZ), *argv], env={**os.environ, "FUZZ_OUT": str(out)},
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("target, runs", [("npy", 500_000), ("program", 20_000)])
def test_a_bounded_fuzzing_run_finds_nothing(fuzz_out, target, runs):
    result = fuzz(fuzz_out, target, f"-runs={runs}", "-seed=1")
    findings = sorted(path.name for path in fuzz_out.glob("crash-*")) + sorted(p.name for p in fuzz_out.glob("leak-*"))
    assert result.returncode == 0 and not findings, (findings, result.stderr[-5000:])
    assert f"Done {runs} runs" in result.stderr


def test_every_checked_in_seed_runs_cleanly(fuzz_out):
    """The seeds include the inputs that found bugs: each is refused or run, never a crash."""
    for target in ("npy", "program"):
        seeds = sorted((SEEDS / target).iterdir())
        assert len(seeds) >= 6, target
        result = subprocess.run([str(fuzz_out / "build" / f"{target}_fuzzer"), *map(str, seeds)],
                                capture_output=True, text=True, timeout=300, cwd=fuzz_out)
        assert result.returncode == 0, result.stderr[-5000:]
        assert "runtime error" not in result.stderr and "ERROR: AddressSanitizer" not in result.stderr


def test_each_kernel_is_compiled_once_for_the_three_programs(fuzz_out):
    """The fuzzer, the checks and the sanitized runner share one instrumented
    object of each kernel source (a second generated library would compile them all again)."""
    # A generated library's objects are named after its sources (<source>.o), or after its
    # wrappers (<number>_<source>.o) where the selection is made while building.
    objects = [match[1] for path in (fuzz_out / "build").rglob("*.cpp.o")
               if (match := re.fullmatch(r"(?:\d+_)?(op_\w+\.cpp)\.o", path.name))]
    assert len(objects) > 100 and len(objects) == len(set(objects)), sorted(objects)


def test_kernel_checks_pass_under_the_sanitizers(fuzz_out):
    """Signed overflow, misaligned or out-of-bounds access in a kernel would be reported (and fail)."""
    result = subprocess.run([str(fuzz_out / "build" / "kernel_checks")], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert result.stdout.splitlines()[-1].endswith(" checks, 0 failed")
    assert "runtime error" not in result.stderr


def test_the_operator_corpus_runs_clean_under_the_sanitizers(fuzz_out, tmp_path):
    """Every case of the single-operator corpus (tests/models/ops) through the
    runner with every portable kernel, all instrumented: no sanitizer report,
    and every output still matches torch."""
    failures = []
    for operator, entry in sorted(load_manifest()["operators"].items()):
        results, stderr = run_operator(fuzz_out / "build" / "sanitized_runner", operator, entry,
                                       tmp_path / operator.replace(":", "_"))
        if "runtime error" in stderr or "AddressSanitizer" in stderr or "LeakSanitizer" in stderr:
            failures.append(f"{operator}: {stderr[-3000:]}")
        failures += [f"{operator} {method}: {problem}" for method, problem in sorted(results.items()) if problem]
    assert not failures, "\n".join(failures[:40])


def test_the_fuzz_script_refuses_an_unknown_target(tmp_path):
    result = fuzz(tmp_path, "yaml")
    assert result.returncode == 2
    assert result.stderr == "etsb fuzz: error: the first argument is npy, program or --build, not 'yaml' (see --help)\n"
