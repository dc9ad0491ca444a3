#!/usr/bin/env bash
# The main job: set up, then run the most complete etsb pipeline that exists on
# the MLP example model: validate ExecuTorch's portable kernel yaml, merge a
# vendor yaml over it, select the model's operators and kernel keys from its
# .pte, and show which kernel serves each. (It grows into "build the MLP's trimmed binary and run it" as the
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
$ETSB gen-oplist --output_path "$OUT/selected_operators.yaml" --model_file_path tests/models/mlp/mlp.pte
echo "selected: $OUT/selected_operators.yaml"
.venv/bin/python - "$OUT/merged.yaml" "$OUT/selected_operators.yaml" <<'PY'
import sys
from selective_build.kernel_keys import parse_kernel_key
from selective_build.kernel_yaml import load_default_aten_schemas, parse_kernel_yaml
from selective_build.selected_yaml import parse_selected_operators

merged = parse_kernel_yaml(open(sys.argv[1]).read(), sys.argv[1], load_default_aten_schemas())
selection = parse_selected_operators(open(sys.argv[2]).read(), sys.argv[2])
print("\noperators of tests/models/mlp/mlp.pte, the keys the runtime looks up, and the kernels in the merged yaml")
for op in selection.operators:
    entry = merged.entry(op)
    for key in selection.keys_for(op):
        print(f"  {op:24} {key}  ({parse_kernel_key(key).describe()})")
    for kernel in entry.kernels if entry else ():
        dtypes, orders = dict(entry.type_alias), dict(entry.dim_order_alias)
        when = "default" if kernel.is_default else "for " + ", ".join(
            f"{m.argument} {'/'.join(dtypes[m.type_alias])} dim order "
            f"{' or '.join(str(list(o)) for o in orders[m.dim_order_alias])}" for m in kernel.arg_meta)
        print(f"  {'':24} -> {kernel.cpp_function} ({when})")
PY
