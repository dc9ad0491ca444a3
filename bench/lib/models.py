"""The programs benches run (the real, corpus, delegated, quantized and
operator models and their methods, the LLM decoders), each held to a tolerance
against torch's recorded outputs; the model runner's command line; and what
bench_models.py compares: the sides (how each builds or runs a program's
binary) and each set's programs with their delegated twins, a column of their
own, the attributes etsb's binaries of them need, the kernel yamls of the
library they are sized against."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from lib.env import BENCH, MODELS_DIR
from lib.timing import choose
from lib.workspace import ET_LABEL, ET_QUANTIZED_LABEL

CORPUS = ("mlp", "cnn", "attention")
REAL_DIR, DELEGATED_DIR, QUANTIZED_DIR = MODELS_DIR / "real", MODELS_DIR / "delegated", MODELS_DIR / "quantized"
LLM_DIR, OPS_DATA = MODELS_DIR / "llm", BENCH / ".data" / "ops"
FULLRES_DATA = BENCH / ".data" / "fullres"   # bench/export_fullres.py's: real/ and delegated/, each with a manifest
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
    """(max abs difference from torch's outputs over all outputs, within tolerance: floats by allclose, others equal)."""
    worst, ok = 0.0, True
    for index, expected_path in enumerate(model.outputs):
        expected, got_path = np.load(expected_path), out / f"output_{index}.npy"
        got = np.load(got_path) if got_path.exists() else None
        if got is None or got.dtype != expected.dtype or got.shape != expected.shape:
            return float("inf"), False
        gap = float(np.max(np.abs(got.astype(np.float64) - expected.astype(np.float64)), initial=0.0))
        worst = max(worst, gap)
        ok = ok and (bool(np.allclose(got, expected, rtol=model.rtol, atol=model.atol))
                     if np.issubdtype(expected.dtype, np.floating) else np.array_equal(got, expected))
    return worst, ok


@dataclass(frozen=True)
class Decoder:
    """An export of the decoder: its program, the prompt, torch's greedy
    continuation of it, whether it needs ExecuTorch's LLM custom operators, its operators."""

    name: str
    pte: Path
    prompt: tuple[int, ...]
    expected: tuple[int, ...]
    custom_ops: bool
    operators: int


def load_decoders(names: Sequence[str] | None) -> list[Decoder]:
    """The exports of tests/models/llm (or only ``names``), with the manifest's prompt and tokens."""
    data = json.loads((LLM_DIR / "manifest.json").read_text())
    prompt, models, end = tuple(data["prompt"]), data["models"], len(data["prompt"]) + data["new_tokens"]
    return [Decoder(name, LLM_DIR / name / f"{name}.pte", prompt, tuple(models[name]["tokens"][len(prompt):end]),
                    models[name]["custom_ops"], len(models[name]["operators"]))
            for name in choose("decoders", names, sorted(models))]


EXPORT_HINT = ".venv-export/bin/python bench/export_op_bench.py"
DTS = "dtype_selective_build = True,"
TREE_YAML, TREE_KERNELS = "@executorch//kernels/portable:functions.yaml", "@executorch//kernels/portable:kernels"
FROM_TREE = f'functions_yaml_target = "{TREE_YAML}",\n    kernel_deps = ["{TREE_KERNELS}"],'
MERGED = ('functions_yaml_target = "//kernels/portable:functions.yaml",\n'
          f'    fallback_yaml_target = "{TREE_YAML}",\n'
          f'    kernel_deps = ["//kernels/portable:kernels", "{TREE_KERNELS}"],')
QUANTIZED_LIB = "libexecutorch_kernels_quantized.so"


@dataclass(frozen=True)
class Side:
    """How a side's binary is built (et_model_binary's other attributes; None:
    a peer runner, ``peer`` of //bench_et) and run: on the delegated program, at
    each thread count; the side whose all-kernels companion it is sized against."""

    legend: str
    colour: str
    attributes: str | None = ""
    library: str | None = None
    delegated: bool = False
    threaded: bool = False
    tree: bool = False
    peer: str = ""


SIDES = {
    # etsb's development runner links ExecuTorch's thread pool: its matrix products run on --threads N.
    "ours": Side("etsb portable", "#1f77b4", "", "ours", threaded=True),
    "dts": Side("etsb dtype-selective", "#17becf", DTS, "ours", threaded=True),
    "xnnpack": Side("etsb + XNNPACK", "#2ca02c", "", delegated=True, threaded=True),
    "tree": Side("ET portable from the tree", "#9467bd", FROM_TREE, "tree", tree=True),
    "tree_dts": Side("ET portable from the tree, dtype-selective", "#8c564b", f"{FROM_TREE}\n    {DTS}", "tree",
                     tree=True),
    "merged": Side("etsb over the tree's kernels", "#e377c2", MERGED, "tree", tree=True),
    "optimized": Side("ET prebuilt optimized", "#ff7f0e", None, threaded=True, peer=ET_LABEL),
    "optimized_quantized": Side("ET prebuilt optimized + quantized", "#d62728", None, threaded=True,
                                peer=ET_QUANTIZED_LABEL),
}


# etsb's quantized kernels beside its portable ones; the LLM export's custom operators' yaml, etsb's quantized
# yaml merged under the portable one.
QUANTIZED_KERNELS = ('custom_ops_yaml_target = "//kernels/quantized:quantized.yaml",\n'
                     '    kernel_deps = ["//kernels/quantized:kernels", "//kernels/portable:kernels"],')
LLM_EXPORT = ('custom_ops_yaml_target = "//kernels/llm:functions.yaml",\n'
              '    fallback_yaml_target = "//kernels/quantized:quantized.yaml",\n'
              '    kernel_deps = ["//kernels/llm:kernels", "//kernels/quantized:kernels", "//kernels/portable:kernels"],')


@dataclass(frozen=True)
class Programs:
    """What a set runs: its programs, the delegated twin of each by name (for xnnpack), a column of its own (header,
    cell by name), the attributes etsb's undelegated binaries of a program need (by .pte stem), the kernel yamls of
    etsb's library they are sized against, and the decoders (llm)."""

    models: list[Model]
    delegated: dict[str, Model] = field(default_factory=dict)
    column: str = ""
    cells: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    yamls: tuple[str, ...] = ("portable/functions.yaml",)
    decoders: tuple[Decoder, ...] = ()


def load_cases(names: list[str] | None) -> Programs:
    """The operator cases exported by export_op_bench.py, with their descriptions."""
    if not (OPS_DATA / "manifest.json").exists():
        raise SystemExit(f"no operator cases in {OPS_DATA}: export them first with\n    {EXPORT_HINT}")
    cases, models = json.loads((OPS_DATA / "manifest.json").read_text())["cases"], []
    for name in choose("cases", names, cases, " (see bench/export_op_bench.py)"):
        info = cases[name]
        if missing := [p for p in [info["pte"], *info["inputs"], *info["outputs"]] if not (OPS_DATA / p).exists()]:
            raise SystemExit(f"{OPS_DATA}: {missing[0]} is missing: re-export with\n    {EXPORT_HINT} --cases {name}")
        models.append(Model(name, OPS_DATA / info["pte"], tuple(OPS_DATA / p for p in info["inputs"]),
                            tuple(OPS_DATA / p for p in info["outputs"]), len(info["operators"]), spread_atol(info),
                            1e-4))
    return Programs(models, column="what", cells={m.name: cases[m.name]["description"] for m in models})


def check_twins(twins: Sequence[Model], delegated: dict[str, Model]) -> None:
    """Exit unless each of ``twins`` has a delegated program with the same inputs (bytes) and as many outputs."""
    for twin in twins:
        model = delegated.get(twin.name)
        if model is None:
            raise SystemExit(f"{twin.name}: no delegated twin")
        if len(model.inputs) != len(twin.inputs) or any(a.read_bytes() != b.read_bytes()
                                                        for a, b in zip(model.inputs, twin.inputs)):
            raise SystemExit(f"{twin.name}: the delegated and the real model's inputs differ")
        if len(model.outputs) != len(twin.outputs):
            raise SystemExit(f"{twin.name}: the delegated and the real model have different outputs")


def load_delegated(names: list[str] | None) -> Programs:
    """The delegated models (held to the manifest's tolerance, rtol 0) and their undelegated twins."""
    found = manifest(DELEGATED_DIR)
    chosen = choose("delegated models", names, sorted(found))
    twins = load_models(chosen)
    delegated = delegated_twins(twins)
    check_twins(twins, delegated)
    return Programs(twins, delegated, "delegate calls/ops outside",
                    {n: f"{found[n]['delegate_calls']}/{len(found[n]['operators'])}" for n in chosen})


FULLRES_HINT = ".venv-export/bin/python bench/export_fullres.py"


def exported(folder: Path, numbers: tuple[str, ...]) -> dict:
    """The "models" of an export_fullres.py folder's manifest, each with its files there and the ``numbers`` its
    tolerance comes from (exit naming what is missing or malformed, with the command that exports them)."""
    path = folder / "manifest.json"
    try:
        found = json.loads(path.read_text())["models"]
        files = {name: [info["pte"], *(f"{name}/{t['file']}" for t in info["inputs"] + info["outputs"])]
                 for name, info in found.items()}
        negative = [f"{name}: {key}" for name, info in found.items() for key in numbers if not float(info[key]) >= 0]
    except FileNotFoundError:
        raise SystemExit(f"no full-resolution programs in {folder}: export them first with\n    {FULLRES_HINT}") \
            from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise SystemExit(f"{path}: not an export_fullres.py manifest ({type(error).__name__}: {error}); "
                         f"re-export with\n    {FULLRES_HINT}") from None
    if negative:
        raise SystemExit(f"{path}: {negative[0]} is not a number >= 0; re-export with\n    {FULLRES_HINT}")
    if missing := [f for name in found for f in files[name] if not (folder / f).exists()]:
        raise SystemExit(f"{folder}: {missing[0]} is missing: re-export with\n    {FULLRES_HINT}")
    return found


def load_fullres(names: list[str] | None) -> Programs:
    """MobileNet-v2 1.0, ResNet-18, EfficientNet-B0 and MobileNet-v3-Large at 224 px (export_fullres.py): etsb's
    programs, held as the real models (10x their spreads, rtol 1e-4), and their XNNPACK twins (the manifest's
    tolerance, rtol 0)."""
    real, delegated = (FULLRES_DATA / folder for folder in ("real", "delegated"))
    found = exported(real, ("max_abs_diff_fp32_vs_fp64", "max_abs_diff_eager_vs_runtime"))
    twins = exported(delegated, ("tolerance",))
    chosen = choose("full-resolution models", names, sorted(found), " (see bench/export_fullres.py)")
    models = [from_manifest(n, real, found[n], found[n], spread_atol(found[n]), 1e-4) for n in chosen]
    programs = {n: from_manifest(n, delegated, twins[n], twins[n], twins[n]["tolerance"], 0.0) for n in chosen
                if n in twins}
    check_twins(models, programs)
    return Programs(models, programs, "delegate calls/ops outside",
                    {n: f"{twins[n]['delegate_calls']}/{len(twins[n]['operators'])}" for n in chosen})


def load_quantized(names: list[str] | None) -> Programs:
    """The undelegated quantized models, their XNNPACK twins, and the attributes of etsb's quantized kernels."""
    models, twins = quantized_models(names)
    found = manifest(QUANTIZED_DIR)
    return Programs(models, twins, "quantization", {m.name: found[m.name]["quantization"] for m in models},
                    {m.pte.stem: QUANTIZED_KERNELS for m in models},
                    ("portable/functions.yaml", "quantized/quantized.yaml"))


def load_llm(names: list[str] | None) -> Programs:
    """The decoders (as programs to build), the custom-op export with etsb's LLM and quantized kernels."""
    decoders = load_decoders(names)
    return Programs([Model(d.name, d.pte, (), (), d.operators, 0.0, 0.0) for d in decoders],
                    attributes={d.name: LLM_EXPORT for d in decoders if d.custom_ops},
                    yamls=("portable/functions.yaml", "quantized/quantized.yaml", "llm/functions.yaml"),
                    decoders=tuple(decoders))


def load_corpus(names: list[str] | None) -> Programs:
    """Every method of the corpus models (or of those ``names`` names: a model, or "model.method")."""
    methods = corpus_methods()
    choose("corpus models", [n for n in names or () if n not in {m.pte.stem for m in methods}],
           [m.name for m in methods])
    chosen = [m for m in methods if not names or m.name in names or m.pte.stem in names]
    return Programs(chosen, column="kernel calls", cells={m.name: str(m.kernel_calls) for m in chosen})


