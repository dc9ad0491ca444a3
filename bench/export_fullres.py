"""Export the full-resolution programs that `bench/bench_models.py --set fullres` times:
torchvision's MobileNet-v2 1.0, ResNet-18, EfficientNet-B0 and MobileNet-v3-Large at 224x224 px, 1000 classes,
random weights, each as etsb's portable program and delegated to XNNPACK.

Run in the export environment (torch, executorch, torchvision, torchao; the benchmark itself never imports torch):

    .venv-export/bin/python bench/export_fullres.py [--models a,b,...]

The corpus exporter's own steps (tests/models/export_real.py: seeded weights,
no all-zero parameter, batch-norm statistics from calibration passes, the
check against ExecuTorch's pybindings runtime, the manifest entry) write,
under bench/.data/fullres (ignored by git), real/NAME/ (no partitioner) and
delegated/NAME/ (XnnpackPartitioner: the same weights, inputs and torch
outputs), each folder with a manifest.json of tests/models/real's format.
About a minute and 2 GB of memory per model; a re-export writes the same files.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from lib.env import MODELS_DIR
from lib.timing import choose, listed, parser

OUTPUT = Path(__file__).resolve().parent / ".data" / "fullres"
FOLDERS = {"real": None, "delegated": "xnnpack"}   # folder -> delegate
SIZE = 224
MODELS = ("efficientnet_b0", "mobilenet_v2", "mobilenet_v3_large", "resnet18")   # specs()'s, named before torch is imported

sys.path.insert(0, str(MODELS_DIR))   # the corpus exporter's modules (tests/models)


def specs() -> dict:
    """The full-resolution models as the corpus exporter's ModelSpecs, by name."""
    from real_models import ModelSpec
    from real_models.inputs import image_input
    from real_models.vision import import_torchvision

    def mobilenet_v2():
        return import_torchvision().models.mobilenet_v2(weights=None, width_mult=1.0)

    def resnet18():
        return import_torchvision().models.resnet18(weights=None)

    def efficientnet_b0():
        return import_torchvision().models.efficientnet_b0(weights=None)

    def mobilenet_v3_large():
        return import_torchvision().models.mobilenet_v3_large(weights=None)

    return {spec.name: spec for spec in (
        ModelSpec("efficientnet_b0", f"torchvision EfficientNet-B0 (5x5 depthwise, squeeze-excite, SiLU), 1000 "
                  f"classes, {SIZE}x{SIZE} RGB", efficientnet_b0, image_input(SIZE)),
        ModelSpec("mobilenet_v2", f"torchvision MobileNetV2, width_mult 1.0, 1000 classes, {SIZE}x{SIZE} RGB",
                  mobilenet_v2, image_input(SIZE)),
        ModelSpec("mobilenet_v3_large", f"torchvision MobileNetV3-Large (5x5 depthwise, squeeze-excite, hardswish), "
                  f"1000 classes, {SIZE}x{SIZE} RGB", mobilenet_v3_large, image_input(SIZE)),
        ModelSpec("resnet18", f"torchvision ResNet-18 (BasicBlock [2,2,2,2]), 1000 classes, {SIZE}x{SIZE} RGB",
                  resnet18, image_input(SIZE)))}


def main() -> int:
    """Export the models asked for into both folders, merged into their manifests."""
    options = parser(__doc__, models=(listed, None, f"comma-separated, of {', '.join(MODELS)} (default: all)")
                     ).parse_args()
    wanted = choose("models", options.models, MODELS)
    import torch

    import export_real   # tests/models/export_real.py: export_model, the manifest's versions

    known = specs()
    assert tuple(known) == MODELS
    torch.set_num_threads(1)   # eager's outputs the same on every machine
    export_real._quiet_known_warnings()
    for folder, delegate in FOLDERS.items():
        out = OUTPUT / folder
        path = out / "manifest.json"
        manifest = json.loads(path.read_text()) if path.exists() else {"version": export_real.MANIFEST_VERSION,
                                                                       "models": {}}
        manifest.update({"generator": export_real._versions(delegate), **({"delegate": delegate} if delegate else {})})
        for name in wanted:
            start = time.perf_counter()
            manifest["models"][name], _ = export_real.export_model(known[name], out, delegate)
            print(f"{folder}/{name}: {manifest['models'][name]['pte_size']:,} B "
                  f"({time.perf_counter() - start:.0f} s)", flush=True)
        manifest["models"] = dict(sorted(manifest["models"].items()))
        export_real.write_atomic(path, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
    print(f"wrote {len(wanted)} models to {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
