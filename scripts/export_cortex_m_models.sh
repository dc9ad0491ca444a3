#!/usr/bin/env bash
# Regenerate the Cortex-M int8 corpus (tests/models/cortex_m/): creates the
# export environment when missing, then lowers MLPerf Tiny's architectures
# through ExecuTorch's Cortex-M flow, once per instruction set, or those named:
#   scripts/export_cortex_m_models.sh ds_cnn --isa mve
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
cd "$ROOT/tests/models"
exec "$ROOT/.venv-export/bin/python" export_cortex_m.py "$@"
