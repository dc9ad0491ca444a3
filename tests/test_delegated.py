"""Delegated models (tests/models/delegated: real architectures lowered to
XNNPACK): the backends a program's delegates need are read from the .pte,
recorded in the selection, checked at build time against the declared backend
libraries, and exactly those libraries are linked. Built by etsb's driver
from examples/delegated/BUILD (two lines a model), run, and compared with
torch's outputs recorded at export time."""

from __future__ import annotations

import json
import re
import subprocess

import numpy as np
import pytest
import yaml

from conftest import REPO
from helpers import etsb

pytestmark = pytest.mark.build

MODELS_DIR = REPO / "tests" / "models" / "delegated"
MANIFEST = json.loads((MODELS_DIR / "manifest.json").read_text())["models"]
OUT = REPO / "etsb-out" / "bin" / "examples" / "delegated"
WHEEL_BACKEND_LIBRARIES = ("libexecutorch_backend_xnnpack.so", "libexecutorch_backend_qnn.so",
                           "libexecutorch_backend_openvino.so")


def pte(model: str):
    return MODELS_DIR / MANIFEST[model]["pte"]


def needed_libraries(binary) -> list[str]:
    dynamic = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return [line.rsplit("[", 1)[1].rstrip("]") for line in dynamic.splitlines() if "(NEEDED)" in line]


def run(binary, model: str, out, *extra: str) -> subprocess.CompletedProcess:
    info = MANIFEST[model]
    inputs = ",".join(str(MODELS_DIR / model / i["file"]) for i in info["inputs"])
    return subprocess.run([str(binary), "--model", str(pte(model)), "--inputs", inputs, "--output-dir", str(out),
                           *extra], capture_output=True, text=True)


def assert_matches_torch(model: str, out) -> None:
    """Within the tolerance recorded at export (XNNPACK's accumulation order and
    its GELU differ from eager's: tests/models/export_real.py says how it is set)."""
    info = MANIFEST[model]
    for index, output in enumerate(info["outputs"]):
        expected = np.load(MODELS_DIR / model / output["file"])
        got = np.load(out / f"output_{index}.npy")
        assert got.dtype == expected.dtype and got.shape == expected.shape, (model, index)
        np.testing.assert_allclose(got, expected, rtol=0, atol=info["tolerance"], err_msg=f"{model}[{index}]")


@pytest.fixture(scope="module")
def built() -> subprocess.CompletedProcess:
    result = etsb("build", "//examples/delegated/...", "//examples/mlp:bin")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return result


def test_the_corpus_is_lowered_to_xnnpack():
    assert len(MANIFEST) >= 5
    for model, info in MANIFEST.items():
        assert info["backends"] == ["XnnpackBackend"], model
        assert info["delegate_calls"] >= 1, model


@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_the_reader_finds_each_delegate_and_the_operators_left_outside(model):
    from selective_build.readers.files import mapped
    from selective_build.readers.pte import read_program

    with mapped(str(pte(model)), ".pte file") as data:
        (method,) = read_program(data, str(pte(model))).methods
    info = MANIFEST[model]
    assert method.backends == tuple(info["backends"])
    assert method.delegate_calls == info["delegate_calls"]
    # Every delegate is called, from a real place in the plan.
    assert all(delegate.calls for delegate in method.delegates)
    assert sorted({str(op) for op in (*method.operators, *method.runtime_operators)}) == info["operators"]


def test_gen_oplist_records_the_backends_where_executorchs_tools_still_read_the_file(tmp_path, export_python):
    selection = tmp_path / "selected_operators.yaml"
    result = etsb("gen-oplist", "--output_path", str(selection), "--model_file_path", str(pte("vit")),
                  "--model_file_path", str(pte("resnet")), "--backends", "QnnBackend")
    assert result.returncode == 0, result.stderr
    data = yaml.safe_load(selection.read_text())
    assert data["build_features"] == ["executorch_backend:QnnBackend", "executorch_backend:XnnpackBackend"]
    assert f"executorch_backend:XnnpackBackend <- {pte('resnet')} (method 'forward')" in data["debug_info"]
    assert "executorch_backend:QnnBackend <- --backends" in data["debug_info"]
    # Read back (through another selection) unchanged.
    again = tmp_path / "again.yaml"
    assert etsb("gen-oplist", "--output_path", str(again), "--selection_yaml_path", str(selection)).returncode == 0
    assert again.read_text() == selection.read_text()
    # ExecuTorch's own tools accept it: its unknown-key check passes.
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_selected_op_variants",
                    "--yaml-file-path", selection, "--output-dir", tmp_path], check=True, capture_output=True)
    # ExecuTorch's gen_oplist.py, on the same model, does not see the backend at all.
    peer = tmp_path / "peer.yaml"
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_oplist", "--output_path", peer,
                    "--model_file_path", pte("resnet")], check=True, capture_output=True)
    assert "XnnpackBackend" not in peer.read_text()


@pytest.mark.parametrize("model", sorted(MANIFEST))
def test_each_delegated_model_links_xnnpack_alone_and_matches_torch(built, model, tmp_path):
    binary = OUT / model
    assert [lib for lib in needed_libraries(binary) if lib in WHEEL_BACKEND_LIBRARIES] == \
        ["libexecutorch_backend_xnnpack.so"]
    listed = subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True, check=True)
    assert listed.stdout.split() == ["XnnpackBackend"]
    result = run(binary, model, tmp_path)
    assert result.returncode == 0, result.stderr
    assert_matches_torch(model, tmp_path)
    # The operators left outside the delegate, and only those, were registered from the portable kernels.
    from selective_build.model.program import RUNTIME_PRIM_NAMESPACE, RUNTIME_PRIM_OPERATORS

    def needs_a_kernel(name: str) -> bool:
        return not name.startswith(RUNTIME_PRIM_NAMESPACE + "::") and name not in RUNTIME_PRIM_OPERATORS

    kernels = subprocess.run([str(binary), "--list-kernels"], capture_output=True, text=True, check=True)
    assert sorted(filter(needs_a_kernel, set(kernels.stdout.split()))) == sorted(
        filter(needs_a_kernel, MANIFEST[model]["operators"]))


def test_the_dtype_selective_pick_finds_the_backend_from_its_folder(built, tmp_path):
    binary = OUT / "vit_dtype_selective_smallest" / "vit_dtype_selective"
    assert "libexecutorch_backend_xnnpack.so" in needed_libraries(binary)
    result = run(binary, "vit", tmp_path)
    assert result.returncode == 0, result.stderr
    assert_matches_torch("vit", tmp_path)


def test_thread_counts_give_the_same_outputs(built, tmp_path):
    for threads in ("1", "2"):
        result = run(OUT / "mobilenet_v2", "mobilenet_v2", tmp_path / threads, "--threads", threads)
        assert result.returncode == 0, result.stderr
        assert_matches_torch("mobilenet_v2", tmp_path / threads)


def test_a_binary_without_delegates_links_no_backend(built):
    binary = REPO / "etsb-out" / "bin" / "examples" / "mlp" / "bin"
    assert not [lib for lib in needed_libraries(binary) if lib in WHEEL_BACKEND_LIBRARIES]
    assert subprocess.run([str(binary), "--list-backends"], capture_output=True, text=True).stdout == ""


@pytest.mark.parametrize("flags, message", [
    (["--threads", "0"], "--threads takes a whole number from 1 to 1024, not '0'"),
    (["--threads", "x"], "--threads takes a whole number from 1 to 1024, not 'x'"),
    (["--threads", "1025"], "--threads takes a whole number from 1 to 1024, not '1025'"),
])
def test_the_runner_refuses_bad_thread_counts(built, tmp_path, flags, message):
    result = subprocess.run([str(OUT / "lstm"), "--model", str(pte("lstm")), "--inputs", "a.npy",
                             "--output-dir", str(tmp_path), *flags], capture_output=True, text=True)
    assert result.returncode == 2 and message in result.stderr


def workspace_with(tmp_path, build: str):
    """A user's workspace outside the checkout, loading etsb's rules as ``@etsb``."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "MODULE.bazel").write_text("")
    (root / "pkg").mkdir()
    (root / "pkg" / "model.pte").write_bytes(pte("lstm").read_bytes())
    (root / "pkg" / "plain.pte").write_bytes((REPO / "tests" / "models" / "mlp" / "mlp.pte").read_bytes())
    (root / "pkg" / "BUILD").write_text(build)
    return root


def test_a_missing_backend_stops_the_build_naming_the_model_method_and_backend(tmp_path):
    root = workspace_with(tmp_path, 'load("@etsb//rules:executorch.bzl", "et_model_binary")\n'
                                    'et_model_binary(name = "none", model = "model.pte", backend_deps = [])\n'
                                    'et_model_binary(name = "qnn", model = "model.pte",\n'
                                    '                backend_deps = ["@etsb//runtime:qnn_backend"])\n')
    for target, declared in (("none", "declared: none"), ("qnn", "qnn_backend/backend_library.yaml (QnnBackend)")):
        result = etsb("build", f"//pkg:{target}", cwd=root)
        assert result.returncode != 0
        output = result.stdout + result.stderr
        message = "model.pte (method 'forward'): error: needs backend 'XnnpackBackend', which no backend library"
        assert output.count(message) == 1, output
        assert declared in output and "Traceback" not in output
        # Nothing was linked.
        assert not (root / "etsb-out" / "bin" / "pkg" / target).exists()


def test_a_model_without_delegates_costs_one_backend_action(tmp_path):
    """The wheel's three backend libraries (the default backend_deps) are
    declared and copied by one action, not a declaration and a copy each
    (examples/mlp: 48 actions before, 43 after); none is linked."""
    root = workspace_with(tmp_path, 'load("@etsb//rules:executorch.bzl", "et_model_binary")\n'
                                    'et_model_binary(name = "plain", model = "plain.pte")\n')
    result = etsb("build", "//pkg:plain", cwd=root)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    steps = re.findall(r"^\[\d+/\d+\] (.*)$", result.stdout + result.stderr, re.M)
    backend_steps = [step for step in steps if "backend" in step]
    assert backend_steps == ["GEN @etsb//runtime:wheel_backends_declared"], backend_steps
    assert not [lib for lib in needed_libraries(root / "etsb-out" / "bin" / "pkg" / "plain") if "backend" in lib]


def test_backends_named_explicitly_are_linked_and_checked(tmp_path):
    root = workspace_with(tmp_path, 'load("@etsb//rules:executorch.bzl", "et_model_binary")\n'
                                    'et_model_binary(name = "plain", model = "plain.pte",\n'
                                    '                backends = ["XnnpackBackend"])\n'
                                    'et_model_binary(name = "unknown", model = "plain.pte",\n'
                                    '                backends = ["NoSuchBackend"])\n')
    result = etsb("build", "//pkg:plain", cwd=root)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    binary = root / "etsb-out" / "bin" / "pkg" / "plain"
    assert "libexecutorch_backend_xnnpack.so" in needed_libraries(binary)
    result = etsb("build", "//pkg:unknown", cwd=root)
    assert result.returncode != 0
    assert "--backends: error: needs backend 'NoSuchBackend'" in result.stdout + result.stderr


@pytest.mark.parametrize("call, message", [
    ('et_model_binary(name = "b", model = "model.pte", backends = ["not-an-id"])',
     "attribute 'backends': \"not-an-id\" is not a backend id"),
    ('et_backend_library(name = "b", backends = [], library = "model.pte")', "backends is empty"),
    ('et_backend_library(name = "b", backends = ["X"])', "library"),
])
def test_bad_backend_attributes_fail_at_their_build_line(tmp_path, call, message):
    root = workspace_with(tmp_path, 'load("@etsb//rules:executorch.bzl", "et_backend_library", "et_model_binary")\n'
                                    + call + "\n")
    result = etsb("build", "//pkg:b", cwd=root)
    assert result.returncode != 0
    output = result.stdout + result.stderr
    assert "pkg/BUILD:2" in output and message in output, output


@pytest.mark.parametrize("text, message", [
    ("", "empty file; expected a backend library declaration"),
    ("backends: [XnnpackBackend]\n", "1:1: error: the declaration has no 'library'"),
    ("backends: [X-1]\nlibrary: a.so\n", "1:11: error: 'X-1' is not a backend id"),
    ("backends: []\nlibrary: a.so\n", "1:11: error: 'backends' lists no backend id"),
    ("backends: [A, A]\nlibrary: a.so\n", "names a backend twice"),
    ("backends: [A]\nlibrary: a.so\nneeds: b.so\n", "3:8: error: needs must be a list"),
    ("backends: [A]\nlibrary: a.so\nlibraries: [b.so]\n", "3:1: error: unknown key 'libraries'"),
    ("backends: [XnnpackBackend]\nlibrary: missing.so\n", "the backend library 'missing.so' it declares does not exist"),
    # A list of declarations (//runtime:wheel_backends'): each item located.
    ("[]\n", "1:1: error: the list declares no backend library"),
    ("- backends: [A]\n  library: a.so\n- library: b.so\n", "3:3: error: the declaration has no 'backends'"),
    ("- backends: [A]\n  library: a.so\n- b.so\n", "3:3: error:"),
    ("- backends: [A]\n  library: a.so\n- backends: [XnnpackBackend]\n  library: missing.so\n",
     "the backend library 'missing.so' it declares does not exist"),
])
def test_bad_backend_declarations_are_located(tmp_path, text, message):
    declaration = tmp_path / "backend.yaml"
    declaration.write_text(text)
    selection = tmp_path / "s.yaml"
    assert etsb("gen-oplist", "--output_path", str(selection), "--backends", "XnnpackBackend").returncode == 0
    result = etsb("gen-bindings", "--functions_yaml_path", str(REPO / "kernels/portable/functions.yaml"),
                  "--op_selection_yaml_path", str(selection), "--backend_library_path", str(declaration),
                  "--output_dir", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()


def test_a_list_of_declarations_links_only_the_library_the_selection_needs(tmp_path):
    """One file declaring several libraries (//runtime:wheel_backends writes
    one): only the one whose backend is selected is linked, and only its
    files must exist."""
    (tmp_path / "b.so").write_bytes(b"")
    (tmp_path / "pool.so").write_bytes(b"")
    declaration = tmp_path / "backends.yaml"
    declaration.write_text("- backends: [QnnBackend]\n  library: missing_a.so\n  needs: []\n"
                           "- backends: [XnnpackBackend]\n  library: b.so\n  needs: [pool.so]\n")
    selection = tmp_path / "s.yaml"
    assert etsb("gen-oplist", "--output_path", str(selection), "--backends", "XnnpackBackend").returncode == 0
    result = etsb("gen-bindings", "--functions_yaml_path", str(REPO / "kernels/portable/functions.yaml"),
                  "--op_selection_yaml_path", str(selection), "--backend_library_path", str(declaration),
                  "--backends_output", "link.ld", "--output_dir", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    script = (tmp_path / "link.ld").read_text()
    assert 'INPUT("b.so")' in script and "missing_a.so" not in script


@pytest.mark.parametrize("argv, message", [
    (["gen-oplist", "--output_path", "s.yaml", "--backends", "Bad-Id"], "'Bad-Id' is not a backend id"),
    (["gen-oplist", "--output_path", "s.yaml", "--backends", " , "], "--backends names no backend id"),
    (["backend-library", "--backends", "X", "--output", "d.yaml"], "--library"),
    (["backend-library", "--backends", "1X", "--library", "a.so", "--output", "d.yaml"], "'1X' is not a backend id"),
])
def test_bad_backend_flags_are_refused(tmp_path, argv, message):
    result = etsb(*argv, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr, result.stderr
    assert not list(tmp_path.iterdir())


def test_a_corrupt_delegate_index_is_reported_not_followed(tmp_path):
    from selective_build.model.errors import UserError
    from selective_build.readers.pte import read_program

    data = bytearray(pte("lstm").read_bytes())
    with pytest.raises(UserError) as raised:
        read_program(_with_delegate_index(data, 1000), "lstm.pte")
    assert "delegate index 1000 is out of range (the method has 24 delegates)" in str(raised.value)


def _with_delegate_index(data: bytearray, index: int) -> bytes:
    """``data`` with the delegate index of its first delegate call that stores one (an index
    of 0 is left out of the flatbuffer) set to ``index``."""
    from selective_build.readers import pte as reader

    size = reader.flatbuffer_size(data, "lstm.pte")
    r = reader.FlatbufferReader(data, size, "lstm.pte")
    plan = r.tables(r.table(r.u32(0)), reader._PROGRAM_EXECUTION_PLAN, "methods")[0]
    for chain in r.tables(plan, reader._PLAN_CHAINS, "chains"):
        for instruction in r.tables(chain, reader._CHAIN_INSTRUCTIONS, "instructions"):
            if r.scalar(instruction, reader._INSTRUCTION_ARGS_TYPE, "B") == reader._INSTR_DELEGATE_CALL:
                call = r.child(instruction, reader._INSTRUCTION_ARGS, "delegate call")
                if not r.field(call, reader._DELEGATE_CALL_INDEX):
                    continue
                position = call.Pos + r.field(call, reader._DELEGATE_CALL_INDEX)
                data[position:position + 4] = index.to_bytes(4, "little")
                return bytes(data)
    raise AssertionError("no delegate call")


def test_a_backend_declared_by_two_libraries_is_refused(tmp_path):
    for name in ("one", "two"):
        (tmp_path / f"lib{name}.so").write_bytes(b"")
        assert etsb("backend-library", "--backends", "XnnpackBackend", "--library", f"lib{name}.so", "--output",
                    f"{name}.yaml", cwd=tmp_path).returncode == 0
    assert etsb("gen-oplist", "--output_path", "s.yaml", "--backends", "XnnpackBackend", cwd=tmp_path).returncode == 0
    result = etsb("gen-bindings", "--functions_yaml_path", str(REPO / "kernels/portable/functions.yaml"),
                  "--op_selection_yaml_path", "s.yaml", "--backend_library_path", "one.yaml",
                  "--backend_library_path", "two.yaml", "--output_dir", "out", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "two.yaml: error: backend 'XnnpackBackend' is provided by more than one backend library: one.yaml, two.yaml" in \
        result.stderr, result.stderr
    assert not (tmp_path / "out").exists()
