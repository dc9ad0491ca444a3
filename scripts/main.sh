#!/usr/bin/env bash
# The main job: set up, then build the MLP example (examples/mlp/BUILD: one
# two-line et_model_binary call) with etsb's own driver as a developer runs it
# and as it ships, run each on the model's sample input against torch's
# output, and show where each binary's bytes go:
#   1. the development binary (the host, the default configuration: the
#      development runner on the ExecuTorch runtime wheel's libexecutorch.so);
#   2. the shipped binary (--config=size: ExecuTorch's runtime compiled from the
#      tree beside the checkout and linked in, the deploy runner, only the
#      dtypes the model uses, stripped);
#   3. the same BUILD file for a Cortex-M55 (--platform=cortex-m55), run under
#      QEMU, with its flash and RAM.
# Each build's last line says where its binary is, and its size when it ships.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"
cd "$ROOT"
ETSB=.venv/bin/etsb
MODEL=tests/models/mlp
TARGET=//examples/mlp:bin
OUT=etsb-out/main

# Runs the binary `etsb run` builds for the options given, on the MLP's input,
# and compares its output with torch's; `$1` names the run.
run_and_check() {
  local name="$1"
  shift
  rm -rf "$OUT/$name"
  $ETSB run "$@" "$TARGET" -- --model "$MODEL/mlp.pte" --inputs "$MODEL/forward.input_0.npy" \
    --output-dir "$OUT/$name"
  .venv/bin/python - "$MODEL" "$OUT/$name" <<'PY'
import sys
import numpy as np

model, out = sys.argv[1:]
got = np.load(f"{out}/output_0.npy")
want = np.load(f"{model}/forward.output_0.npy")
np.set_printoptions(precision=4, suppress=True, linewidth=100)
print("output_0", got.dtype, got.shape)
print(got)
print(f"max |difference| from torch's output: {np.abs(got - want).max():.3g}")
if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
    sys.exit("the binary's output differs from torch's")
PY
}

echo "== 1. The development binary: etsb build $TARGET   (examples/mlp/BUILD: et_model_binary(name, model))"
$ETSB build "$TARGET"
echo
echo "== its run on $MODEL/forward.input_0.npy"
run_and_check development

echo
echo "== 2. The shipped binary: etsb build --config=size $TARGET"
$ETSB build --config=size "$TARGET"
echo
echo "== its run"
run_and_check shipped --config=size

if command -v arm-none-eabi-g++ >/dev/null && command -v qemu-system-arm >/dev/null; then
  echo
  echo "== 3. For a Cortex-M55: etsb build --platform=cortex-m55 --config=size $TARGET"
  $ETSB build --platform=cortex-m55 --config=size "$TARGET"
  echo
  echo "== its run under QEMU's mps3-an547"
  run_and_check cortex-m55 --platform=cortex-m55 --config=size
else
  echo
  echo "== 3. (skipped: no arm-none-eabi-g++ or qemu-system-arm: scripts/setup.sh installs them)"
fi

echo
echo "== Where the bytes go: etsb size $TARGET   (beside the same binary with every kernel)"
$ETSB size "$TARGET"
echo
echo "== etsb size --config=size $TARGET   (the shipped binary, beside it with every kernel)"
$ETSB size --config=size "$TARGET"
