"""What bench_models.py compares: the sides (how each builds or runs a
program's binary) and each set's programs (lib/models.py) with their delegated
twins, a column of their own, the attributes etsb's binaries of them need, the
kernel yamls of the library they are sized against."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from lib.cli import choose
from lib.env import BENCH
from lib.generation import Decoder, load_decoders
from lib.models import (DELEGATED_DIR, QUANTIZED_DIR, Model, corpus_methods, delegated_twins, load_models, manifest,
                        quantized_models, spread_atol)
from lib.workspace import ET_LABEL, ET_QUANTIZED_LABEL

OPS_DATA = BENCH / ".data" / "ops"
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


def beside_portable(package: str, yaml: str) -> str:
    """The attributes of a program that needs etsb's kernels of ``package`` (their ``yaml``) beside its portable ones."""
    return (f'custom_ops_yaml_target = "//kernels/{package}:{yaml}",\n'
            f'    kernel_deps = ["//kernels/{package}:kernels", "//kernels/portable:kernels"],')


# The LLM export: its custom operators' yaml, etsb's quantized yaml merged under the portable one.
LLM_EXPORT = ('custom_ops_yaml_target = "//kernels/llm:functions.yaml",\n'
              '    fallback_yaml_target = "//kernels/quantized:quantized.yaml",\n'
              '    kernel_deps = ["//kernels/llm:kernels", "//kernels/quantized:kernels", "//kernels/portable:kernels"],')


@dataclass(frozen=True)
class Programs:
    """What a set runs: its programs, the delegated twin of each by name (for
    xnnpack), a column of its own (header, cell by name), the attributes etsb's
    undelegated binaries of a program need (by .pte stem), the kernel yamls of
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


def load_delegated(names: list[str] | None) -> Programs:
    """The delegated models (held to the manifest's tolerance, rtol 0) and their undelegated twins."""
    found = manifest(DELEGATED_DIR)
    chosen = choose("delegated models", names, sorted(found))
    twins = load_models(chosen)
    delegated = delegated_twins(twins)
    for twin in twins:
        model = delegated[twin.name]
        if len(model.inputs) != len(twin.inputs) or any(a.read_bytes() != b.read_bytes()
                                                        for a, b in zip(model.inputs, twin.inputs)):
            raise SystemExit(f"{twin.name}: the delegated and the real model's inputs differ")
        if len(model.outputs) != len(twin.outputs):
            raise SystemExit(f"{twin.name}: the delegated and the real model have different outputs")
    return Programs(twins, delegated, "delegate calls/ops outside",
                    {n: f"{found[n]['delegate_calls']}/{len(found[n]['operators'])}" for n in chosen})


def load_quantized(names: list[str] | None) -> Programs:
    """The undelegated quantized models, their XNNPACK twins, and the attributes of etsb's quantized kernels."""
    models, twins = quantized_models(names)
    found = manifest(QUANTIZED_DIR)
    return Programs(models, twins, "quantization", {m.name: found[m.name]["quantization"] for m in models},
                    {m.pte.stem: beside_portable("quantized", "quantized.yaml") for m in models},
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


