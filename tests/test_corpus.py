"""The model corpus: every manifest entry matches its files, and the corpus
covers what the later issues test (integer inputs, mixed dtypes, several
methods and outputs)."""

from __future__ import annotations

import hashlib
import re
import subprocess

import numpy as np
import pytest

from conftest import MODELS_DIR, REPO, load_manifest

DTYPE_NUMBERS = {0, 1, 2, 3, 4, 5, 6, 7, 11, 15}
KEY_ENTRY = re.compile(r"^(\d+);((\d+(,\d+)*)?)$")


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_manifest_lists_exactly_the_model_directories(manifest):
    # A model with an export script of its own (custom_op) is not part of the corpus manifest, nor
    # are the real architectures (real/, delegated/: lowered to XNNPACK) or the single-operator
    # corpus (ops/), the decoders (llm/), the int8-quantized models (quantized/) or the Cortex-M ones (cortex_m/),
    # each with a manifest of its own;
    # the export scripts' Python packages (an __init__.py) hold no model.
    on_disk = sorted(p.name for p in MODELS_DIR.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))
                     and not (p / f"export_{p.name}.py").exists() and not (p / "__init__.py").exists()
                     and p.name not in ("real", "ops", "delegated", "llm", "quantized", "cortex_m"))
    assert sorted(manifest["models"]) == on_disk


def test_manifest_records_its_generator(manifest):
    assert manifest["generator"] == {"torch": "2.13.0", "executorch": "1.5.1"}


@pytest.fixture(params=sorted(load_manifest()["models"]))
def model(request, manifest):
    return request.param, manifest["models"][request.param]


def test_pte_matches_manifest(model):
    name, entry = model
    pte = MODELS_DIR / entry["pte"]
    data = pte.read_bytes()
    assert data[4:8] == b"ET12", f"{pte} lacks the ET12 identifier"
    assert len(data) == entry["pte_size"]
    assert sha256(pte) == entry["pte_sha256"]


def test_no_unlisted_files(model):
    name, entry = model
    listed = {entry["pte"].split("/", 1)[1]}
    for method in entry["methods"].values():
        listed |= {t["file"] for t in method["inputs"] + method["outputs"]}
    assert {p.name for p in (MODELS_DIR / name).iterdir()} == listed


def test_npy_files_match_manifest(model):
    name, entry = model
    for method_name, method in entry["methods"].items():
        assert method["inputs"] and method["outputs"], f"{name}.{method_name} has no inputs or outputs"
        for tensor in method["inputs"] + method["outputs"]:
            path = MODELS_DIR / name / tensor["file"]
            assert sha256(path) == tensor["sha256"], path
            array = np.load(path, allow_pickle=False)
            assert str(array.dtype) == tensor["dtype"], path
            assert list(array.shape) == tensor["shape"], path


def test_operators_and_keys_are_well_formed(model):
    name, entry = model
    union = set()
    for method_name, method in entry["methods"].items():
        ops = method["operators"]
        assert ops == sorted(ops) and ops, f"{name}.{method_name}"
        assert set(method["kernel_keys"]) == set(ops) == set(method["dtypes"])
        for op in ops:
            assert re.match(r"^[a-z_]+::\w+(\.\w+)?$", op), op
            assert method["kernel_keys"][op], op
            for key in method["kernel_keys"][op]:
                assert key.startswith("v1/"), key
                for part in key[3:].split("|"):
                    match = KEY_ENTRY.match(part)
                    assert match, f"{op}: bad key entry {part!r} in {key}"
                    assert int(match.group(1)) in DTYPE_NUMBERS, key
                    dims = [int(d) for d in match.group(2).split(",")] if match.group(2) else []
                    assert sorted(dims) == list(range(len(dims))), f"{key}: dim order is no permutation"
        union |= set(ops)
        assert method["delegate_calls"] == 0
        assert method["kernel_calls"] >= len(ops)
    assert entry["operators"] == sorted(union)


def test_corpus_covers_what_later_issues_need(manifest):
    models = manifest["models"]
    assert {"mlp", "cnn", "attention", "embedding", "mixed_dtypes", "two_methods"} <= set(models)
    methods = [m for e in models.values() for m in e["methods"].values()]
    input_dtypes = {t["dtype"] for m in methods for t in m["inputs"]}
    output_dtypes = {t["dtype"] for m in methods for t in m["outputs"]}
    assert "int64" in input_dtypes
    assert {"float32", "int64", "bool", "float64"} <= output_dtypes
    assert any(len(e["methods"]) >= 2 for e in models.values())
    assert any(len(m["outputs"]) >= 2 for m in methods)
    # A dtype that reaches a kernel only through a ScalarType argument or an
    # output (sum(..., dtype=float64)) is recorded.
    assert "Double" in models["mixed_dtypes"]["methods"]["forward"]["dtypes"]["aten::sum.IntList_out"]
    assert set(models["mlp"]["operators"]) == {"aten::addmm.out", "aten::permute_copy.out", "aten::relu.out"}


@pytest.mark.build
def test_export_is_reproducible(tmp_path, export_python, manifest):
    """Re-exporting the corpus gives the committed files byte for byte."""
    subprocess.run([str(export_python), str(MODELS_DIR / "export.py"), "--out", str(tmp_path)],
                   check=True, capture_output=True, cwd=REPO)
    assert (tmp_path / "manifest.json").read_bytes() == (MODELS_DIR / "manifest.json").read_bytes()
    for name, entry in manifest["models"].items():
        for path in (MODELS_DIR / name).iterdir():
            assert (tmp_path / name / path.name).read_bytes() == path.read_bytes(), path
