#!/usr/bin/env bash
# Regenerate the int8-quantized model corpus (tests/models/quantized/): creates
# the export environment when missing (torch, ExecuTorch, torchao), then
# quantizes (PT2E, XNNPACKQuantizer) and exports every model, or the ones named:
#   scripts/export_quantized_models.sh cnn_int8 mlp_dynamic_int8
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
exec "$ROOT/.venv-export/bin/python" "$ROOT/tests/models/export_quantized.py" "$@"
