"""`etsb gen-oplist` and `etsb gen-all-oplist`: on the corpus, against
ExecuTorch's own tools, and with bad input."""

from __future__ import annotations

import os
import subprocess

import pytest
import yaml

from conftest import MODELS_DIR, VENV, load_manifest
from pte_mutations import with_operator_index, with_unknown_dtype, with_value_index
from selective_build.__main__ import main
from selective_build.readers.selected_yaml import parse_selected_operators

MODELS = load_manifest()["models"]


def pte(model: str) -> str:
    return str(MODELS_DIR / MODELS[model]["pte"])


def run(capsys, *argv: str) -> tuple[int, str]:
    """Run etsb in process; return (exit status, stderr)."""
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


def gen_oplist(capsys, output, *argv) -> dict:
    status, err = run(capsys, "gen-oplist", "--output_path", output, *argv)
    assert status == 0, err
    return yaml.safe_load(open(output))


def manifest_keys(model: str) -> dict[str, set[str]]:
    keys: dict[str, set[str]] = {}
    for method in MODELS[model]["methods"].values():
        for operator, found in method["kernel_keys"].items():
            keys.setdefault(operator, set()).update(found)
    return keys


@pytest.fixture(scope="module")
def peer_outputs(export_python, tmp_path_factory) -> dict[str, str]:
    """ExecuTorch's gen_oplist.py output text for every corpus model."""
    out = tmp_path_factory.mktemp("peer")
    texts = {}
    for model in MODELS:
        path = out / f"{model}.yaml"
        subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_oplist", "--output_path", path,
                        "--model_file_path", pte(model)], check=True, capture_output=True)
        texts[model] = path.read_text()
    return texts


# Where ExecuTorch's keys differ from what the runtime looks up: gen_oplist.py
# expands tensor lists (the `tensors` input of a list-taking op, the tuple a
# multi-output op returns) into the key, while the runtime's key holds only
# single-tensor arguments (runtime/executor/method.cpp tests `isTensor()`).
KNOWN_PEER_KEY_DIFFERENCES = {
    "cnn": {"aten::max_pool2d_with_indices.out"},  # returns (out, indices): a tensor list
    "attention": {"aten::native_layer_norm.out", "aten::split_with_sizes_copy.out"},  # same; a list `out`
}


@pytest.mark.parametrize("model", sorted(MODELS))
def test_corpus_selection_matches_manifest_and_executorch(model, tmp_path, capsys, peer_outputs):
    ours = gen_oplist(capsys, tmp_path / "ours.yaml", "--model_file_path", pte(model))
    peer = yaml.safe_load(peer_outputs[model])
    expected_ops = {op for method in MODELS[model]["methods"].values() for op in method["operators"]}
    assert set(ours["operators"]) == expected_ops == set(peer["operators"])
    assert {op: set(keys) for op, keys in ours["et_kernel_metadata"].items()} == manifest_keys(model)
    differing = {op for op in expected_ops if ours["et_kernel_metadata"][op] != peer["et_kernel_metadata"][op]}
    assert differing == KNOWN_PEER_KEY_DIFFERENCES.get(model, set())
    for op in differing:  # theirs has extra list entries; the single-tensor prefix agrees
        assert all(len(p) > len(o) for o, p in zip(ours["et_kernel_metadata"][op], peer["et_kernel_metadata"][op]))
    # Apart from keys and the dtypes of ScalarType arguments, the files are byte-identical.
    ours["et_kernel_metadata"] = peer["et_kernel_metadata"]
    ours["kernel_metadata"] = peer["kernel_metadata"]
    assert yaml.safe_dump(ours, default_flow_style=False) == peer_outputs[model]


def test_scalar_type_argument_dtypes_are_recorded(tmp_path, capsys):
    # sum(dtype=torch.float64): ExecuTorch's list lacks Double for it (its issue 11762).
    ours = gen_oplist(capsys, tmp_path / "s.yaml", "--model_file_path", pte("mixed_dtypes"))
    assert ours["kernel_metadata"] == {"aten::sum.IntList_out": ["Double"]}


def test_executorch_reads_ours_and_we_read_theirs(tmp_path, capsys, export_python, peer_outputs):
    ours = tmp_path / "ours.yaml"
    gen_oplist(capsys, ours, *[a for m in sorted(MODELS) for a in ("--model_file_path", pte(m))],
               "--root_ops", "aten::mm", "--include_all_overloads", "--ops_dict", '{"aten::add.out": ["Float"]}')
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_selected_op_variants",
                    "--yaml-file-path", ours, "--output-dir", tmp_path], check=True, capture_output=True)
    header = (tmp_path / "selected_op_variants.h").read_text()
    assert 'compare("addmm.out") == 0)\n        && (scalar_type == executorch::aten::ScalarType::Float' in header
    (tmp_path / "list").write_text(f"{ours}\n")
    out = tmp_path / "all"
    out.mkdir()
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_all_oplist", "--model-file-list-path",
                    f"@{tmp_path / 'list'}", "--output-dir", out, "--allow-include-all-overloads"],
                   check=True, capture_output=True)
    assert set(yaml.safe_load((out / "selected_operators.yaml").read_text())["operators"]) == \
        set(yaml.safe_load(ours.read_text())["operators"])
    for model, text in peer_outputs.items():
        selection = parse_selected_operators(text, f"{model}.yaml")
        peer = yaml.safe_load(text)
        assert set(map(str, selection.operators)) == set(peer["operators"])
        assert {str(op): [key.text for key in keys] for op, keys in selection.et_kernel_metadata.items()} == \
            peer["et_kernel_metadata"]


def test_all_sources_compose_with_their_debug_info(tmp_path, capsys):
    kernel_yaml = tmp_path / "k.yaml"
    kernel_yaml.write_text("- op: relu.out\n  kernels:\n    - arg_meta: null\n      kernel_name: torch::executor::relu_out\n"
                           "- func: custom::scale.out(Tensor self, float f, *, Tensor(a!) out) -> Tensor(a!)\n"
                           "  kernels:\n    - arg_meta: null\n      kernel_name: custom::scale_out\n")
    ops_file = tmp_path / "ops.json"
    ops_file.write_text('{"aten::bmm.out": ["Double"]}')
    out = gen_oplist(capsys, tmp_path / "s.yaml", "--model_file_path", pte("mlp"),
                     "--model_file_path", pte("embedding"), "--root_ops", "aten::mm.out,addmm.out",
                     "--ops_dict", '{"aten::add.out": ["Float", "Long"], "aten::relu.out": []}',
                     "--ops_dict", f"@{ops_file}", "--ops_schema_yaml_path", kernel_yaml,
                     "--include_all_operators")
    ops = out["operators"]
    assert ops["aten::addmm.out"]["debug_info"] == sorted(["--root_ops", pte("mlp"), pte("embedding")])
    assert ops["aten::relu.out"]["debug_info"] == sorted(["--ops_dict", pte("mlp"), str(kernel_yaml)])
    assert ops["aten::embedding.out"]["debug_info"] == [pte("embedding")]
    assert ops["aten::bmm.out"]["debug_info"] == [str(ops_file)]
    assert ops["custom::scale.out"]["debug_info"] == [str(kernel_yaml)]
    assert out["et_kernel_metadata"]["aten::add.out"] == ["v1/4;", "v1/6;"]
    assert out["et_kernel_metadata"]["aten::bmm.out"] == ["v1/7;"]
    assert out["et_kernel_metadata"]["aten::relu.out"][0] == "default"
    assert out["include_all_operators"] is True


def test_output_is_byte_identical_in_any_order_and_hash_seed(tmp_path):
    """Two processes with different hash seeds and argument orders write the same bytes."""
    sources = [["--model_file_path", pte(m)] for m in sorted(MODELS)] + [
        ["--root_ops", "aten::mm.out,aten::add"], ["--ops_dict", '{"aten::add.out": ["Float"], "mm.out": []}']]
    outputs = []
    for seed, order in (("1", sources), ("2", sources[::-1])):
        path = tmp_path / f"out{seed}.yaml"
        subprocess.run([VENV / "bin" / "etsb", "gen-oplist", "--output_path", path] + [a for s in order for a in s],
                       check=True, env={**os.environ, "PYTHONHASHSEED": seed})
        outputs.append(path.read_bytes())
    assert outputs[0] == outputs[1]


def test_output_path_may_be_a_directory(tmp_path, capsys):
    status, err = run(capsys, "gen-oplist", "--output_path", tmp_path, "--root_ops", "aten::add.out")
    assert status == 0, err
    assert (tmp_path / "selected_operators.yaml").exists()


# -- gen-all-oplist -------------------------------------------------------------------


def write_selection(capsys, directory, *argv) -> str:
    directory.mkdir(parents=True)
    status, err = run(capsys, "gen-oplist", "--output_path", directory / "selected_operators.yaml", *argv)
    assert status == 0, err
    return str(directory)


def test_gen_all_oplist_unions_listed_selections(tmp_path, capsys):
    a = write_selection(capsys, tmp_path / "a", "--model_file_path", pte("mlp"))
    b = write_selection(capsys, tmp_path / "b", "--model_file_path", pte("cnn"))
    (tmp_path / "list").write_text(f"{b}\n{a}/selected_operators.yaml\n")
    status, err = run(capsys, "gen-all-oplist", "--model_file_list_path", f"@{tmp_path / 'list'}",
                      "--output_dir", tmp_path / "out")
    assert status == 0, err
    merged = yaml.safe_load((tmp_path / "out" / "selected_operators.yaml").read_text())
    assert set(merged["operators"]) == set(manifest_keys("mlp")) | set(manifest_keys("cnn"))
    assert merged["operators"]["aten::addmm.out"]["debug_info"] == sorted([pte("mlp"), pte("cnn")])
    # The same inputs as separate paths, in the other order: the same bytes.
    status, _ = run(capsys, "gen-all-oplist", "--model_file_list_path", a, "--model_file_list_path", b,
                    "--output_dir", tmp_path / "again")
    assert (tmp_path / "again" / "selected_operators.yaml").read_bytes() == \
        (tmp_path / "out" / "selected_operators.yaml").read_bytes()


def test_overlapping_libraries_are_reported(tmp_path, capsys):
    a = write_selection(capsys, tmp_path / "a", "--model_file_path", pte("mlp"))
    b = write_selection(capsys, tmp_path / "b", "--model_file_path", pte("cnn"))
    status, err = run(capsys, "gen-all-oplist", "--model_file_list_path", a, "--model_file_list_path", b,
                      "--output_dir", tmp_path / "out", "--check_ops_not_overlapping")
    assert status == 2
    assert err.splitlines() == [
        f"etsb: error: operator aten::{op} is selected by 2 libraries: {a}/selected_operators.yaml, "
        f"{b}/selected_operators.yaml" for op in ("addmm.out", "permute_copy.out", "relu.out")]
    assert not (tmp_path / "out").exists()


def test_include_all_overloads_needs_to_be_allowed(tmp_path, capsys):
    a = write_selection(capsys, tmp_path / "a", "--root_ops", "aten::add", "--include_all_overloads")
    status, err = run(capsys, "gen-all-oplist", "--model_file_list_path", a, "--output_dir", tmp_path / "out")
    assert status == 2
    assert "operator aten::add includes all overloads (selected by --root_ops); pass " \
           "--allow_include_all_overloads" in err
    status, _ = run(capsys, "gen-all-oplist", "--model_file_list_path", a, "--output_dir", tmp_path / "out",
                    "--allow_include_all_overloads")
    assert status == 0


# -- bad input ------------------------------------------------------------------------


def _mlp() -> bytes:
    return open(pte("mlp"), "rb").read()


BAD_MODELS = {
    "truncated": (lambda: _mlp()[:300], "corrupt .pte extended header: program size"),
    "wrong identifier": (lambda: _mlp()[:4] + b"XX12" + _mlp()[8:],
                         "not a .pte file: file identifier b'XX12', expected b'ET12' at byte 4"),
    "random bytes": (lambda: bytes((i * 7919) % 251 for i in range(4096)), "not a .pte file: file identifier"),
    "empty": (lambda: b"", "not a .pte file: 0 bytes, too short for a flatbuffer"),
    "operator index": (lambda: with_operator_index(_mlp(), 12),
                       "corrupt .pte: method 'forward': operator index 12 is out of range (the method has 3 "
                       "operators)"),
    "value index": (lambda: with_value_index(_mlp(), 4000),
                    "corrupt .pte: method 'forward': value index 4000 is out of range (the method has 20 values)"),
    "dtype number": (lambda: with_unknown_dtype(_mlp(), 77),
                     "corrupt .pte: method 'forward': value 0 has unknown dtype number 77"),
}


@pytest.mark.parametrize("case", sorted(BAD_MODELS))
def test_bad_model_files(case, tmp_path, capsys):
    make, message = BAD_MODELS[case]
    bad = tmp_path / "bad.pte"
    bad.write_bytes(make())
    status, err = run(capsys, "gen-oplist", "--output_path", tmp_path / "out.yaml", "--model_file_path", bad,
                      "--root_ops", "aten::mm.out")
    assert status == 2
    assert err.startswith(f"{bad}: error: {message}"), err
    assert not (tmp_path / "out.yaml").exists()


@pytest.mark.parametrize("argv, message", [
    (["--model_file_path", "{tmp}"], "{tmp}: error: is a directory, expected a .pte file"),
    (["--model_file_path", "{tmp}/missing.pte"], "{tmp}/missing.pte: error: no such .pte file"),
    (["--ops_dict", '{"add.out": ["Float"'], "--ops_dict: error: invalid JSON at line 1 column 21: Expecting ',' delimiter"),
    (["--ops_dict", '{"add.out": ["Floaty"]}'], "--ops_dict: error: 'add.out': unknown dtype 'Floaty' "
                                                "(did you mean 'Float'?)"),
    (["--ops_dict", "@{tmp}/none.json"], "{tmp}/none.json: error: no such ops dict file"),
    (["--root_ops", "aten::add.out,::"], "--root_ops: error: '::' is not an operator name"),
    (["--ops_schema_yaml_path", "{tmp}/none.yaml"], "{tmp}/none.yaml: error: no such kernel yaml file"),
    ([], "gen-oplist: error: no source of operators: give --model_file_path, --root_ops"),
])
def test_bad_arguments(argv, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    status, err = run(capsys, "gen-oplist", "--output_path", tmp_path / "out.yaml", *argv)
    assert status == 2
    assert err.startswith(message.replace("{tmp}", str(tmp_path))), err
    assert not (tmp_path / "out.yaml").exists()


def test_every_bad_model_is_reported_at_once(tmp_path, capsys):
    (tmp_path / "a.pte").write_bytes(b"")
    (tmp_path / "b.pte").write_bytes(b"12345678")
    status, err = run(capsys, "gen-oplist", "--output_path", tmp_path / "out.yaml",
                      "--model_file_path", tmp_path / "b.pte", "--model_file_path", tmp_path / "a.pte")
    assert status == 2
    assert [line.split(":")[0] for line in err.splitlines()] == [str(tmp_path / "a.pte"), str(tmp_path / "b.pte")]


def test_bad_selection_yaml_in_gen_all_oplist(tmp_path, capsys):
    (tmp_path / "s.yaml").write_text("operators:\n  aten::add.out:\n    is_root: yes\n")
    (tmp_path / "list").write_text("")
    status, err = run(capsys, "gen-all-oplist", "--model_file_list_path", tmp_path / "s.yaml",
                      "--output_dir", tmp_path / "out")
    assert status == 2 and err.startswith(f"{tmp_path}/s.yaml:3:5: error: unknown key 'is_root'"), err
    status, err = run(capsys, "gen-all-oplist", "--model_file_list_path", f"@{tmp_path / 'list'}",
                      "--output_dir", tmp_path / "out")
    assert status == 2 and err == f"{tmp_path}/list: error: the list file names no selected_operators.yaml\n"
    assert not (tmp_path / "out").exists()


def test_a_user_error_has_no_traceback(tmp_path):
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"not a program at all")
    result = subprocess.run([VENV / "bin" / "etsb", "gen-oplist", "--output_path", tmp_path / "o.yaml",
                             "--model_file_path", bad], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == f"{bad}: error: not a .pte file: file identifier b'a pr', expected b'ET12' at byte 4\n"
    assert not (tmp_path / "o.yaml").exists()


def test_ops_schema_yaml_selection_equals_executorch(tmp_path, capsys, export_python):
    import executorch

    functions = os.path.join(executorch.__path__[0], "kernels/portable/functions.yaml")
    subprocess.run([export_python, "-m", "executorch.codegen.tools.gen_oplist", "--output_path",
                    tmp_path / "peer.yaml", "--ops_schema_yaml_path", functions], check=True, capture_output=True)
    status, err = run(capsys, "gen-oplist", "--output_path", tmp_path / "ours.yaml",
                      "--ops_schema_yaml_path", functions)
    assert status == 0, err
    assert (tmp_path / "ours.yaml").read_bytes() == (tmp_path / "peer.yaml").read_bytes()
