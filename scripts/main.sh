#!/usr/bin/env bash
# The main job: set up, build the MLP example's size-trimmed binary with etsb's
# own driver (BUILD files evaluated by starlark-go, compiled by ninja), run it
# on the model's sample input, compare with torch's output, and show where the
# binary's bytes go next to the same binary with every kernel.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
ETSB=.venv/bin/etsb
MODEL=tests/models/mlp

echo "== etsb build //examples/mlp:bin   (examples/mlp/BUILD: et_model_binary(model = mlp.pte))"
$ETSB build //examples/mlp:bin

echo
echo "== etsb-out/bin/examples/mlp/bin --model $MODEL/mlp.pte --inputs $MODEL/forward.input_0.npy"
etsb-out/bin/examples/mlp/bin --model "$MODEL/mlp.pte" --inputs "$MODEL/forward.input_0.npy" \
  --output-dir etsb-out/main/mlp --iterations 100
.venv/bin/python - "$MODEL" <<'PY'
import sys
import numpy as np

model = sys.argv[1]
got = np.load("etsb-out/main/mlp/output_0.npy")
want = np.load(f"{model}/forward.output_0.npy")
np.set_printoptions(precision=4, suppress=True, linewidth=100)
print("output_0", got.dtype, got.shape)
print(got)
print(f"max |difference| from torch's output: {np.abs(got - want).max():.3g}")
if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
    sys.exit("the binary's output differs from torch's")
PY

echo
echo "== etsb size //examples/mlp:bin"
$ETSB size //examples/mlp:bin
