"""etsb's portable kernels (kernels/portable/cpu) called directly from C++:
tests/kernels/kernel_checks*.cpp (main, and one file per operator family, linked
into one program) check values (broadcasting and resizing included) and that
every operator reports bad shapes, dtypes and dims through the context instead
of crashing. The declarations they call come from
NativeFunctions.h generated from kernels/portable/functions.yaml, and the
generated registration for every operator is linked in, so the yaml, the
generated wrappers and the kernel definitions are proven to agree."""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO
from selective_build.__main__ import main

from helpers import ET, compile_objects, cxx, etsb

pytestmark = pytest.mark.build
CXX = cxx("-O2")
KERNELS = REPO / "kernels" / "portable"
KERNEL_SOURCES = sorted((KERNELS / "cpu").glob("op_*.cpp"))
SOURCES = [*KERNEL_SOURCES, *sorted((KERNELS / "cpu/util").glob("*.cpp"))]
ARCHIVE = REPO / "etsb-out/bin/kernels/portable/libkernels.a"
CHECKS = sorted((REPO / "tests" / "kernels").glob("kernel_checks*.cpp"))  # linked into one program


@pytest.fixture(scope="module")
def checks_binary(tmp_path_factory) -> Path:
    """The checks linked with the kernels as users get them: the checkout
    workspace's //kernels/portable:kernels archive (shared with the examples and
    ExecuTorch's kernel test suite), and the registration of every operator."""
    out = tmp_path_factory.mktemp("kernel_checks")
    assert main(["validate-yaml", str(KERNELS / "functions.yaml")]) == 0
    assert main(["gen-bindings", "--functions-yaml-path", str(KERNELS / "functions.yaml"), "--output-dir", str(out),
                 "--lib-name", "portable", "--manual-registration"]) == 0
    built = etsb("build", "//kernels/portable:kernels")
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    jobs = [([f"-I{out}"], out / "register_kernels.cpp", out / "register_kernels.o"),
            *(([f"-I{out}"], source, out / f"{source.stem}.o") for source in CHECKS)]
    compile_objects(jobs, "-O2")
    binary = out / "kernel_checks"
    # Registration references every kernel: the whole archive is pulled in, once.
    link = subprocess.run(["g++", *[str(obj) for _, _, obj in jobs], str(ARCHIVE), f"-L{ET / 'lib'}",
                           "-lexecutorch", f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)],
                          capture_output=True, text=True)
    assert link.returncode == 0, link.stderr  # e.g. a kernel the yaml declares and no source defines
    return binary


def test_our_kernel_sources_are_warning_free(tmp_path):
    """-Wall -Wextra, as errors, on every source of ours (the front end's warnings:
    the objects themselves are the driver's). The runtime's kernel header, which
    every source includes (through util/kernel_util.h), is parsed once into a
    precompiled header built with the same flags (a warning in it fails here):
    the test takes a third of the CPU time (measured: 69 CPU-s parsing it
    again in each source, 25 with it precompiled)."""
    warnings = [*CXX, "-Wall", "-Wextra", "-Werror"]
    header = tmp_path / "kernel_includes.h"
    header.write_text("#include <executorch/runtime/kernel/kernel_includes.h>\n")
    built = subprocess.run([*warnings, "-x", "c++-header", str(header), "-o", f"{header}.gch"],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr

    def check(source: Path) -> subprocess.CompletedProcess:
        # -Winvalid-pch: a precompiled header g++ could not use is an error, never a silent slow path.
        return subprocess.run([*warnings, "-Winvalid-pch", "-include", str(header), "-fsyntax-only", str(source)],
                              capture_output=True, text=True)
    with ThreadPoolExecutor(max_workers=2) as pool:
        for source, result in zip(SOURCES, pool.map(check, SOURCES)):
            assert result.returncode == 0, f"{source}:\n{result.stderr}"


def test_every_kernel_source_implements_a_declared_kernel():
    """Each op_<name>.cpp defines a kernel the yaml names (the link in
    checks_binary proves the converse: every declared kernel is defined)."""
    names = [line.split("kernel_name:")[1].strip().rsplit("::", 1)[1]
             for line in (KERNELS / "functions.yaml").read_text().splitlines() if "kernel_name:" in line]
    assert len(names) == len(set(names))
    for source in KERNEL_SOURCES:
        text = source.read_text()
        assert any(re.search(rf"\b{name}\(\s*KernelRuntimeContext& ctx", text) for name in names), source


def test_kernel_checks_pass(checks_binary):
    result = subprocess.run([str(checks_binary)], capture_output=True, text=True, timeout=60)
    failed = [line for line in result.stdout.splitlines() if line.startswith("FAILED")]
    assert result.returncode == 0, "\n".join(failed) or result.stdout + result.stderr
    summary = result.stdout.splitlines()[-1]
    checks, _, rest = summary.partition(" checks, ")
    assert rest == "0 failed" and int(checks) >= 140, summary
    # Every expected failure went through the context and was logged, never an abort.
    assert "Check failed" in result.stderr
