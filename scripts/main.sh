#!/usr/bin/env bash
# The main job: set up, then run the most complete etsb pipeline that exists on
# the MLP example model. (It grows into "build the MLP's trimmed binary and run
# it" as the build driver and the kernels land.)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
.venv/bin/etsb --version
.venv/bin/python - tests/models/manifest.json <<'PY'
import json, sys
model = json.load(open(sys.argv[1]))["models"]["mlp"]
print(f"model tests/models/{model['pte']} ({model['pte_size']} bytes)")
for method, entry in model["methods"].items():
    print(f"method {method}: {len(entry['operators'])} operators")
    for op in entry["operators"]:
        print(f"  {op:28} keys {', '.join(entry['kernel_keys'][op])}")
PY
