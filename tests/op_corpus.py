"""The single-operator corpus (tests/models/ops, written by
tests/models/export_ops.py): reading its manifest, running its cases through a
runner binary, and comparing with torch's answers. Shared by
tests/test_op_corpus.py (etsb's trimmed binaries) and tests/test_fuzz.py (the
runner under AddressSanitizer and UndefinedBehaviorSanitizer)."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from conftest import REPO

sys.path.insert(0, str(REPO / "scripts"))
# One dtype list, one yaml reader, one reader of the kernel suite's ledger.
from gen_kernels_table import DTYPES, failing_cases, yaml_operators  # noqa: E402,F401

OPS_DIR = REPO / "tests" / "models" / "ops"
MANIFEST_PATH = OPS_DIR / "manifest.json"


# Cases where ATen's own integer arithmetic is an approximation that etsb's
# kernel rounds differently, with the largest difference allowed: ATen's
# uint8 bilinear resampling uses 16-bit fixed-point weights and rounds each
# separable pass (its antialiased resampling too); etsb rounds the exact
# interpolation once.
INTEGER_SLACK = {("aten::upsample_bilinear2d.vec_out", "Byte"): 1, ("aten::_upsample_bilinear2d_aa.out", "Byte"): 1}


def load_manifest() -> dict:
    return json.loads(MANIFEST_PATH.read_text())


@dataclass(frozen=True)
class Case:
    """One method of one operator's program, and torch's outputs for it."""

    operator: str
    method: str
    dtype: str
    outputs: tuple[np.ndarray, ...]
    output_dtypes: tuple[str, ...]  # numpy names, or "bfloat16"
    tolerances: tuple[tuple[float, float], ...]  # (rtol, atol) per output


def cases_of(operator: str, entry: dict) -> list[Case]:
    """The cases of one manifest entry, with torch's outputs read from its npz."""
    with np.load(OPS_DIR / entry["npz"]) as arrays:
        cases = []
        for name, method in sorted(entry["methods"].items()):
            outputs = tuple(arrays[f"{name}.output_{i}"] for i in range(len(method["outputs"])))
            cases.append(Case(operator, name, method["dtype"], outputs,
                              tuple(o["dtype"] for o in method["outputs"]),
                              tuple((o["rtol"], o["atol"]) for o in method["outputs"])))
    return cases


def run_operator(binary: Path, operator: str, entry: dict, work: Path,
                 emulator: tuple[str, ...] = ()) -> tuple[dict[str, str | None], str]:
    """Runs every case of one operator in ``binary`` in one process (the
    runner's --all-methods, its inputs the npz's members extracted under
    ``work``; under ``emulator``, a command prefix, for another CPU's binary):
    per method, None when every output matches torch's, else what went wrong;
    and the runner's stderr."""
    run = _run_programs(binary, [(entry, work)], emulator, timeout=300)
    results = _results(operator, entry, work / "out", f"(exit {run.returncode}): {run.stderr.strip()[-1500:]}")
    if run.returncode != 0 and all(r is None for r in results.values()):
        results["(runner)"] = f"exit {run.returncode}: {run.stderr.strip()[-1500:]}"
    return results, run.stderr


def run_operators(binary: Path, entries: dict[str, dict], work: Path,
                  emulator: tuple[str, ...] = ()) -> dict[str, tuple[dict[str, str | None], str]]:
    """:func:`run_operator`'s answer for each of ``entries`` (operator ->
    manifest entry), the programs run one after the other in one runner
    process (--all-methods with a list of programs: one process start, not
    one per operator, which under an emulator is most of an operator's time).
    An operator with a method left without outputs (it failed, or the
    process died before reaching it) is run again alone, and answers as it
    does alone; so does every operator when the process failed though each
    one's outputs match. An operator whose outputs differ from torch's keeps
    that answer, with the stderr of a run of its own: what goes wrong is
    reported with the operator it belongs to."""
    names = sorted(entries)
    folders = {operator: work / f"op_{index}" for index, operator in enumerate(names)}
    try:
        run = _run_programs(binary, [(entries[o], folders[o]) for o in names], emulator,
                            timeout=300 + 10 * len(names))
        returncode = run.returncode
    except subprocess.TimeoutExpired as expired:
        returncode = f"timed out after {expired.timeout} s"
    answers = {o: _results(o, entries[o], folders[o] / "out", None) for o in names}
    clean = {o for o, results in answers.items() if all(r is None for r in results.values())}
    again = [o for o in names if o not in clean] if returncode == 0 or clean != set(names) else names
    found = {}
    for operator in names:
        if operator not in again:
            found[operator] = (answers[operator], "")
            continue
        alone, stderr = run_operator(binary, operator, entries[operator], folders[operator] / "alone", emulator)
        missing = any(r == _MISSING for r in answers[operator].values()) or operator in clean
        found[operator] = (alone if missing else answers[operator], stderr)
    return found


def operators_under_test(session, test: str, **params: str) -> set[str]:
    """The ``operator`` parameters of the session's items of the test
    function ``test`` whose other parameters are ``params``: the operators a
    batch run (:func:`run_operators`) for those items must answer for."""
    return {item.callspec.params["operator"] for item in session.items
            if getattr(item, "originalname", "") == test
            and all(item.callspec.params.get(name) == value for name, value in params.items())}


def _run_programs(binary: Path, programs: list[tuple[dict, Path]], emulator: tuple[str, ...],
                  timeout: float) -> subprocess.CompletedProcess:
    """The runner's --all-methods over ``programs`` (manifest entry, work
    folder: its npz extracted to work/inputs, outputs written to work/out)."""
    for entry, folder in programs:
        with zipfile.ZipFile(OPS_DIR / entry["npz"]) as npz:
            npz.extractall(folder / "inputs")
    lists = [",".join(str(x) for x in column) for column in
             zip(*[(OPS_DIR / entry["pte"], folder / "inputs", folder / "out") for entry, folder in programs])]
    return subprocess.run([*emulator, str(binary), "--model", lists[0], "--all-methods", "--inputs-dir", lists[1],
                           "--output-dir", lists[2]], capture_output=True, text=True, timeout=timeout, check=False)


# What _results says of a method without outputs when it is given no reason.
_MISSING = "no outputs"


def _results(operator: str, entry: dict, out: Path, why: str | None) -> dict[str, str | None]:
    """Per method of ``entry``'s cases: None when every output in ``out``
    matches torch's, else what went wrong (for a method without outputs,
    ``no outputs`` and ``why``, or :data:`_MISSING` itself without one)."""
    results: dict[str, str | None] = {}
    for case in cases_of(operator, entry):
        if not all((out / case.method / f"output_{i}.npy").is_file() for i in range(len(case.outputs))):
            results[case.method] = f"{_MISSING} {why}" if why else _MISSING
            continue
        problems = []
        for index, expected in enumerate(case.outputs):
            got = np.load(out / case.method / f"output_{index}.npy")
            rtol, atol = case.tolerances[index]
            atol = max(atol, INTEGER_SLACK.get((operator, case.dtype), 0))
            problem = compare(got, expected, case.output_dtypes[index], rtol, atol)
            if problem:
                problems.append(f"output {index}: {problem}")
        results[case.method] = "; ".join(problems) or None
    return results


def as_float32(bits: np.ndarray) -> np.ndarray:
    """BFloat16 bit patterns (uint16) as the float32 values they stand for."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def compare(got: np.ndarray, expected: np.ndarray, dtype: str, rtol: float, atol: float) -> str | None:
    """None when ``got`` matches ``expected``: same shape and dtype, equal for
    integers and Bool, within ``atol + rtol * |expected|`` for floats (NaN
    matching NaN); else the first difference."""
    if got.shape != expected.shape:
        return f"shape {got.shape}, torch's {expected.shape}"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype}, torch's {expected.dtype}"
    if dtype == "bfloat16":
        got, expected = as_float32(got), as_float32(expected)
    if np.iscomplexobj(expected):  # real and imaginary parts compared as floats, side by side
        got, expected = got.reshape(-1).view(got.real.dtype), expected.reshape(-1).view(expected.real.dtype)
    if not np.issubdtype(expected.dtype, np.floating):
        distance = np.abs(got.reshape(-1).astype(np.int64) - expected.reshape(-1).astype(np.int64))
        differs = np.flatnonzero(distance > atol)
        if differs.size:
            i = differs[0]
            return f"element {i}: {got.reshape(-1)[i]!r}, torch's {expected.reshape(-1)[i]!r} ({differs.size} differ)"
        return None
    g = got.astype(np.float64).reshape(-1)
    e = expected.astype(np.float64).reshape(-1)
    both_nan = np.isnan(g) & np.isnan(e)
    same_inf = np.isinf(e) & (g == e)
    with np.errstate(invalid="ignore"):  # inf - inf is NaN, not close: same_inf covers equal infinities
        close = np.abs(g - e) <= atol + rtol * np.abs(e)
    bad = np.flatnonzero(~(both_nan | same_inf | close))
    if bad.size:
        i = bad[0]
        return f"element {i}: {g[i]!r}, torch's {e[i]!r} ({bad.size} of {e.size} outside rtol {rtol}, atol {atol})"
    return None


def coverage_table(manifest: dict, passed: dict[tuple[str, str], bool]) -> str:
    """A markdown table, operator by dtype: how many cases ran and matched
    ('3'), failed ('FAIL'), were refused by torch ('-'), or did not run in
    this session ('·', e.g. under pytest -k)."""
    lines = ["| operator | " + " | ".join(DTYPES) + " |", "| --- |" + " --- |" * len(DTYPES)]
    for operator, entry in sorted(manifest["operators"].items()):
        cells = []
        for dtype in DTYPES:
            methods = [name for name, m in entry["methods"].items() if m["dtype"] == dtype]
            if not methods:
                cells.append("-")
            elif any((operator, name) not in passed for name in methods):
                cells.append("·")
            elif all(passed[(operator, name)] for name in methods):
                cells.append(str(len(methods)))
            else:
                cells.append("FAIL")
        lines.append(f"| `{operator}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# What marks a source as built once per x86 instruction set: run-time CPU
# checks (gemm_f32.h, dot_f32.h, depthwise_inplace_f32.h) or GCC's target clones
# (fast_math.h's ETSB_HOT_LOOP and ETSB_NARROW_LOOP, which every vectorised
# loop of the kernels takes).
PER_ISA_MARKERS = ("__builtin_cpu_supports", "target_clones")


def operators_with_per_isa_builds(manifest: dict) -> list[str]:
    """The corpus's operators whose kernel source reaches code built once per
    x86 instruction set (its own text or a header it includes, transitively):
    the operators whose results a CPU's vector unit could change. Sources and
    their includes are found as etsb finds them (readers/kernel_sources.py)."""
    import yaml
    from selective_build.readers.kernel_sources import included_files, index_kernel_sources, library_sources

    entries = yaml.safe_load((REPO / "kernels" / "portable" / "functions.yaml").read_text())
    files = library_sources(str(REPO), ["kernels/portable"])
    index = index_kernel_sources(str(REPO), files)
    source_of = {}
    for entry in entries:
        found = index.defining(entry["kernels"][0]["kernel_name"].rsplit("::", 1)[-1])
        if f"aten::{entry.get('op')}" in manifest["operators"] and len(found) == 1:
            source_of[f"aten::{entry['op']}"] = found[0]
    reached = included_files(str(REPO), files, set(source_of.values()))
    marked = {path for path in files if any(mark in (REPO / path).read_text() for mark in PER_ISA_MARKERS)}
    return sorted(operator for operator, source in source_of.items()
                  if marked & {source, *reached[source]})
