"""The runner's large buffers on huge pages and its program loader
(tools/runner/huge_pages.h, program_loader.h), checked from C++
(tests/runner/memory_checks.cpp); the runner reads every program through
them (tests/test_runtime.py: outputs against torch, and corrupt or truncated
programs refused in one line)."""

from __future__ import annotations

import subprocess

import pytest

from conftest import REPO
from helpers import ET, cxx

pytestmark = pytest.mark.build


def test_large_buffers_are_advised_for_huge_pages_and_the_loader_reads_exactly(tmp_path):
    binary = tmp_path / "memory_checks"
    subprocess.run([*cxx("-O1"), "-Wall", "-Wextra", "-Werror", "-I", str(REPO),
                    str(REPO / "tests/runner/memory_checks.cpp"), f"-L{ET / 'lib'}", "-lexecutorch",
                    f"-Wl,-rpath,{ET / 'lib'}", "-o", str(binary)], check=True)
    result = subprocess.run([str(binary), str(tmp_path / "segment.bin")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and " 0 failed" in result.stdout, result.stdout + result.stderr
