"""The selection model, its sources, the selected_operators.yaml reader and writer."""

from __future__ import annotations

import itertools

import pytest
import yaml
from hypothesis import given, strategies as st

from selective_build.emit.selected_operators import render_selected_operators
from selective_build.model.errors import Location, UserError
from selective_build.model.keys import (ANY_KEY, DTYPE_ONLY, EXACT, KernelKey, TensorMeta, dtype_key_named,
                                        parse_kernel_key)
from selective_build.model.names import parse_operator_name
from selective_build.model.selection import SelectedOperator, make_selection, overlaps, union
from selective_build.readers import operator_lists
from selective_build.readers.selected_yaml import parse_selected_operators
from selective_build.stages import sources

N = parse_operator_name
K = parse_kernel_key


def texts(values) -> tuple[str, ...]:
    return tuple(map(str, values))


# -- kernel keys ------------------------------------------------------------------


def test_kernel_keys_parse_and_describe():
    key = parse_kernel_key("v1/6;0,1|4;|6;0,2,3,1")
    assert key == KernelKey("v1/6;0,1|4;|6;0,2,3,1",
                            (TensorMeta(6, (0, 1)), TensorMeta(4, ()), TensorMeta(6, (0, 2, 3, 1))), EXACT)
    assert key.describe() == "Float 2-D contiguous, Long 0-D, Float 4-D channels-last"
    assert parse_kernel_key("v1/7;") == KernelKey("v1/7;", (TensorMeta(7, ()),), DTYPE_ONLY)
    assert parse_kernel_key("v1/7;").dtype_only == 7 and key.dtype_only is None
    assert dtype_key_named("Float") == parse_kernel_key("v1/6;")
    assert parse_kernel_key("default") is ANY_KEY and ANY_KEY.is_any
    assert sorted([K("v1/6;0|6;0"), ANY_KEY, K("v1/4;")]) == [K("default"), K("v1/4;"), K("v1/6;0|6;0")]


@pytest.mark.parametrize("text, message", [
    ("v2/6;0", "does not start with 'v1/'"),
    ("6;0,1", "does not start with 'v1/'"),
    ("v1/6", "has no ';'"),
    ("v1/99;0", "'99' is not a ScalarType number"),
    ("v1/x;0", "'x' is not a ScalarType number"),
    ("v1/6;0,0", "is not a permutation"),
    ("v1/6;0,a", "is not a list of integers"),
])
def test_bad_kernel_keys(text, message):
    with pytest.raises(ValueError, match=message):
        parse_kernel_key(text)


def test_unknown_dtype_name_suggests_the_nearest():
    with pytest.raises(ValueError, match="unknown dtype 'Flaot' \\(did you mean 'Float'\\?\\)"):
        dtype_key_named("Flaot")


# -- sources --------------------------------------------------------------------------


def test_root_ops_are_normalised_and_sorted():
    assert texts(operator_lists.parse_root_ops("mm.out, aten::add.out,,")) == ("aten::add.out", "aten::mm.out")
    assert texts(operator_lists.parse_root_ops("aten::add.out aten::mm.out")) == ("aten::add.out", "aten::mm.out")
    selection = sources.from_root_ops((N("aten::add"), N("aten::mm.out")), include_all_overloads=True)
    assert selection.operators[N("aten::add")].include_all_overloads
    assert not selection.operators[N("aten::mm.out")].include_all_overloads  # it names an overload
    assert selection.keys_for(N("aten::add")) == (ANY_KEY,)
    assert selection.sources_of(N("aten::mm.out")) == ("--root_ops",)


def test_bad_root_op_names_the_flag():
    with pytest.raises(UserError) as info:
        operator_lists.parse_root_ops("aten::add.out,aten::1bad")
    assert str(info.value) == ("--root_ops: error: 'aten::1bad' is not an operator name (bad operator name "
                               "'1bad'); expected namespace::name.overload, e.g. aten::add.out")


def test_ops_dict_dtype_names_keys_and_any():
    parsed = operator_lists.parse_ops_dict('{"add.out": ["Float", "Long", "v1/6;0,1|6;0,1|6;0,1|6;0,1"], '
                                           '"aten::mm.out": []}')
    assert {str(op): texts(keys) for op, keys in parsed.items()} == {
        "aten::add.out": ("v1/4;", "v1/6;", "v1/6;0,1|6;0,1|6;0,1|6;0,1"), "aten::mm.out": ("default",)}
    selection = sources.from_ops_dict(parsed)
    assert selection.keys_for(N("aten::mm.out")) == (ANY_KEY,)
    assert selection.sources_of(N("aten::add.out")) == ("--ops_dict",)


@pytest.mark.parametrize("text, message", [
    ('{"add.out": ["Float"]', "--ops_dict: error: invalid JSON at line 1 column 22: Expecting ',' delimiter"),
    ('["add.out"]', "--ops_dict: error: expected a JSON object of operator -> list of dtypes, got a list"),
    ('{"add.out": "Float"}', "--ops_dict: error: 'add.out': expected a list of dtype names or kernel keys, "
                             "got a string"),
    ('{"add.out": [6]}', "--ops_dict: error: 'add.out': every dtype must be a string"),
    ('{"add.out": ["Flaot"]}', "--ops_dict: error: 'add.out': unknown dtype 'Flaot' (did you mean 'Float'?)"),
    ('{"add.out": ["v1/6;0,0"]}', "--ops_dict: error: 'add.out': kernel key 'v1/6;0,0': dim order '0,0' is "
                                  "not a permutation of 0..1"),
    ('{"add..out": []}', "--ops_dict: error: 'add..out' is not an operator name"),
])
def test_bad_ops_dicts(text, message):
    with pytest.raises(UserError) as info:
        operator_lists.parse_ops_dict(text)
    assert str(info.value).startswith(message), str(info.value)


def test_ops_dict_file_errors_have_line_and_column():
    with pytest.raises(UserError) as info:
        operator_lists.parse_ops_dict('{\n  "add.out": [Float]\n}', Location("ops.json"))
    assert str(info.value) == "ops.json:2:15: error: invalid JSON: Expecting value"


# -- union --------------------------------------------------------------------------


def _op(name, *debug, overloads=False):
    return SelectedOperator(N(name), include_all_overloads=overloads, debug_info=tuple(debug))


def _keys(mapping):
    """Operator names and kernel keys as text -> typed."""
    return {N(op): [K(k) for k in keys] for op, keys in mapping.items()}


def test_union_combines_operators_keys_and_flags():
    a = make_selection([_op("aten::add.out", "a.pte")], _keys({"aten::add.out": ["v1/6;0|6;0|6;0|6;0"]}),
                       {"aten::sum.IntList_out": ["Double"]})
    b = make_selection([_op("aten::add.out", "--root_ops"), _op("aten::mm", "--root_ops", overloads=True)],
                       _keys({"aten::add.out": ["default"], "aten::mm": ["default"]}), include_all_operators=True)
    merged = union([a, b])
    assert merged.operators[N("aten::add.out")].debug_info == ("--root_ops", "a.pte")
    assert merged.operators[N("aten::mm")].include_all_overloads
    assert texts(merged.keys_for(N("aten::add.out"))) == ("default", "v1/6;0|6;0|6;0|6;0")
    assert merged.kernel_metadata == {"aten::sum.IntList_out": ("Double",)}
    assert merged.include_all_operators


names = st.sampled_from(["aten::add.out", "aten::mm.out", "aten::relu.out", "custom::op"])
keys = st.sampled_from(["default", "v1/6;", "v1/6;0|6;0|6;0", "v1/4;0,1|4;0,1|4;0,1"])
selections = st.builds(
    lambda ops, flag: make_selection(
        [_op(name, source, overloads=over) for name, source, over, _ in ops],
        _keys({name: ks for name, _, _, ks in ops}), include_all_operators=flag),
    st.lists(st.tuples(names, st.sampled_from(["a.pte", "b.pte", "--ops_dict"]), st.booleans(),
                       st.lists(keys, max_size=3)), max_size=5),
    st.booleans())


@given(st.lists(selections, min_size=1, max_size=4))
def test_union_ignores_order_and_repetition(parts):
    expected = render_selected_operators(union(parts))
    for order in itertools.islice(itertools.permutations(parts), 6):
        assert render_selected_operators(union(order)) == expected
    assert render_selected_operators(union(parts + parts)) == expected


@given(selections)
def test_written_yaml_reads_back_and_matches_pyyaml_layout(selection):
    text = render_selected_operators(selection)
    assert parse_selected_operators(text, "s.yaml") == selection
    # The same layout as PyYAML's safe_dump (what ExecuTorch's tools write).
    assert yaml.safe_dump(yaml.safe_load(text), default_flow_style=False) == text


def test_overlaps_name_every_origin_in_sorted_order():
    a = make_selection([_op("aten::add.out"), _op("aten::mm.out")])
    b = make_selection([_op("aten::add.out")])
    found = overlaps([("z.yaml", a), ("b.yaml", b)])
    assert [(str(o.operator), o.origins) for o in found] == [("aten::add.out", ("b.yaml", "z.yaml"))]


# -- reading selected_operators.yaml ----------------------------------------------------


def test_executorch_defaults_and_null_debug_info():
    text = ("operators:\n  aten::add.out:\n    debug_info:\n    - null\n  mm.out: {}\n"
            "et_kernel_metadata:\n  aten::add.out:\n  - default\n")
    selection = parse_selected_operators(text, "s.yaml")
    assert selection.operators[N("aten::add.out")].debug_info == ()
    # torchgen's defaults for a bare entry; a bare name gets the aten namespace.
    assert selection.operators[N("aten::mm.out")] == SelectedOperator(N("aten::mm.out"), True, True, True, ())
    assert selection.keys_for(N("aten::mm.out")) == (ANY_KEY,)


@pytest.mark.parametrize("text, message", [
    ("", "s.yaml: error: empty file; expected a selected_operators.yaml mapping"),
    ("- a\n", "s.yaml:1:1: error: the top level must be a mapping, not a list"),
    ("operator: {}\n", "s.yaml:1:1: error: unknown key 'operator' in the top level (did you mean 'operators'?)"),
    ("include_all_operators: maybe\n", "s.yaml:1:24: error: include_all_operators must be true or false, "
                                       "not the string 'maybe'"),
    ("operators:\n  aten::add.out:\n    is_root: true\n",
     "s.yaml:3:5: error: unknown key 'is_root' in the entry of 'aten::add.out'"),
    ("operators:\n  aten::add.out:\n    include_all_overloads: 1\n",
     "s.yaml:3:28: error: include_all_overloads must be true or false, not '1'"),
    ("operators:\n  aten::add.out:\n    name: aten::mm.out\n",
     "s.yaml:3:11: error: 'name: aten::mm.out' differs from the operator it describes, 'aten::add.out'"),
    ("operators:\n  'aten::': {}\n", "s.yaml:2:3: error: 'aten::' is not an operator name"),
    ("et_kernel_metadata:\n  aten::add.out:\n  - v1/6;0,1|99;0\n",
     "s.yaml:3:5: error: kernel key 'v1/6;0,1|99;0': '99' is not a ScalarType number"),
    ("et_kernel_metadata:\n  aten::add.out: v1/6;0\n", "s.yaml:2:18: error: kernel keys must be a list"),
    ("custom_classes: {}\n", "s.yaml:1:17: error: custom_classes must be a list, not a mapping"),
    ("operators:\n  aten::add.out: {}\n  aten::add.out: {}\n",
     "s.yaml:3:3: error: 'aten::add.out' appears twice in 'operators'"),
    ("operators: [\n", "s.yaml:2:1: error: invalid YAML"),
])
def test_bad_selected_operators_yaml(text, message):
    with pytest.raises(UserError) as info:
        parse_selected_operators(text, "s.yaml")
    assert str(info.value).startswith(message), str(info.value)


def test_every_problem_of_a_file_is_reported():
    text = "operators:\n  aten::add.out:\n    is_root: true\nbuild_feature: []\n"
    with pytest.raises(UserError) as info:
        parse_selected_operators(text, "s.yaml")
    assert [str(p.location) for p in info.value.problems] == ["s.yaml:3:5", "s.yaml:4:1"]


@given(st.text(max_size=12))
def test_yaml_scalars_read_back_as_the_same_string(text):
    from selective_build.emit.yaml_text import scalar

    assert yaml.safe_load(f"key: {scalar(text)}\n") == {"key": text}
