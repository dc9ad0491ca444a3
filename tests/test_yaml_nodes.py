"""yaml_nodes builds the same document as PyYAML's safe loader, with positions."""

from __future__ import annotations

from pathlib import Path

import datetime

import pytest
import yaml
from hypothesis import given, settings, strategies as st

from selective_build.model.errors import Location, UserError
from selective_build.readers.yaml_nodes import (BOOL, FLOAT, INT, MAPPING, NULL, SCALAR, SEQUENCE, STR, compose, end_line,
                                        int_of, location, str_of, tag_of)

ET_ROOT = Path(__import__("executorch").__path__[0])
TYPES = {NULL: type(None), BOOL: bool, INT: int, FLOAT: float, STR: str, "timestamp": datetime.date}


def same(node, value) -> bool:
    """The node tree and PyYAML's value agree in shape, types and strings."""
    if node.id == SCALAR:
        tag = tag_of(node)
        if not isinstance(value, TYPES[tag]) or (tag == INT and isinstance(value, bool)):
            return False
        return tag != STR or node.value == value
    if node.id == SEQUENCE:
        return isinstance(value, list) and len(node.value) == len(value) and all(
            same(n, v) for n, v in zip(node.value, value))
    return isinstance(value, dict) and len(node.value) == len(value) and all(
        k.id == SCALAR and k.value in value and same(v, value[k.value]) for k, v in node.value)


@pytest.mark.parametrize("relative", ["kernels/portable/functions.yaml", "kernels/quantized/quantized.yaml",
                                      "exir/dialects/edge/edge.yaml"])
def test_real_files_match_pyyaml(relative):
    text = (ET_ROOT / relative).read_text()
    assert same(compose(text, relative), yaml.safe_load(text))


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                    st.floats(allow_nan=False, allow_infinity=False, width=32),
                    st.text(max_size=8), st.sampled_from(["yes", "off", "~", "1_000", "0x1f", "1e5", ".5", "-.inf",
                                                           "12:30", "0o7", "017", "null", "True", "+1"]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(min_size=1, max_size=6), inner, max_size=4)), max_leaves=12)


@settings(max_examples=300)
@given(documents, st.booleans())
def test_generated_documents_match_pyyaml(document, flow):
    text = yaml.safe_dump(document, default_flow_style=flow)
    expected = yaml.safe_load(text)
    node = compose(text, "gen.yaml")
    assert same(node, expected), text


@given(st.sampled_from(["yes", "off", "~", "1_000", "0x1f", "1e5", "1.5e+3", ".5", "-.inf", "12:30", "017", "null",
                        "True", "+1", "1.", "0b101", ".nan", "1e", "a1", "1-2", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
                        "2001-12-14 21:59:43.10 -5", "2001-1-14 2:59:43", "2001-12-1", "12001-12-14"]))
def test_plain_scalars_resolve_like_pyyaml(word):
    assert same(compose(f"k: {word}\n", "s.yaml"), yaml.safe_load(f"k: {word}\n"))


def test_merge_and_value_keys_are_not_strings():
    """PyYAML types '<<' and '=' apart from strings (its safe loader refuses '=' as a value)."""
    root = compose("a: <<\nb: =\nc: '='\n", "m.yaml")
    assert [tag_of(value) for _, value in root.value] == ["merge", "value", STR]
    assert [str_of(value) for _, value in root.value] == [None, None, "="]


def test_positions_styles_and_aliases():
    root = compose("a: &x [1, 2]\nb: *x\nc: 'q'\n", "p.yaml")
    assert root.id == MAPPING and location("p.yaml", root) == Location("p.yaml", 1, 1)
    (a, seq), (b, alias), (c, quoted) = root.value
    assert location("p.yaml", seq) == Location("p.yaml", 1, 4) and alias is seq  # libyaml marks the anchor
    assert quoted.style == "'" and tag_of(quoted) == STR and location("p.yaml", quoted) == Location("p.yaml", 3, 4)


def test_end_lines_of_multi_line_scalars():
    root = compose("a: one\n  two\nb: \"x\\\n  y\"\nc: z\n", "m.yaml")
    (_, plain), (_, quoted), (_, single) = root.value
    assert (plain.value, end_line(plain)) == ("one two", 2)
    assert (quoted.value, end_line(quoted)) == ("xy", 4)  # an escaped line break leaves no space
    assert end_line(single) == 5


def test_explicit_tags():
    root = compose("a: !!int '3'\nb: !!str 3\nc: ! 4\nd: !custom 5\ne: !!null ''\n", "t.yaml")
    assert [tag_of(value) for _, value in root.value] == [INT, STR, INT, STR, NULL]


def test_types_are_worked_out_once_and_then_read_as_pyyaml_tags():
    node = compose("k: 12\n", "o.yaml").value[0][1]
    assert tag_of(node) == INT and node.tag == "tag:yaml.org,2002:int"


@pytest.mark.parametrize("text, place, message", [
    ("a: [1, 2\n", (2, 1), "invalid YAML: did not find expected ',' or ']'"),
    ("a: *nope\n", (1, 4), "invalid YAML: found undefined alias 'nope'"),
    ("- 1\n---\n- 2\n", (2, 1), "invalid YAML: but found another document"),
    ("a: &x 1\nb: &x 2\n", (2, 4), "invalid YAML: found duplicate anchor 'x' (first defined at line 1)"),
    ("a: b: c\n", (1, 5), "invalid YAML: mapping values are not allowed in this context"),
])
def test_syntax_errors_are_located(text, place, message):
    with pytest.raises(UserError) as info:
        compose(text, "bad.yaml")
    assert (info.value.location.line, info.value.location.column) == place
    assert info.value.message == message


def test_empty_documents():
    assert compose("", "e.yaml") is None
    assert compose("# only a comment\n", "e.yaml") is None


@pytest.mark.parametrize("word, value", [("0", 0), ("12", 12), ("-7", -7), ("+5", 5), ("017", 15), ("0x1f", 31),
                                         ("0b101", 5), ("1_000", 1000), ("1:30", 90), ("'3'", None), ("1.5", None),
                                         ("0x_", None), ("null", None), ("!!str 4", None), ("!!int '8'", 8)])
def test_int_of_reads_yaml_ints_like_pyyaml(word, value):
    node = compose(f"k: {word}\n", "i.yaml").value[0][1]
    assert int_of(node) == value
    loaded = yaml.safe_load(f"k: {word}\n")["k"] if word != "0x_" else None
    if value is not None:
        assert loaded == value
