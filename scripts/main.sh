#!/usr/bin/env bash
# The main job: set up, then run the most complete etsb pipeline that exists on
# the MLP example model: validate ExecuTorch's portable kernel yaml, merge a
# vendor yaml over it, and show which kernel serves each operator the model
# uses. (It grows into "build the MLP's trimmed binary and run it" as the
# selection, codegen, build driver and kernels land.)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
ETSB=.venv/bin/etsb
PORTABLE="$(.venv/bin/python -c 'import executorch, os; print(os.path.join(executorch.__path__[0], "kernels/portable/functions.yaml"))')"
OUT=etsb-out/main

$ETSB --version
$ETSB validate-yaml "$PORTABLE" examples/vendor_over_portable/vendor.yaml
$ETSB merge-yaml --functions-yaml-path examples/vendor_over_portable/vendor.yaml \
  --fallback-yaml-path "$PORTABLE" --output-dir "$OUT"
echo "merged: $OUT/merged.yaml"
.venv/bin/python - "$OUT/merged.yaml" tests/models/manifest.json <<'PY'
import json, sys
from selective_build.kernel_yaml import load_default_aten_schemas, parse_kernel_yaml

merged = parse_kernel_yaml(open(sys.argv[1]).read(), sys.argv[1], load_default_aten_schemas())
model = json.load(open(sys.argv[2]))["models"]["mlp"]
print(f"\nmodel tests/models/{model['pte']}: operators and the kernels that serve them")
for op in model["operators"]:
    entry = merged.entry(op)
    keys = ", ".join(model["methods"]["forward"]["kernel_keys"][op])
    print(f"  {op:24} key {keys}")
    for kernel in entry.kernels if entry else ():
        dtypes, orders = dict(entry.type_alias), dict(entry.dim_order_alias)
        when = "default" if kernel.is_default else "for " + ", ".join(
            f"{m.argument} {'/'.join(dtypes[m.type_alias])} dim order "
            f"{' or '.join(str(list(o)) for o in orders[m.dim_order_alias])}" for m in kernel.arg_meta)
        print(f"  {'':24} -> {kernel.cpp_function} ({when})")
PY
