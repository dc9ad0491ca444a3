#!/usr/bin/env bash
# The test command: set up everything (the export environment included, for the
# tests that run ExecuTorch's own tools as peers), then run pytest.
#
#   scripts/test.sh             the full suite (what CI runs)
#   scripts/test.sh --quick     the quick tier: every test not marked `build`
#                               (nothing compiled, no toolchain run), in about a minute
#
# Other arguments go to pytest, e.g. scripts/test.sh -k manifest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tier=()
if [ "${1:-}" = "--quick" ]; then
  shift
  tier=(-m "not build")
fi
"$ROOT/scripts/setup.sh" --export-env
cd "$ROOT"
exec "$ROOT/.venv/bin/python" -m pytest "${tier[@]}" "$@"
