"""The boards' snprintf and vsnprintf (platforms/cortex_m/format.cpp), which
replace newlib-nano's printf core in every board binary, held to glibc's on
the host: the file compiled with its two functions renamed, and
tests/data/board_format/cases.cpp formatting each case with both into buffers
of several sizes (none, one byte, a few, room to spare). The return value is
the whole text's length, the bytes written and the terminating NUL are the
same, and no byte past the buffer is touched: the conversions ExecuTorch's
runtime uses on a board (%s, %d, %u, %zu, PRId64...), every length modifier
at its limits, the flags, widths and precisions, %n, %p, floats where
ExecuTorch's log is on (and, compiled as for a single-precision FPU, their
7 digits against texts given); with the log compiled out (the size configuration), a
float conversion prints its own text and the arguments after it stay in
step. (The board binaries' runs, tests/test_cortex_m.py and test_boards.py,
load their operators by the names it formats.)"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

pytestmark = pytest.mark.build

FORMAT = REPO / "platforms" / "cortex_m" / "format.cpp"
CASES = REPO / "tests" / "data" / "board_format" / "cases.cpp"
RENAMED = ("-Dsnprintf=etsb_snprintf", "-Dvsnprintf=etsb_vsnprintf")


def run_cases(tmp_path: Path, *defines: str, cases_defines: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """format.cpp (with ``defines``) and the cases, compiled on the host and run."""
    obj, binary = tmp_path / "format.o", tmp_path / "cases"
    for command in (["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", *RENAMED, *defines, "-c", str(FORMAT),
                     "-o", str(obj)],
                    ["g++", "-std=c++17", "-O1", "-Wno-format", *cases_defines, str(CASES), str(obj), "-o",
                     str(binary)]):
        compiled = subprocess.run(command, capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr
    return subprocess.run([str(binary)], capture_output=True, text=True, timeout=60)


def test_snprintf_writes_what_glibc_writes_within_the_buffer_and_returns_the_whole_length(tmp_path):
    result = run_cases(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    counts = re.search(r"^(\d+) cases checked, (\d+) differ$", result.stdout, re.M)
    assert counts and int(counts.group(1)) > 250 and int(counts.group(2)) == 0, result.stdout


def test_with_a_single_precision_fpu_floats_have_seven_digits(tmp_path):
    """format.cpp as compiled for the Cortex-M4 and M33 (__ARM_FP without
    double precision): floats converted to float, 7 significant digits."""
    result = run_cases(tmp_path, "-D__ARM_FP=4", cases_defines=("-DETSB_FORMAT_SINGLE",))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(" cases checked, 0 differ\n"), result.stdout


def test_with_the_log_compiled_out_a_float_conversion_prints_its_own_text(tmp_path):
    result = run_cases(tmp_path, "-DET_LOG_ENABLED=0", cases_defines=("-DETSB_FORMAT_EXPECTED_ONLY",))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.endswith(" cases checked, 0 differ\n"), result.stdout
