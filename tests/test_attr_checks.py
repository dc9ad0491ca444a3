"""Each check of a rule call's values written once: operator names, ops dict
entries (dtype names and kernel keys) and backend ids are read by etsb's own
parsers, which CMake's rules run while configuring (`etsb check-attrs`, its
messages naming the CMakeLists.txt, the rule, the target and the attribute).
The Starlark rules cannot run the tool while a BUILD file is evaluated: their
checks (rules/private/attrs.bzl) spell the tool's character sets and are held
here to the tool's verdicts, value by value, on a corpus of hand-picked and
random strings."""

from __future__ import annotations

import json
import random
import re
import subprocess

import pytest

from conftest import REPO
from selective_build.__main__ import main
from selective_build.model.backends import check_backend_id
from selective_build.model.errors import UserError
from selective_build.model.identifiers import IDENTIFIER_CHARS, IDENTIFIER_START, is_identifier
from selective_build.model.keys import KEY_CHARS, VERSION_PREFIX
from selective_build.model.names import SchemaSyntaxError, parse_operator_name
from selective_build.readers.operator_lists import parse_ops_dict

ATTRS = REPO / "rules" / "private" / "attrs.bzl"
EVALUATOR = REPO / "etsb-out" / "tools" / "etsb-starlark"

HAND_PICKED = [
    "", "aten::add.out", "add.out", "add", "my_ops::relu_squared.out", "_a::_b._c", "a::b::c.d", "aten::",
    "::add", "add.", ".out", "add.out.x", "1add", "aten::1add", "add.1", "aten::add.out;touch PWNED",
    "$(touch PWNED)", "`touch PWNED`", "x'; touch PWNED; '", "add-out", "aten::add .out", " add", "add ",
    "\u00e4dd", "Xnn\u00e9pack", "XnnpackBackend", "Xnn-pack", "QnnBackend", "Float", "Flaot", "default",
    "Default", "Long", "Bool", "v1/6;0,1|6;0,1", "v1/6;", "v1/", "v1/6;0,0", "v1/99;0", "v1/6", "v1/6;0 |6;0",
    "v2/6;0", "6;0", "v1/6;0,1|", "v1/|", "v1/a;0", "aten::add[", "a]b", "Float\n", "\tFloat",
]


def corpus() -> list[str]:
    """The hand-picked strings, then random ones (a fixed seed): some from
    every character the checks treat specially, some shaped like operator
    names and like kernel keys."""
    rng = random.Random(20261125)
    alphabet = "aZ_09:.;,|/v- '`$()[]\u00e9\n"
    strings = list(HAND_PICKED)
    strings += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(600)]
    parts = ["aten", "add", "out", "_x", "9", "", "a-b", "\u00e9"]
    strings += [rng.choice(["", rng.choice(parts) + "::"]) + rng.choice(parts)
                + rng.choice(["", "." + rng.choice(parts)]) for _ in range(300)]
    strings += [VERSION_PREFIX + "".join(rng.choice(KEY_CHARS + "a ") for _ in range(rng.randint(0, 12)))
                for _ in range(300)]
    return list(dict.fromkeys(strings))


def tool_accepts_operator(text: str) -> bool:
    try:
        parse_operator_name(text)
    except SchemaSyntaxError:
        return False
    return True


def tool_accepts_entry(text: str) -> bool:
    """Whether gen-oplist takes ``text`` as an ops dict entry."""
    try:
        parse_ops_dict(json.dumps({"add.out": [text]}))
    except UserError:
        return False
    return True


@pytest.fixture(scope="module")
def starlark_verdicts(tmp_path_factory) -> dict[str, list[bool]]:
    """Each corpus string -> [is_operator_name, is_dtype_entry, is_backend_id] of attrs.bzl, as the BUILD-file
    evaluator computes them (a tree of its own, holding a link to the rules and the .bzl file that calls them)."""
    assert EVALUATOR.exists(), f"no evaluator at {EVALUATOR}: run scripts/setup.sh"
    root = tmp_path_factory.mktemp("starlark")
    (root / "rules").symlink_to(REPO / "rules")
    (root / "check").mkdir()
    (root / "check" / "BUILD").write_text("")
    strings = corpus()
    (root / "check" / "verdicts.bzl").write_text(
        'load("//rules:private/attrs.bzl", "is_backend_id", "is_dtype_entry", "is_operator_name")\n'
        f"CASES = {json.dumps(strings, ensure_ascii=False)}\n"
        "VERDICTS = [[is_operator_name(c), is_dtype_entry(c), is_backend_id(c)] for c in CASES]\n")
    run = subprocess.run([str(EVALUATOR), "--root", str(root), "--globals", "//check:verdicts.bzl"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    values = json.loads(run.stdout)
    assert values["CASES"] == strings
    return dict(zip(strings, values["VERDICTS"]))


def test_the_tools_identifier_check_is_its_character_sets():
    for text in corpus():
        spelt = bool(text) and text[0] in IDENTIFIER_START and all(c in IDENTIFIER_CHARS for c in text)
        assert is_identifier(text) == spelt, repr(text)


def test_starlark_spells_the_tools_character_sets():
    text = ATTRS.read_text()
    literal = {name: value for name, value in re.findall(r'^(_\w+) = "([^"]*)"', text, re.M)}
    assert literal["_IDENTIFIER_START"] == IDENTIFIER_START
    assert '_IDENTIFIER_CHARS = _IDENTIFIER_START + "0123456789"' in text
    assert IDENTIFIER_START + "0123456789" == IDENTIFIER_CHARS
    assert literal["_KEY_CHARS"] == KEY_CHARS


def test_starlark_reads_operator_names_and_backend_ids_as_the_tool_does(starlark_verdicts):
    operators = [s for s, (operator, _, _) in starlark_verdicts.items() if operator != tool_accepts_operator(s)]
    backends = [s for s, (_, _, backend) in starlark_verdicts.items() if backend != (check_backend_id(s) is None)]
    assert not operators and not backends, (operators, backends)
    assert sum(verdict[0] for verdict in starlark_verdicts.values()) > 40  # the corpus holds names, not only mistakes


def test_starlark_lets_through_every_ops_dict_entry_the_tool_takes(starlark_verdicts):
    """Every entry gen-oplist takes (spaces around it aside: it strips them) passes the Starlark check; those
    that pass it and not the tool (unknown dtype names, malformed keys) hold only identifier or key characters
    and fail the build's gen-oplist, which reads them with the same parser."""
    refused = [s for s, (_, entry, _) in starlark_verdicts.items()
               if tool_accepts_entry(s) and s == s.strip() and not entry]
    assert not refused, refused
    for text, (_, entry, _) in starlark_verdicts.items():
        if entry and not tool_accepts_entry(text):
            assert all(c in IDENTIFIER_CHARS for c in text) or (
                text.startswith(VERSION_PREFIX) and all(c in KEY_CHARS for c in text[len(VERSION_PREFIX):])), text
    assert {"Flaot", "v1/99;0", "v1/6;0,0"} <= {s for s, (_, entry, _) in starlark_verdicts.items() if entry}


CALL = ["check-attrs", "--file", "/p/CMakeLists.txt", "--rule", "et_operator_library", "--name", "ops"]


def test_check_attrs_is_silent_on_good_values(capsys):
    assert main(CALL + ["--ops", "aten::add.out", "--ops=mm.out", "--backends", "XnnpackBackend",
                        "--ops-dict", '{"add.out": ["Float", "v1/6;0,1|6;0,1|6;0,1", "default"], "mm.out": []}']) == 0
    assert capsys.readouterr() == ("", "")


def test_check_attrs_names_the_file_rule_target_and_attribute_of_each_problem_in_order(capsys):
    assert main(CALL + ["--ops", "aten::add.out;touch PWNED", "--backends", "Xnn-pack",
                        "--ops-dict", '{"add.out": ["Flaot"]}']) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "/p/CMakeLists.txt: error: et_operator_library 'ops': OPS: 'aten::add.out;touch PWNED' is not an operator "
        "name (bad overload name 'out;touch PWNED'); expected namespace::name.overload, e.g. aten::add.out",
        "/p/CMakeLists.txt: error: et_operator_library 'ops': BACKENDS: 'Xnn-pack' is not a backend id (letters, "
        "digits and '_', e.g. XnnpackBackend)",
        "/p/CMakeLists.txt: error: et_operator_library 'ops': OPS_DICT: 'add.out': unknown dtype 'Flaot' (did you "
        "mean 'Float'?); dtypes are ScalarType names such as Float, Long, Bool, or kernel keys such as "
        "'v1/6;0,1|6;0,1'",
    ]


@pytest.mark.parametrize("ops_dict, message", [
    ('{"add.out": ', "OPS_DICT: invalid JSON at line 1 column 13: Expecting value"),
    ('["add.out"]', "OPS_DICT: expected a JSON object of operator -> list of dtypes, got a list"),
    ('{"add.out": "Float"}', "OPS_DICT: 'add.out': expected a list of dtype names or kernel keys, got a string"),
    ('{"add .out": []}', "OPS_DICT: 'add .out' is not an operator name"),
    ('{"add.out": ["v1/6;0,0"]}', "OPS_DICT: 'add.out': kernel key 'v1/6;0,0': dim order '0,0' is not a permutation"),
])
def test_check_attrs_reads_the_ops_dict_as_gen_oplist_does(ops_dict, message, capsys):
    assert main(CALL + ["--ops-dict", ops_dict]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"/p/CMakeLists.txt: error: et_operator_library 'ops': {message}"), err
    assert "Traceback" not in err
