"""The programs benches run (the real, corpus, delegated and quantized models
and their methods), each held to a tolerance against torch's recorded outputs,
and the model runner's command line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.cli import choose
from lib.env import MODELS_DIR

CORPUS = ("mlp", "cnn", "attention")
REAL_DIR, DELEGATED_DIR, QUANTIZED_DIR = MODELS_DIR / "real", MODELS_DIR / "delegated", MODELS_DIR / "quantized"
DELEGATED_SUFFIX = "_xnnpack"   # a quantized model's twin delegated to XNNPACK
STEP_SLACK = 1e-6   # a float rounding allowance on top of one quantization step (as tests/test_quantized.py)


@dataclass(frozen=True)
class Model:
    """One method of a program, its inputs, torch's outputs, and the tolerance they are held to."""

    name: str
    pte: Path
    inputs: tuple[Path, ...]
    outputs: tuple[Path, ...]
    operators: int
    atol: float
    rtol: float
    method: str = "forward"
    kernel_calls: int = 0


def manifest(folder: Path) -> dict:
    """The "models" of ``folder``/manifest.json."""
    return json.loads((folder / "manifest.json").read_text())["models"]


def from_manifest(name: str, folder: Path, info: dict, method: dict, atol: float, rtol: float,
                  method_name: str = "forward", label: str = "") -> Model:
    """A Model from a manifest entry (``info``) and its method's entry (inputs, outputs)."""
    return Model(label or name, folder / info["pte"], tuple(folder / name / i["file"] for i in method["inputs"]),
                 tuple(folder / name / o["file"] for o in method["outputs"]), len(info.get("operators", ())),
                 atol, rtol, method_name, method.get("kernel_calls", 0))


def spread_atol(info: dict) -> float:
    """10x the larger of a program's float32-vs-float64 and eager-vs-runtime spreads."""
    return 10 * max(info["max_abs_diff_fp32_vs_fp64"], info["max_abs_diff_eager_vs_runtime"], 1e-7)


def step_atol(info: dict) -> float:
    """A quantized program's tolerance: one quantization step (the manifest's) and a float rounding allowance."""
    return info["quant_step"] + STEP_SLACK


def quantized_models(names: Sequence[str] | None) -> tuple[list[Model], dict[str, Model]]:
    """The undelegated quantized models (or only ``names``), each within one
    step of the quantized torch module (rtol 0), and their XNNPACK twins by name."""
    found = manifest(QUANTIZED_DIR)
    chosen = choose("quantized models", names, sorted(n for n, info in found.items() if not info["delegate_calls"]))

    def model(name: str) -> Model:
        return from_manifest(name, QUANTIZED_DIR, found[name], found[name], step_atol(found[name]), 0.0)
    return ([model(n) for n in chosen],
            {n: model(n + DELEGATED_SUFFIX) for n in chosen if n + DELEGATED_SUFFIX in found})


def load_models(names: Sequence[str] | None, real_only: bool = False) -> list[Model]:
    """The real models (tolerance as tests/test_real_models.py) and the
    corpus models (as tests/helpers.py), in that order, or only ``names``."""
    real, corpus = manifest(REAL_DIR), manifest(MODELS_DIR)
    found = {name: from_manifest(name, REAL_DIR, real[name], real[name], spread_atol(real[name]), 1e-4)
             for name in sorted(real)}
    found.update({name: from_manifest(name, MODELS_DIR, corpus[name], corpus[name]["methods"]["forward"], 1e-6,
                                      1e-5) for name in CORPUS})
    return [found[n] for n in choose("models", names, found)] if names else \
        [m for m in found.values() if not real_only or m.name in real]


def delegated_twins(models: Sequence[Model], suffix: str = "") -> dict[str, Model]:
    """The delegated twins (tests/models/delegated, held to the manifest's tolerance, rtol 0) of
    those ``models`` that have one, by model name, labelled name + ``suffix``."""
    found = manifest(DELEGATED_DIR)
    return {m.name: from_manifest(m.name, DELEGATED_DIR, found[m.name], found[m.name], found[m.name]["tolerance"],
                                  0.0, label=m.name + suffix) for m in models if m.name in found}


def corpus_methods() -> list[Model]:
    """Every method of every corpus model ("model" for forward, "model.method" else)."""
    corpus = manifest(MODELS_DIR)
    return [from_manifest(name, MODELS_DIR, corpus[name], info, 1e-6, 1e-5, method,
                          name if method == "forward" else f"{name}.{method}")
            for name in sorted(corpus) for method, info in corpus[name]["methods"].items()]


def runner_command(binary: Path, model: Model, out: Path, *extra: str) -> list[str]:
    """The model runner ``binary`` on ``model``'s method and inputs, writing its outputs to ``out``."""
    method = ["--method", model.method] if model.method != "forward" else []
    return [str(binary), "--model", str(model.pte), "--inputs", ",".join(str(p) for p in model.inputs),
            "--output-dir", str(out), *method, *extra]


def difference(model: Model, out: Path) -> tuple[float, bool]:
    """(max abs difference from torch's outputs over all outputs, within tolerance)."""
    worst, ok = 0.0, True
    for index, expected_path in enumerate(model.outputs):
        expected, got_path = np.load(expected_path), out / f"output_{index}.npy"
        got = np.load(got_path) if got_path.exists() else None
        if got is None or got.dtype != expected.dtype or got.shape != expected.shape:
            return float("inf"), False
        if np.issubdtype(expected.dtype, np.floating):
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - expected), initial=0.0)))
            ok = ok and bool(np.allclose(got, expected, rtol=model.rtol, atol=model.atol))
        elif (got != expected).any():
            ok = False
            worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)))))
    return worst, ok
