#!/usr/bin/env bash
# Regenerate the real-architecture model corpus (tests/models/real/): creates the
# export environment when missing (torch, ExecuTorch, torchvision, timm), then
# exports every model, or the ones named: scripts/export_real_models.sh vit lstm
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
exec "$ROOT/.venv-export/bin/python" "$ROOT/tests/models/export_real.py" "$@"
