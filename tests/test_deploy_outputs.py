"""`etsb deploy-outputs`: what a deploy binary printed (hexadecimal bytes per
output, tools/runner/deploy.cpp) read back and printed as values, and a
malformed print refused at its line. No build: the text is written here."""

from __future__ import annotations

import struct
import subprocess

from helpers import ETSB, etsb

# Two outputs as the deploy runner prints them: Float [2] (1.0, -2.5), then Long [1] (7).
PRINTED = ("output 0: dtype 6, sizes [2], 8 bytes\n" + struct.pack("<2f", 1.0, -2.5).hex() + "\n"
           "output 1: dtype 4, sizes [1], 8 bytes\n" + struct.pack("<q", 7).hex() + "\n")


def test_the_outputs_are_read_back_exactly():
    from selective_build.readers.deploy_output import read_deploy_output

    first, second = read_deploy_output(PRINTED, "x")
    assert (first.dtype, first.sizes, first.values()) == (6, (2,), (1.0, -2.5))
    assert (second.dtype, second.sizes, second.values()) == (4, (1,), (7,))
    bf16, = read_deploy_output("output 0: dtype 15, sizes [1], 2 bytes\n803f\n", "x")
    assert bf16.values() == (1.0,)
    not_tensor, = read_deploy_output("output 0: not a tensor (tag 4)\n", "x")
    assert not_tensor.dtype == -1 and not_tensor.values() == ()


def test_the_command_prints_values_from_a_file_or_standard_input(tmp_path):
    path = tmp_path / "printed.txt"
    path.write_text(PRINTED)
    result = etsb("deploy-outputs", str(path))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "output 0: Float [2]\n  1 -2.5\noutput 1: Long [1]\n  7\n"
    piped = subprocess.run([str(ETSB), "deploy-outputs"], input=PRINTED, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stdout == result.stdout, piped.stderr


def test_a_malformed_print_is_refused_at_its_line(tmp_path):
    cases = {
        "hello\n": ":1: error: not a line the deploy runner prints: 'hello'",
        "output 1: dtype 6, sizes [1], 4 bytes\n0000803f\n": ":1: error: output 1 where output 0 was due",
        "output 0: dtype 6, sizes [2], 8 bytes\n0000803f\n": ":2: error: output 0: 4 bytes printed, 8 announced",
        "output 0: dtype 6, sizes [1], 4 bytes\nzz00803f\n": ":2: error: output 0: its bytes are not hexadecimal",
    }
    for text, message in cases.items():
        path = tmp_path / "bad.txt"
        path.write_text(text)
        result = etsb("deploy-outputs", str(path))
        assert result.returncode == 2 and f"{path}{message}" in result.stderr, (text, result.stderr)
        assert "Traceback" not in result.stderr
    missing = etsb("deploy-outputs", str(tmp_path / "missing.txt"))
    assert missing.returncode == 2 and "missing.txt" in missing.stderr
    extra = etsb("deploy-outputs", "a", "b")
    assert extra.returncode == 2 and "unexpected argument 'b'" in extra.stderr
