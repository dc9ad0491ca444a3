"""ExecuTorch's own quantized kernel tests (kernels/quantized/test/op_*_test.cpp
in the tree) on etsb's quantized kernels (kernels/quantized), and, as the
control, on ExecuTorch's (the tree's kernels/quantized through its overlay).

The tests include <executorch/kernels/quantized/NativeFunctions.h> and call
most kernels without a context; tests/kernels/quantized_suite/NativeFunctions.h
stands in for that header (it says how). Every file of the suite runs: ours
provides every operator of ExecuTorch's quantized yaml.
Each file compiles (clang, -O0) twice, with and without the context-less
wrappers, and links with the two libraries' archives of the checkout
workspace; gtest's report is read by tests/kernel_suite.py's parser, a crash
naming its case. tests/kernels/quantized_suite/bad_arguments_test.cpp, ours
alone, calls every kernel with bad arguments: each must fail through its
context and return. A third run links the same tests with our kernel sources
compiled under AddressSanitizer and UndefinedBehaviorSanitizer (any finding
aborts, a crash of its case)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, TREE
from helpers import ET_INCLUDES, ET_LINK, etsb
from kernel_suite import FileResult, run_file, summary
from selective_build.__main__ import main

pytestmark = [pytest.mark.build, pytest.mark.tree]

SUITE = TREE / "kernels/quantized/test"
SHIM = REPO / "tests/kernels/quantized_suite/NativeFunctions.h"
# Ours alone (ExecuTorch's kernels abort on most bad arguments instead): every bad call fails through its context.
BAD_ARGUMENTS = REPO / "tests/kernels/quantized_suite/bad_arguments_test.cpp"
FILES = ("op_quantize_test.cpp", "op_dequantize_test.cpp", "op_choose_qparams_test.cpp", "op_embedding_test.cpp",
         "op_embedding4b_test.cpp", "op_embedding2b_test.cpp", "op_add_test.cpp", "op_mixed_linear_test.cpp",
         "op_mixed_mm_test.cpp")
# Each library: its quantized and portable targets (the tests call aten::embedding.out too), and their archives.
LIBRARIES = {
    "ours": (("//kernels/quantized:kernels", "//kernels/portable:kernels"),
             ("etsb-out/bin/kernels/quantized/libkernels.a", "etsb-out/bin/kernels/portable/libkernels.a")),
    "tree": (("@executorch//kernels/quantized:kernels", "@executorch//kernels/portable:kernels"),
             ("etsb-out/bin/external/executorch/kernels/quantized/libkernels.a",
              "etsb-out/bin/external/executorch/kernels/portable/libkernels.a")),
}

SANITIZE = "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
KERNEL_SOURCES = sorted((REPO / "kernels/quantized/cpu").glob("op_*.cpp"))

NINJA = """\
rule cxx
  command = clang++ $flags -c $in -o $out
rule link
  command = clang++ $in $libs -o $out
"""


def headers(out: Path) -> Path:
    """The include directory: the shim as the quantized NativeFunctions.h, with the
    declarations generated from our quantized yaml beside it, and the portable
    NativeFunctions.h generated from our portable yaml."""
    generated = out / "generated"
    assert main(["gen-bindings", "--functions-yaml-path", str(REPO / "kernels/portable/functions.yaml"),
                 "--custom-ops-yaml-path", str(REPO / "kernels/quantized/quantized.yaml"),
                 "--output-dir", str(generated), "--manual-registration"]) == 0
    include = out / "include"
    quantized = include / "executorch/kernels/quantized"
    portable = include / "executorch/kernels/portable"
    quantized.mkdir(parents=True)
    portable.mkdir(parents=True)
    shutil.copy(SHIM, quantized / "NativeFunctions.h")
    shutil.copy(generated / "CustomOpsNativeFunctions.h", quantized)
    shutil.copy(generated / "NativeFunctions.h", portable)
    (out / "tree").mkdir()
    (out / "tree/executorch").symlink_to(TREE)
    return include


def write_build(out: Path, include: Path) -> dict[str, list[Path]]:
    """build.ninja for every file on both libraries; library -> its test binaries."""
    flags = ["-std=c++17", "-O0", "-w", "-DET_EVENT_TRACER_ENABLED", f"-I{include}", *ET_INCLUDES,
             f"-I{out / 'tree'}"]
    lines = [f"flags = {' '.join(flags)}", NINJA,
             f"build tensor_util.o: cxx {TREE / 'runtime/core/exec_aten/testing_util/tensor_util.cpp'}"]
    binaries: dict[str, list[Path]] = {}
    sanitized = []
    for source in KERNEL_SOURCES:
        sanitized.append(f"sanitized/{source.stem}.o")
        lines.append(f"build {sanitized[-1]}: cxx {source}\n  flags = $flags -O1 {SANITIZE}")
    portable = REPO / LIBRARIES["ours"][1][1]
    for name in (*FILES, BAD_ARGUMENTS.name):
        stem = name.removesuffix(".cpp")
        libs = " ".join([SANITIZE, str(portable), "-lgmock", "-lgtest_main", "-lgtest", "-pthread", *ET_LINK])
        lines.append(f"build sanitized/{stem}: link ours/{stem}.o tensor_util.o {' '.join(sanitized)} | {portable}"
                     f"\n  libs = {libs}")
        binaries.setdefault("sanitized", []).append(out / "sanitized" / stem)
    for library, (_, archives) in LIBRARIES.items():
        define = " -DETSB_CONTEXTLESS_WRAPPERS" if library == "ours" else ""
        libs = " ".join([*(str(REPO / a) for a in archives), "-lgmock", "-lgtest_main", "-lgtest", "-pthread",
                         *ET_LINK])
        for name in FILES + ((BAD_ARGUMENTS.name,) if library == "ours" else ()):
            stem = f"{library}/{name.removesuffix('.cpp')}"
            source = BAD_ARGUMENTS if name == BAD_ARGUMENTS.name else SUITE / name
            lines.append(f"build {stem}.o: cxx {source}\n  flags = $flags{define}")
            implicit = " ".join(str(REPO / a) for a in archives)
            lines.append(f"build {stem}: link {stem}.o tensor_util.o | {implicit}\n  libs = {libs}")
            binaries.setdefault(library, []).append(out / stem)
    (out / "build.ninja").write_text("\n".join(lines) + "\n")
    return binaries


@pytest.fixture(scope="module")
def results(module_folders) -> dict[str, dict[str, dict[str, str]]]:
    """library -> test file -> case -> pass / fail / crash / skip."""
    out = module_folders("quantized_suite")
    targets = [target for targets, _ in LIBRARIES.values() for target in targets]
    built = etsb("build", "--executorch-root", str(TREE), *targets)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    binaries = write_build(out, headers(out))
    build = subprocess.run(["ninja", "-j2"], cwd=out, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-4000:]
    found: dict[str, dict[str, dict[str, str]]] = {}
    for library, paths in binaries.items():
        for binary in paths:
            result = run_file(binary)
            assert not result.build_error, (library, binary.name, result.build_error)
            found.setdefault(library, {})[binary.name] = result.cases
    return found


def test_every_test_file_of_the_tree_runs():
    assert sorted(p.name for p in SUITE.glob("op_*_test.cpp")) == sorted(FILES)


@pytest.mark.parametrize("name", [f.removesuffix(".cpp") for f in FILES])
def test_every_case_passes_on_our_kernels_as_on_executorchs(results, name):
    ours, tree = results["ours"][name], results["tree"][name]
    assert sorted(ours) == sorted(tree) and ours, name
    failing = {case: outcome for case, outcome in ours.items() if outcome != "pass"}
    assert not failing, failing
    assert all(outcome == "pass" for outcome in tree.values()), tree


@pytest.mark.parametrize("name", [f.removesuffix(".cpp") for f in FILES])
def test_every_case_passes_on_our_kernels_under_asan_and_ubsan(results, name):
    sanitized = results["sanitized"][name]
    assert sorted(sanitized) == sorted(results["ours"][name])
    failing = {case: outcome for case, outcome in sanitized.items() if outcome != "pass"}
    assert not failing, failing


@pytest.mark.parametrize("library", ["ours", "sanitized"])
def test_bad_arguments_fail_through_the_context(results, library):
    cases = results[library]["bad_arguments_test"]
    assert len(cases) >= 7 and all(outcome == "pass" for outcome in cases.values()), cases


def test_the_counts(results):
    """The figures kernels/quantized/README.md quotes."""
    counts = {library: summary({name: FileResult(cases) for name, cases in files.items()
                                if name != "bad_arguments_test"})
              for library, files in results.items()}
    assert counts["ours"]["pass"] == counts["sanitized"]["pass"] == counts["tree"]["pass"] >= 73, counts

