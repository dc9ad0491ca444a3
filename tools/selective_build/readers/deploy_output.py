"""What a deploy binary printed (tools/runner/deploy.cpp): per output a line
``output I: dtype D, sizes [S, ...], N bytes`` (with ``dim order [D, ...], ``
before the count when the tensor is channels-last) and its bytes in
hexadecimal, read back into values (row-major), with a malformed line named
by its number."""

from __future__ import annotations

import re

from selective_build.model.dtypes import SCALAR_TYPE_BYTES, SCALAR_TYPE_NAMES
from selective_build.model.errors import Location, UserError
from selective_build.model.layouts import check_dim_order, from_dim_order
from selective_build.model.program import DeployOutput

_HEAD = re.compile(r"output (\d+): (?:dtype (\d+), sizes \[([\d, ]*)\], (?:dim order \[([\d, ]*)\], )?(\d+) bytes"
                   r"|not a tensor \(tag (\d+)\))")


def read_deploy_output(text: str, path: str) -> tuple[DeployOutput, ...]:
    """The outputs in ``text`` (what a deploy binary printed, read from ``path``)."""
    outputs: list[DeployOutput] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        line = lines[number]
        number += 1
        match = _HEAD.fullmatch(line)
        if not match:
            raise UserError(f"not a line the deploy runner prints: {line[:80]!r}", Location(path, number))
        if int(match.group(1)) != len(outputs):
            raise UserError(f"output {match.group(1)} where output {len(outputs)} was due", Location(path, number))
        if match.group(6) is not None:
            outputs.append(DeployOutput(len(outputs), -1, (), b""))
            continue
        hex_text = ""
        while number < len(lines) and not lines[number].startswith("output "):
            hex_text += lines[number].strip()
            number += 1
        outputs.append(_tensor(match, hex_text, path, number))
    return tuple(outputs)


def _tensor(match: re.Match, hex_text: str, path: str, number: int) -> DeployOutput:
    """A tensor output from its head line's fields and its hexadecimal bytes (ending at line ``number``)."""
    dtype, expected = int(match.group(2)), int(match.group(5))
    sizes = tuple(int(size) for size in match.group(3).split(",") if size.strip())
    dim_order = tuple(int(d) for d in (match.group(4) or "").split(",") if d.strip())
    try:
        data = bytes.fromhex(hex_text)
    except ValueError:
        raise UserError(f"output {match.group(1)}: its bytes are not hexadecimal", Location(path, number)) from None
    count = 1
    for size in sizes:
        count *= size
    if len(data) != expected or (dtype in SCALAR_TYPE_BYTES and count * SCALAR_TYPE_BYTES[dtype] != expected):
        raise UserError(f"output {match.group(1)}: {len(data)} bytes printed, {expected} announced, for sizes "
                        f"{list(sizes)} of dtype {SCALAR_TYPE_NAMES.get(dtype, dtype)}", Location(path, number))
    if dim_order:
        if dtype not in SCALAR_TYPE_BYTES:
            raise UserError(f"output {match.group(1)}: dtype {dtype} has no element size to reorder its bytes by",
                            Location(path, number))
        try:
            check_dim_order(dim_order, sizes, f"output {match.group(1)}")
        except UserError as error:
            raise UserError(str(error), Location(path, number)) from None
        data = from_dim_order(data, sizes, dim_order, SCALAR_TYPE_BYTES[dtype])
    return DeployOutput(int(match.group(1)), dtype, sizes, data)
