"""ExecuTorch's kernel test suite (`kernels/test/op_*_test.cpp` in the tree),
and its portable library's own tests (`kernels/portable/test`, named here
`portable/<file>`), built against a kernel library and run, one process per
test file.

Which files run is decided from the yaml, not listed by hand: a file calls
operators through `Functions.h` helpers (`torch::executor::aten::add_outf`);
a helper name stands for every overload ExecuTorch's portable yaml gives it
(`add_outf`: `add.out` and `add.Scalar_out`), and a file runs when our yaml has
every one of them. So a new operator's file joins by itself, and a file whose
call would bind to the wrong overload (`var_outf` with only `var.correction_out`)
does not run until the overload it means is there. The portable library's own
tests call the kernels' C++ functions themselves (`native::gelu_out`, through
`kernels/portable/NativeFunctions.h`, which here is our library's): a file
runs when our yaml declares every one it calls (`op_allclose_test` calls
portable's custom `allclose`, which etsb's library does not have). Its
`dtype_selective_build_test` calls no kernel and does not run: it checks
ExecuTorch's generated dtype selection, which aborts in a switch named after
no selected operator, where etsb's `gen-op-variants` deliberately keeps such
a switch (shared patterns, `__func__`: emit/op_variants.py).

Each test file compiles once (clang, -O0, one precompiled header) against the
`Functions.h` of our yaml, and links twice: with our kernels and, as the
control, with ExecuTorch's portable kernels from the tree; both libraries are
the checkout workspace's archives, shared with the other builds. A crash ends
its process, not the file: the case that crashed is named and the file runs
again without it."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from conftest import REPO, TREE
from helpers import ET_INCLUDES, ET_LINK, etsb
from selective_build.__main__ import main

SUITE = TREE / "kernels/test"
PORTABLE_SUITE = TREE / "kernels/portable/test"
PORTABLE = "portable/"  # the name prefix of PORTABLE_SUITE's files
# The cases each file runs, as kernels/README.md's operator table shows them (scripts/gen_kernels_table.py).
RECORD = REPO / "tests/data/kernel_suite_cases.json"
OUR_YAML = REPO / "kernels/portable/functions.yaml"
PORTABLE_YAMLS = (TREE / "kernels/portable/functions.yaml", TREE / "kernels/portable/custom_ops.yaml")
OUR_FEATURES = REPO / "kernels/portable/test/supported_features_def.yaml"
PORTABLE_FEATURES = TREE / "kernels/portable/test/supported_features_def.yaml"
# The two libraries, as targets of the checkout workspace, and where their archives land.
LIBRARIES = {
    "ours": ("//kernels/portable:kernels", REPO / "etsb-out/bin/kernels/portable/libkernels.a"),
    "portable": ("@executorch//kernels/portable:kernels",
                 REPO / "etsb-out/bin/external/executorch/kernels/portable/libkernels.a"),
}
# Sources some test files share: linked into a file's binary when it includes the header.
SHARED_TEST_SOURCES = ("BinaryLogicalOpTest", "UnaryUfuncRealHBBF16ToFloatHBF16Test")
HELPER = re.compile(r"^// (?P<operator>[\w:.]+)\ninline .*? (?P<name>\w+)\(", re.M)
# A helper's body: the kernel function it calls, which the portable tests call themselves.
NATIVE = re.compile(r"^// (?P<operator>[\w:.]+)\ninline [^\n]*\n  return ::torch::executor::native::(?P<name>\w+)\(",
                    re.M)
NAMESPACE = re.compile(r"namespace (\w+) \{")
# A call, or a using-declaration (`using torch::executor::native::allclose_out;`).
CALL = re.compile(r"\b(?:torch::executor::)?(\w+)::(\w+)\s*[(;]")
RESULT = re.compile(r"^\[ +(RUN|OK|FAILED|SKIPPED) +\] (\S+\.\S+?)(?: \(\d+ ms\))?$", re.M)
FINISHED = re.compile(r"^\[==========\] \d+ tests? from \d+ test suites? ran\.", re.M)


def helpers(functions_h: str) -> dict[tuple[str, str], set[str]]:
    """(namespace, helper name) -> the operators a generated Functions.h gives that name; and
    ("native", kernel function) -> the operator of each kernel function the helpers call."""
    found: dict[tuple[str, str], set[str]] = {}
    for match in HELPER.finditer(functions_h):
        namespace = NAMESPACE.findall(functions_h[:match.start()])[-1]
        found.setdefault((namespace, match["name"]), set()).add(match["operator"])
    for match in NATIVE.finditer(functions_h):
        found.setdefault(("native", match["name"]), set()).add(match["operator"])
    return found


def suite_files() -> dict[str, Path]:
    """Name -> path of every test file: kernels/test's by file name, then the portable library's own."""
    return {**{path.name: path for path in sorted(SUITE.glob("op_*_test.cpp"))},
            **{PORTABLE + path.name: path for path in sorted(PORTABLE_SUITE.glob("op_*_test.cpp"))}}


def generate_headers(out: Path, *yamls: Path) -> str:
    """Functions.h (and its siblings) for ``yamls`` into ``out``; the Functions.h text."""
    argv = ["gen-bindings", "--output-dir", str(out), "--functions-yaml-path", str(yamls[0])]
    if len(yamls) > 1:
        argv += ["--custom-ops-yaml-path", str(yamls[1])]
    assert main(argv) == 0
    return (out / "Functions.h").read_text()


@dataclass(frozen=True)
class Selection:
    """The suite's files split by whether our library provides what they call."""
    runs: tuple[str, ...]
    not_provided: dict[str, tuple[str, ...]]  # file -> the operators it calls that we lack
    operators: dict[str, tuple[str, ...]]  # file that runs -> the operators it calls


def select_files(ours: dict, portable: dict) -> Selection:
    """Files whose every called helper, in every overload portable gives it, is ours."""
    ours_operators = {operator for operators in ours.values() for operator in operators}
    runs, missing, operators = [], {}, {}
    for name, path in suite_files().items():
        # Only the portable library's own tests call kernel functions (kernels/test's one
        # such file is ATen mode's, whose functions take no context).
        called = {key for key in CALL.findall(path.read_text())
                  if key in portable and (key[0] != "native" or name.startswith(PORTABLE))}
        needed = {operator for key in called for operator in portable[key]}
        lacking = tuple(sorted(needed - ours_operators))
        if not called or lacking:
            missing[name] = lacking or ("(calls no operator of portable's yaml)",)
        else:
            runs.append(name)
            operators[name] = tuple(sorted(needed))
    return Selection(tuple(runs), missing, operators)


@dataclass(frozen=True)
class FileResult:
    """One test file's cases on one library: name -> pass, fail, crash or skip; or why it did not build."""
    cases: dict[str, str]
    build_error: str = ""


def parse(output: str) -> tuple[dict[str, str], str | None]:
    """Cases gtest reported in ``output``, and the case running when it stopped, if it did not finish."""
    cases, running = {}, None
    for kind, name in RESULT.findall(output):
        if kind == "RUN":
            running = name
        else:
            cases[name] = {"OK": "pass", "FAILED": "fail", "SKIPPED": "skip"}[kind]
            running = None
    return cases, (None if FINISHED.search(output) else running or "(before the first case)")


def run_file(binary: Path) -> FileResult:
    """Every case of one test binary; after a crash, again without the cases already done."""
    cases: dict[str, str] = {}
    for _ in range(200):
        done = ":".join(sorted(cases))
        result = subprocess.run([str(binary), f"--gtest_filter=-{done}" if done else "--gtest_filter=*"],
                                capture_output=True, text=True, timeout=300, errors="replace")
        found, crashed = parse(result.stdout)
        cases.update(found)
        if crashed is None:
            return FileResult(cases)
        cases[crashed] = "crash"
    return FileResult(cases, "more than 200 crashes")


# -fpch-instantiate-templates: the templates the precompiled header uses (gtest's,
# TensorFactory's) are instantiated once in it, not again in each file (measured:
# 171 files built and run on both libraries in 182 CPU-s without it, 132 with it).
NINJA = """\
flags = {flags}
rule pch
  command = clang++ $flags -fpch-instantiate-templates -x c++-header $in -o $out
rule cxx
  command = clang++ $flags -include-pch pch.h.pch -c $in -o $out
rule cxx_plain
  command = clang++ $flags -c $in -o $out
rule link
  command = clang++ {linker}$in $libs -o $out
build pch.h.pch: pch pch.h
"""
# The test binaries are linked by gold where the toolchain has it (binutils' ld.gold): half
# ld.bfd's CPU time on these gtest binaries (measured: 174 links 20.3 CPU-s with ld.bfd, 10.7
# with gold; two libraries link each file). What they run is the same; else the default linker.
LINKER = "-fuse-ld=gold " if shutil.which("ld.gold") else ""

PCH = """\
#include <gtest/gtest.h>
#include <gmock/gmock.h>
#include <executorch/kernels/test/FunctionHeaderWrapper.h>
#include <executorch/kernels/test/TestUtil.h>
#include <executorch/kernels/test/supported_features.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_factory.h>
#include <executorch/runtime/core/exec_aten/testing_util/tensor_util.h>
"""


def write_build(out: Path, files: tuple[str, ...], libraries: tuple[str, ...]) -> list[Path]:
    """build.ninja in ``out`` for ``files`` on ``libraries``; the binaries it makes
    (``out/<library>/<file's name without .cpp>``)."""
    flags = ["-std=c++17", "-O0", "-w", "-DET_EVENT_TRACER_ENABLED", f"-I{out / 'include'}", *ET_INCLUDES,
             f"-I{out / 'tree'}"]
    lines = [NINJA.format(flags=" ".join(flags), linker=LINKER)]
    support = {"tensor_util": TREE / "runtime/core/exec_aten/testing_util/tensor_util.cpp",
               **{name: SUITE / f"{name}.cpp" for name in SHARED_TEST_SOURCES}}
    for name, source in support.items():
        lines.append(f"build {name}.o: cxx_plain {source}")
    for library in libraries:
        lines.append(f"build {library}_features.o: cxx_plain {library}_features.cpp")
    binaries = []
    paths = suite_files()
    for name in files:
        stem = name.removesuffix(".cpp")
        text = paths[name].read_text()
        lines.append(f"build {stem}.o: cxx {paths[name]} || pch.h.pch")
        shared = [f"{s}.o" for s in SHARED_TEST_SOURCES if f"{s}.h" in text]
        for library in libraries:
            archive = LIBRARIES[library][1]
            objects = " ".join([f"{stem}.o", "tensor_util.o", f"{library}_features.o", *shared])
            libs = " ".join([str(archive), "-lgmock", "-lgtest_main", "-lgtest", "-pthread", *ET_LINK])
            lines.append(f"build {library}/{stem}: link {objects} | {archive}\n  libs = {libs}")
            binaries.append(out / library / stem)
    (out / "build.ninja").write_text("\n".join(lines) + "\n")
    return binaries


def prepare(out: Path) -> Selection:
    """Headers, supported features and the precompiled header's source in ``out``; the files that run."""
    include = out / "include/executorch/kernels"
    ours = helpers(generate_headers(include / "etsb", OUR_YAML))
    portable = helpers(generate_headers(out / "portable_headers", *PORTABLE_YAMLS))
    (include / "test").mkdir(parents=True)
    (include / "test/FunctionHeaderWrapper.h").write_text("#include <executorch/kernels/etsb/Functions.h>\n")
    # The portable library's own tests include its generated headers: here, ours.
    (include / "portable").mkdir()
    for header in ("Functions.h", "NativeFunctions.h"):
        (include / "portable" / header).write_text("#include <executorch/kernels/etsb/Functions.h>\n")
    features = [sys.executable, str(SUITE / "gen_supported_features.py")]
    (include / "test/supported_features.h").write_text(
        subprocess.run([*features, str(SUITE / "supported_features.yaml")], check=True, capture_output=True,
                       text=True).stdout)
    for library, definitions in (("ours", OUR_FEATURES), ("portable", PORTABLE_FEATURES)):
        (out / f"{library}_features.cpp").write_text(
            subprocess.run([*features, str(definitions)], check=True, capture_output=True, text=True).stdout)
    (out / "tree").mkdir()
    (out / "tree/executorch").symlink_to(TREE)
    (out / "pch.h").write_text(PCH)
    return select_files(ours, portable)


def build_libraries(libraries: tuple[str, ...]) -> None:
    """The libraries' archives in the checkout workspace (nothing to do if other tests built them)."""
    result = etsb("build", *(LIBRARIES[library][0] for library in libraries))
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]


def run_suite(out: Path, libraries: tuple[str, ...] = tuple(LIBRARIES), only: tuple[str, ...] = ()
              ) -> tuple[Selection, dict[str, dict[str, FileResult]]]:
    """Build and run the chosen files (those of ``only``, if given) on ``libraries``: library -> file -> result."""
    selection = prepare(out)
    build_libraries(libraries)
    files = tuple(name for name in selection.runs if not only or name in only)
    binaries = write_build(out, files, libraries)
    # -k 0: a file that fails to build is reported as such, the others still run.
    build = subprocess.run(["ninja", "-k", "0", "-j2"], cwd=out, capture_output=True, text=True)
    results: dict[str, dict[str, FileResult]] = {library: {} for library in libraries}

    def one(binary: Path) -> FileResult:
        if not binary.exists():
            errors = re.findall(rf"FAILED: (?:\S+/)?{binary.name}\b.*?(?=\n\[|\Z)", build.stdout, re.S)
            return FileResult({}, (errors[0] if errors else build.stdout[-2000:])[:2000] or "not built")
        return run_file(binary)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for binary, result in zip(binaries, pool.map(one, binaries)):
            library, name = binary.relative_to(out).parts[0], binary.relative_to(out).parts[1:]
            results[library]["/".join(name) + ".cpp"] = result
    return selection, results


def summary(results: dict[str, FileResult]) -> dict[str, int]:
    """Counts of cases by outcome, and files that did not build."""
    counts = {"pass": 0, "fail": 0, "crash": 0, "skip": 0, "unbuilt files": 0}
    for result in results.values():
        counts["unbuilt files"] += bool(result.build_error)
        for outcome in result.cases.values():
            counts[outcome] += 1
    return counts


def report(selection: Selection, results: dict[str, dict[str, FileResult]]) -> str:
    """Cases that did not pass, by library and file, and the counts side by side."""
    lines = []
    for library, files in results.items():
        for name, result in sorted(files.items()):
            if result.build_error:
                lines.append(f"{library} {name}: did not build: {result.build_error.splitlines()[0]}")
            lines += [f"{library} {name} {case}: {outcome}" for case, outcome in sorted(result.cases.items())
                      if outcome in ("fail", "crash")]
    return "\n".join(lines + figures(selection, results))


def figures(selection: Selection, results: dict[str, dict[str, FileResult]]) -> list[str]:
    """The files run and not provided, then each library's counts, one line each, side by side."""
    return [f"{len(selection.runs)} files run, {len(selection.not_provided)} not provided by our yaml",
            *(f"  {library:9} " + ", ".join(f"{count} {kind}" for kind, count in summary(files).items())
              for library, files in results.items())]


def record(selection: Selection, results: dict[str, dict[str, FileResult]]) -> dict:
    """What kernels/README.md's table shows of a run: per file that runs, its operators and
    the cases it runs (skipped ones aside); the files not provided with what they lack; and
    the cases ExecuTorch's portable kernels pass, the control."""
    return {"control_passed": summary(results["portable"])["pass"],
            "files": {name: {"operators": list(selection.operators[name]),
                             "cases": sum(outcome != "skip" for outcome in results["ours"][name].cases.values())}
                      for name in selection.runs},
            "not_provided": {name: list(lacking) for name, lacking in selection.not_provided.items()}}


def write_record(data: dict) -> None:
    """RECORD rewritten whole (a temporary file renamed over it)."""
    temporary = RECORD.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    temporary.replace(RECORD)


def cli(argv: list[str]) -> int:
    """Run the suite by hand: `python tests/kernel_suite.py [--ours-only] [FILE...]` (e.g. op_add_test.cpp)."""
    import argparse
    import tempfile
    parser = argparse.ArgumentParser(description=cli.__doc__)
    parser.add_argument("--ours-only", action="store_true", help="skip the portable control")
    parser.add_argument("--keep", type=Path, help="build here and keep it (default: a temporary directory)")
    parser.add_argument("--record", action="store_true",
                        help=f"write the run's cases per file to {RECORD.relative_to(REPO)} (all files, both libraries)")
    parser.add_argument("files", nargs="*", help="test files to run (default: every one our yaml provides)")
    args = parser.parse_args(argv)
    libraries = ("ours",) if args.ours_only else tuple(LIBRARIES)
    with tempfile.TemporaryDirectory() as temporary:
        out = args.keep or Path(temporary)
        out.mkdir(parents=True, exist_ok=True)
        selection, results = run_suite(out, libraries, tuple(args.files))
    print(report(selection, results))
    if args.record and not args.files and not args.ours_only:
        write_record(record(selection, results))
    return 0 if all(summary(files)["fail"] + summary(files)["crash"] + summary(files)["unbuilt files"] == 0
                    for files in results.values()) else 1


if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
