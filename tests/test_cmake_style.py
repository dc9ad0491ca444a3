"""The shape of etsb's CMake code, checked without running CMake: no function
or macro of rules/*.cmake and rules/private/*.cmake grown past a screen (the
cap tests/test_architecture.py puts on Python, Go and C++ functions)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

CAP = 60
START = re.compile(r"^\s*(function|macro)\s*\(\s*([A-Za-z0-9_]+)", re.IGNORECASE)
END = re.compile(r"^\s*end(function|macro)\s*\(", re.IGNORECASE)


def cmake_files() -> list[Path]:
    """etsb's CMake code: the rules and their private helpers."""
    return sorted((REPO / "rules").glob("*.cmake")) + sorted((REPO / "rules" / "private").glob("*.cmake"))


def definitions(text: str) -> list[tuple[str, int, int]]:
    """(name, first line, length in lines, function(...) to endfunction() inclusive) of every function and macro."""
    found, start = [], None
    for number, line in enumerate(text.splitlines(), 1):
        match = START.match(line)
        if match:
            assert start is None, f"line {number}: {match.group(2)} is defined inside {start[0]}"
            start = (match.group(2), number)
        elif END.match(line):
            assert start is not None, f"line {number}: an end without a start"
            found.append((start[0], start[1], number - start[1] + 1))
            start = None
    assert start is None, f"{start[0]} (line {start[1]}) has no end"
    return found


def test_cmake_functions_and_macros_fit_on_a_screen():
    long = [f"{path.relative_to(REPO)}:{line} {name} ({length} lines)"
            for path in cmake_files() for name, line, length in definitions(path.read_text()) if length > CAP]
    assert not long, "\n".join(long)


def test_the_count_sees_every_rule_and_counts_whole_definitions():
    names = {name for path in cmake_files() for name, _, _ in definitions(path.read_text())}
    assert {"et_operator_library", "executorch_generated_lib", "et_model_binary", "gen_operators_lib",
            "_etsb_check_values"} <= names
    body = "\n".join(["  message(STATUS x)"] * (CAP - 1))
    assert definitions(f"function(f a)\n{body}\nendfunction()\n") == [("f", 1, CAP + 1)]
    assert definitions("# c\nMacro (m)\nendmacro()\n") == [("m", 2, 2)]
