"""The .pte reader: operators and runtime kernel keys for every corpus model,
and a clean error (never a crash or hang) for corrupt files."""

from __future__ import annotations

import mmap
import struct

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import MODELS_DIR, load_manifest
from pte_mutations import with_operator_index, with_unknown_dtype, with_value_index
from selective_build.model.errors import UserError
from selective_build.readers.aten_schemas import load_default_aten_schemas
from selective_build.model.names import parse_operator_name
from selective_build.model.program import needs_no_kernel
from selective_build.readers.pte import flatbuffer_size, read_program
from selective_build.model.schema import base_of

MODELS = load_manifest()["models"]
ATEN = load_default_aten_schemas()


def scalar_type_positions(operator):
    schema = ATEN.lookup(operator.unqualified) if operator.namespace == "aten" else None
    if schema is None:
        return None
    return tuple(i for i, arg in enumerate(schema.arguments) if base_of(arg.type).name == "ScalarType")


def pte_bytes(model: str) -> bytes:
    return (MODELS_DIR / MODELS[model]["pte"]).read_bytes()


@pytest.mark.parametrize("model", sorted(MODELS))
def test_operators_and_keys_match_the_export_manifest(model):
    entry = MODELS[model]
    with open(MODELS_DIR / entry["pte"], "rb") as handle:
        data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        program = read_program(data, entry["pte"], scalar_type_positions)
    assert sorted(m.name for m in program.methods) == sorted(entry["methods"])
    for method in program.methods:
        expected = entry["methods"][method.name]
        assert sorted(map(str, method.operators)) == expected["operators"]
        keys: dict[str, set] = {}
        for call in method.kernel_calls:
            keys.setdefault(str(call.operator), set()).add(call.key.text)
        assert {op: sorted(k) for op, k in keys.items()} == expected["kernel_keys"]
        assert len(method.kernel_calls) == expected["kernel_calls"]
        assert method.delegate_calls == expected["delegate_calls"] == 0
        assert method.runtime_operators == ()


def test_scalar_type_arguments_are_recorded():
    program = read_program(pte_bytes("mixed_dtypes"), "m.pte", scalar_type_positions)
    calls = [c for c in program.methods[0].kernel_calls if str(c.operator) == "aten::sum.IntList_out"]
    assert [c.scalar_type_arguments for c in calls] == [(7,)]  # Double, from dtype=
    assert calls[0].key.text == "v1/6;0,1|7;0|7;0"


def test_only_the_flatbuffer_part_is_read():
    data = pte_bytes("mlp")
    size = flatbuffer_size(data, "mlp.pte")
    assert size < len(data)  # constants live in a segment after it
    # Garbage in the segment area changes nothing.
    assert read_program(data[:size] + b"\xff" * (len(data) - size), "m.pte") == read_program(data, "m.pte")


def test_runtime_prim_operators_need_no_kernel():
    assert needs_no_kernel(parse_operator_name("executorch_prim::add.Scalar"))
    assert needs_no_kernel(parse_operator_name("aten::sym_size.int"))
    assert not needs_no_kernel(parse_operator_name("aten::add.out"))


@pytest.mark.parametrize("make, message", [
    (lambda d: b"", "not a .pte file: 0 bytes, too short for a flatbuffer"),
    (lambda d: d[:6], "not a .pte file: 6 bytes, too short for a flatbuffer"),
    (lambda d: d[:4] + b"XX12" + d[8:], "not a .pte file: file identifier b'XX12', expected b'ET12' at byte 4"),
    (lambda d: bytes(range(256)) * 4, "not a .pte file: file identifier"),
    (lambda d: d[:200], "corrupt .pte extended header: program size"),
    (lambda d: d[:16] + struct.pack("<Q", 10**9) + d[24:], "corrupt .pte extended header: program size 1000000000"),
])
def test_bad_files(make, message):
    with pytest.raises(UserError) as info:
        read_program(make(pte_bytes("mlp")), "bad.pte")
    assert info.value.message.startswith(message), info.value.message
    assert str(info.value.location) == "bad.pte"


def test_operator_index_out_of_range():
    with pytest.raises(UserError) as info:
        read_program(with_operator_index(pte_bytes("mlp"), 7), "bad.pte")
    assert info.value.message == "corrupt .pte: method 'forward': operator index 7 is out of range " \
                                 "(the method has 3 operators)"


def test_value_index_out_of_range():
    with pytest.raises(UserError) as info:
        read_program(with_value_index(pte_bytes("mlp"), 999), "bad.pte")
    assert "value index 999 is out of range" in info.value.message


def test_unknown_dtype_number():
    with pytest.raises(UserError) as info:
        read_program(with_unknown_dtype(pte_bytes("mlp")), "bad.pte")
    assert "has unknown dtype number 99" in info.value.message


REFERENCE = {name: read_program(pte_bytes(name), "fuzz.pte") for name in MODELS}


@settings(max_examples=2000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(sorted(MODELS)), st.data())
def test_mutated_files_give_a_result_or_a_clean_error(model, data):
    """Any mutation of a real .pte gives a well-formed result or a UserError."""
    original = pte_bytes(model)
    size = flatbuffer_size(original, "x")
    mutated = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8), label="mutations")):
        position = data.draw(st.integers(0, size - 1), label="position")
        mutated[position] = data.draw(st.integers(0, 255), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        mutated = mutated[:data.draw(st.integers(0, len(mutated)), label="length")]
    try:
        program = read_program(bytes(mutated), "fuzz.pte")
    except UserError as error:
        assert error.message and str(error.location) == "fuzz.pte"
        return
    for method in program.methods:
        for call in method.kernel_calls:
            assert call.key.text.startswith("v1/") and len(call.key.tensors) >= 0
    if bytes(mutated[:size]) == original[:size]:
        assert program == REFERENCE[model]
