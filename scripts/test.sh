#!/usr/bin/env bash
# The test command: set up everything (the export environment included, for the
# tests that run ExecuTorch's own tools as peers), then run pytest.
# Extra arguments go to pytest, e.g. scripts/test.sh -k manifest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
cd "$ROOT"
exec "$ROOT/.venv/bin/python" -m pytest "$@"
