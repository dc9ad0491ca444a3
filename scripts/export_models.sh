#!/usr/bin/env bash
# Regenerate the test model corpus (tests/models/): creates the export environment
# when missing, then exports every model, or the ones named: scripts/export_models.sh mlp cnn
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
exec "$ROOT/.venv-export/bin/python" "$ROOT/tests/models/export.py" "$@"
