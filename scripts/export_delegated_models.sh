#!/usr/bin/env bash
# Regenerate the XNNPACK-delegated model corpus (tests/models/delegated/): creates
# the export environment when missing (torch, ExecuTorch, torchvision, timm, torchao),
# then exports, lowered with ExecuTorch's XnnpackPartitioner, the default models
# (resnet mobilenet_v2 vit gpt_decoder lstm), or the ones named:
#   scripts/export_delegated_models.sh vit lstm
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEFAULT_MODELS=(resnet mobilenet_v2 vit gpt_decoder lstm)
"$ROOT/scripts/setup.sh" --export-env
if [ "$#" = 0 ]; then set -- "${DEFAULT_MODELS[@]}"; fi
exec "$ROOT/.venv-export/bin/python" "$ROOT/tests/models/export_real.py" --delegate xnnpack "$@"
