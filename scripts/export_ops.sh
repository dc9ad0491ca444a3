#!/usr/bin/env bash
# Regenerate the single-operator corpus (tests/models/ops/): creates the export
# environment when missing, then exports every operator, or the ones named, as
# ExecuTorch spells them or by directory:
#   scripts/export_ops.sh aten::cat.out aten_add_out
# `scripts/export_ops.sh --list` prints the operators and their cases.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
exec "$ROOT/.venv-export/bin/python" "$ROOT/tests/models/export_ops.py" "$@"
