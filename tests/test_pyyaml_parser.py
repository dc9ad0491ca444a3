"""readers/pyyaml_parser: etsb reads yaml with PyYAML's libyaml parser loaded on
its own (a fresh command), with the same parser after a full ``import yaml``,
or with PyYAML's pure-Python parser when libyaml is absent; the three write the
same bytes and report the same bad input, and the lean loading leaves PyYAML
whole for whatever else the process imports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, VENV

ET_ROOT = Path(__import__("executorch").__path__[0])
PORTABLE = ET_ROOT / "kernels/portable/functions.yaml"
CUSTOM = ET_ROOT / "kernels/portable/custom_ops.yaml"
PYTHON = str(VENV / "bin" / "python")

# Runs etsb's command line in a fresh interpreter, in one of three ways (argv[1]).
RUN_ETSB = """
import importlib.abc, sys
way = sys.argv.pop(1)
if way == "full":  # something imported PyYAML whole before etsb read any yaml
    import yaml
elif way == "pure":  # a PyYAML built without libyaml: its extension cannot be found
    class NoLibyaml(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "yaml._yaml":
                raise ModuleNotFoundError(name)
    sys.meta_path.insert(0, NoLibyaml())
from selective_build.__main__ import main
from selective_build.readers.pyyaml_parser import parser_classes
status = main(sys.argv[1:])
print("libyaml" if parser_classes()[2] else "pure-python", file=sys.stderr)  # which parser read the yaml
sys.exit(status)
"""
WAYS = ("lean", "full", "pure")


def run_etsb(way: str, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-c", RUN_ETSB, way, *argv], capture_output=True, text=True, cwd=REPO)


def test_every_way_writes_the_same_merged_yaml(tmp_path):
    written = {}
    for way in WAYS:
        (tmp_path / way).mkdir()
        run = run_etsb(way, "merge-yaml", "--functions_yaml_path", str(CUSTOM), "--fallback_yaml_path", str(PORTABLE),
                       "--output_dir", str(tmp_path / way))
        assert run.returncode == 0, run.stderr
        assert run.stderr.split() == ["pure-python" if way == "pure" else "libyaml"]
        written[way] = (tmp_path / way / "merged.yaml").read_bytes()
    assert written["lean"] == written["full"] == written["pure"]
    assert written["lean"].count(b"\n- ") + written["lean"].startswith(b"- ") > 200


def test_every_way_reads_the_same_values(tmp_path):
    text = ("- op: add.out  # comment\n  kernels:\n    - arg_meta: null\n      kernel_name: 'torch::executor::add_out'\n"
            "- func: custom::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  type_alias:\n    T0: [Float, Int]\n"
            "  dim_order_alias:\n    D0: [[0, 1], [1, 0]]\n  kernels:\n    - arg_meta:\n        self: [T0, D0]\n"
            "        out: [T0, D0]\n      kernel_name: \"custom::f_out\"\n    - arg_meta: ~\n      kernel_name: |-\n"
            "        custom::f_any\n")
    (tmp_path / "k.yaml").write_text(text)
    said = {way: run_etsb(way, "validate-yaml", str(tmp_path / "k.yaml")) for way in WAYS}
    assert {(run.returncode, run.stdout) for run in said.values()} == {(0, said["lean"].stdout)}


@pytest.mark.parametrize("text, message", [
    ("- op: [1, 2\n", "did not find expected ',' or ']'"),
    ("- op: add.out\n  kernels: \x01\n", "unacceptable character #x0001: control characters are not allowed"),
    ("- op: a\n  kernels: *nope\n", "found undefined alias"),
])
def test_bad_yaml_is_reported_alike_without_a_traceback(tmp_path, text, message):
    (tmp_path / "bad.yaml").write_text(text)
    said = {way: run_etsb(way, "validate-yaml", str(tmp_path / "bad.yaml")) for way in WAYS}
    for way, run in said.items():
        assert run.returncode == 2 and "Traceback" not in run.stderr, (way, run.stderr)
        assert str(tmp_path / "bad.yaml") in run.stderr and "invalid YAML" in run.stderr, (way, run.stderr)
    # libyaml's words, whichever way it was loaded (PyYAML's own parser words some of them its own way).
    assert message in said["lean"].stderr
    assert said["lean"].stderr == said["full"].stderr


# In one process: etsb reads yaml first (the lean loading), then other code uses PyYAML as usual.
AFTERWARDS = """
import sys
from selective_build.readers.yaml_nodes import compose
from selective_build.model.errors import UserError
compose("a: [1, 2]\\n", "a.yaml")
lean = {name: name in sys.modules for name in ("re", "yaml.reader", "yaml.resolver", "yaml.constructor")}
lean["Reader"] = "Reader" in vars(sys.modules["yaml.reader"])
try:
    compose("a: \\x01\\n", "b.yaml")
except UserError as error:
    lean["error"] = str(error)
import yaml
from yaml.reader import Reader, ReaderError
caught = []
for loader in (yaml.CSafeLoader, yaml.SafeLoader):
    try:
        yaml.load("a: \\x01", Loader=loader)
    except ReaderError as error:
        caught.append((type(error) is yaml.reader.ReaderError, isinstance(error, yaml.YAMLError), str(error)))
import json  # (json imports re: not before the check above)
print(json.dumps({"lean": lean, "caught": caught, "with_libyaml": yaml.__with_libyaml__,
                  "safe_load": yaml.safe_load("a: [1, 2.5, yes, 2001-12-14]\\n")["a"][:3],
                  "dump": yaml.safe_dump({"b": [1, "x"]}), "reader": Reader is yaml.loader.Reader,
                  "errors": yaml.reader.ReaderError is ReaderError is yaml._yaml.ReaderError,
                  "constructor": yaml.constructor.ConstructorError is yaml.constructor.SafeConstructor.__init__.__globals__["ConstructorError"]}))
"""


def test_the_lean_loading_leaves_pyyaml_whole_for_later_imports():
    run = subprocess.run([PYTHON, "-c", AFTERWARDS], capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 0, run.stderr
    found = json.loads(run.stdout)
    # Reading yaml imported neither re nor PyYAML's pure-Python reader, resolver or constructor.
    assert found["lean"] == {"re": False, "yaml.reader": True, "yaml.resolver": False, "yaml.constructor": True,
                             "Reader": False, "error": found["lean"]["error"]}
    assert "unacceptable character #x0001" in found["lean"]["error"]
    # Then PyYAML works whole, with one ReaderError class, raised by libyaml and by PyYAML's own reader alike.
    assert found["with_libyaml"] and found["reader"] and found["errors"] and found["constructor"]
    assert found["safe_load"] == [1, 2.5, True] and found["dump"] == "b:\n- 1\n- x\n"
    assert [c[:2] for c in found["caught"]] == [[True, True], [True, True]]
    assert found["caught"][0][2].startswith("unacceptable character #x0001: control characters are not allowed")


def test_a_process_that_imported_pyyaml_first_uses_it_as_it_is():
    script = ("import sys, yaml\nfrom selective_build.readers.pyyaml_parser import parser_classes\n"
              "parser, error, libyaml = parser_classes()\n"
              "print(parser is yaml.cyaml.CParser, error is yaml.YAMLError, libyaml)")
    run = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, cwd=REPO)
    assert run.stdout.split() == ["True", "True", "True"], run.stderr
