"""The function-schema parser: every ATen schema, every type form, and syntax
errors with their columns. One parser: the whole-argument shortcut it takes
for the common shape reads exactly what its step-by-step productions read."""

from __future__ import annotations

import re
import sys

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from conftest import REPO
from selective_build.model.names import OperatorName, SchemaSyntaxError, parse_operator_name
from selective_build.model import schema_parser as schema_module
from selective_build.model.schema import BaseType, ListType, OptionalType
from selective_build.model.schema_parser import parse_schema

ATEN_OPS = REPO / "tools" / "selective_build" / "data" / "aten_ops.yaml"


def aten_schema_texts() -> list[str]:
    return [line[len("- func: "):] for line in ATEN_OPS.read_text().splitlines() if line.startswith("- func: ")]


def test_every_aten_schema_parses_and_round_trips(monkeypatch):
    texts = aten_schema_texts()
    assert len(texts) > 1400
    parsed = [parse_schema(text) for text in texts]
    for text, schema in zip(texts, parsed):
        assert str(schema) == text
    with monkeypatch.context() as patch:
        patch.setattr(schema_module, "_common", lambda text, pos: None)
        schema_module._signature.cache_clear()
        assert [parse_schema(text) for text in texts] == parsed
    schema_module._signature.cache_clear()


def test_full_native_functions_parse(export_python):
    native = next(export_python.parent.parent.glob(
        "lib/python3*/site-packages/torchgen/packaged/ATen/native/native_functions.yaml"))
    funcs = [entry["func"] for entry in yaml.load(native.read_text(), Loader=yaml.CSafeLoader)]
    assert len(funcs) > 2000
    for text in funcs:
        schema = parse_schema(text)
        assert parse_schema(str(schema)) == schema, text


def test_type_forms():
    schema = parse_schema(
        "ns::op.over(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, int e, int[2] f, SymInt g, "
        "SymInt[] h, float i, bool j, str k, Scalar l, ScalarType m, MemoryFormat? n, Device? o, "
        "Layout? p, int[]? q, int? r=None, float s=1e-05, str t=\"mean\", int[2] u=[1, 1], "
        "*, bool v=False, Tensor(a!) out) -> Tensor(a!)")
    types = {arg.name: arg.type for arg in schema.arguments}
    assert types["b"] == OptionalType(BaseType("Tensor"))
    assert types["c"] == ListType(BaseType("Tensor"))
    assert types["d"] == ListType(OptionalType(BaseType("Tensor")))
    assert types["f"] == ListType(BaseType("int"), 2)
    assert types["q"] == OptionalType(ListType(BaseType("int")))
    defaults = {arg.name: arg.default for arg in schema.arguments}
    assert defaults["r"] == "None" and defaults["s"] == "1e-05" and defaults["t"] == '"mean"'
    assert defaults["u"] == "[1, 1]"
    assert [a.name for a in schema.arguments if a.kwarg_only] == ["v", "out"]
    assert [a.name for a in schema.out_arguments] == ["out"]
    assert str(schema.name) == "ns::op.over" and schema.name.base_name == "op"
    assert schema.returns[0].annotation.alias_sets == ("a",) and schema.returns[0].annotation.is_write


def test_returns_forms():
    assert parse_schema("f.out(Tensor x, *, Tensor(a!)[] out) -> ()").returns == ()
    multi = parse_schema("f.out(Tensor x, *, Tensor(a!) v, Tensor(b!) i) -> (Tensor(a!) values, Tensor(b!) indices)")
    assert [r.name for r in multi.returns] == ["values", "indices"]
    assert parse_schema("f(Tensor x) -> Tensor y").returns[0].name == "y"


def test_operator_names():
    assert parse_operator_name("add.out") == OperatorName("aten", "add", "out")
    assert str(parse_operator_name("quantized_decomposed::add.out")) == "quantized_decomposed::add.out"
    assert parse_operator_name("copy_").base_name == "copy"
    for bad in ("add.", "9add.out", "a-b::add", "add.o-ut"):
        with pytest.raises(SchemaSyntaxError):
            parse_operator_name(bad)


@pytest.mark.parametrize("text, message, column", [
    ("add.out(Tensor self -> Tensor", "expected ',' or ')' after an argument, found '-'", 21),
    ("add.out(Tensor self) Tensor", "expected '->' but found 'Tensor'", 22),
    ("add.out(Tensr self) -> Tensor", "unknown type 'Tensr'", 9),
    ("add.out(Tensor self, Tensor self) -> Tensor", "duplicate argument name 'self'", 22),
    ("add.out(Tensor self, *, *, Tensor(a!) out) -> Tensor(a!)", "a second '*' in the arguments", 25),
    ("add.out(Tensor self, int x=) -> Tensor", "missing default value after '='", 28),
    ("add.out(Tensor self, str x=\"oops) -> Tensor", "unterminated string in a default value", 28),
    ("add.out(Tensor(a! self) -> Tensor", "bad alias annotation", 16),
    ("add.out(int[x] self) -> Tensor", "list size must be a number, not 'x'", 13),
    ("add.out(Tensor self) -> Tensor extra junk", "unexpected text after the returns: 'junk'", 38),
    ("add.out Tensor self", "expected '(' after the operator name", 20),
    ("add.(Tensor self) -> Tensor", "empty overload name after '.'", 5),
    ("add.out(Tensor self) -> (Tensor, Tensor", "expected ',' or ')' in the returns, found 'end of schema'", 40),
])
def test_syntax_errors_have_columns(text, message, column):
    with pytest.raises(SchemaSyntaxError) as info:
        parse_schema(text)
    assert info.value.message.startswith(message)
    assert info.value.column == column


_names = st.sampled_from(["self", "other", "x", "dim", "alpha"])
_types = st.sampled_from(["Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int", "int[2]", "int[]?", "SymInt[]",
                          "float", "float?", "bool", "str", "Scalar", "ScalarType?", "MemoryFormat?"])


@given(st.lists(st.tuples(_types, _names), max_size=5, unique_by=lambda t: t[1]), st.booleans())
def test_generated_schemas_parse_and_round_trip(args, with_out):
    parts = [f"{t} {n}" for t, n in args]
    if with_out:
        parts += ["*", "Tensor(a!) out"]
    text = f"custom::gen.out({', '.join(parts)}) -> {'Tensor(a!)' if with_out else '()'}"
    schema = parse_schema(text)
    assert str(schema) == text
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema_module, "_common", lambda text, pos: None)
        schema_module._signature.cache_clear()
        assert parse_schema(text) == schema
    schema_module._signature.cache_clear()


@given(st.text(alphabet="abT(),*-> ![]?=0123456789:.", max_size=40))
def test_garbage_never_crashes(text):
    """Any text either parses (and round-trips) or raises SchemaSyntaxError with a column inside it."""
    try:
        schema = parse_schema(text)
    except SchemaSyntaxError as error:
        assert 1 <= error.column <= len(text) + 1
    else:
        assert parse_schema(str(schema)) == schema


# The grammar's pieces are scanned by hand (no ``re`` at start-up): each agrees
# with the regular expression it stands for, at every position of any text.
_PIECES = {"word": re.compile(r"\w*"), "spaces": re.compile(r" *"), "suffixes": re.compile(r"(?:\?|\[\d*\])*")}
_REGEX_ARGUMENT = schema_module._regex_common_argument()  # what the parser uses after REGEX_AFTER signatures


@settings(max_examples=400)
@given(st.text(alphabet="aZ_9é١ߊ²αß (),[]?!*=|->'\"0123456789\t", max_size=30), st.data())
def test_scanners_agree_with_the_regular_expressions(text, data):
    pos = data.draw(st.integers(0, len(text)))
    assert schema_module._word_end(text, pos) == _PIECES["word"].match(text, pos).end()
    assert schema_module._spaces_end(text, pos) == _PIECES["spaces"].match(text, pos).end()
    assert schema_module._suffixes_end(text, pos) == _PIECES["suffixes"].match(text, pos).end()
    assert schema_module._common_argument(text, pos) == _REGEX_ARGUMENT(text, pos)


@pytest.mark.parametrize("text, matched", [("Tensor(a!) self, ", True), ("  int[2]? x = [1, 2] )", True),
                                           ("Scalar alpha=1,", True), ("Tensor a", False), ("int x=[1, a])", False),
                                           ("Tensor(a b, ", False), ("float y= -1.5 ,", True),
                                           ("Tensor\u00e9 s\u0661x)", True)])
def test_common_arguments_agree_with_the_regular_expression(text, matched):
    found = schema_module._common_argument(text, 0)
    assert found == _REGEX_ARGUMENT(text, 0) and (found is not None) == matched


def test_the_regular_expression_takes_over_after_so_many_signatures(monkeypatch):
    """Reading many signatures, the parser switches to the regular expression and reads the same."""
    monkeypatch.delitem(sys.modules, "re")  # (this process imported it: the parser would take it at once)
    monkeypatch.setattr(schema_module, "REGEX_AFTER", 3)
    monkeypatch.setattr(schema_module, "_parsed", 0)
    monkeypatch.setattr(schema_module, "_common", schema_module._common_argument)
    schema_module._signature.cache_clear()
    texts = aten_schema_texts()[:50]
    parsed = [parse_schema(text) for text in texts[:2]]
    assert schema_module._common is schema_module._common_argument
    parsed += [parse_schema(text) for text in texts[2:]]
    assert schema_module._common is not schema_module._common_argument
    monkeypatch.setattr(schema_module, "_common", schema_module._common_argument)
    monkeypatch.setattr(schema_module, "REGEX_AFTER", 10**9)
    monkeypatch.delitem(sys.modules, "re", raising=False)  # (imported again by the switch)
    schema_module._signature.cache_clear()
    assert [parse_schema(text) for text in texts] == parsed
    assert schema_module._common is schema_module._common_argument
    schema_module._signature.cache_clear()
