#!/usr/bin/env bash
# The test command: set up everything (the export environment included, for the
# tests that run ExecuTorch's own tools as peers), then run pytest.
# Extra arguments go to pytest, e.g. scripts/test.sh -k manifest.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh" --export-env
cd "$ROOT"
# Two workers (ETSB_TEST_WORKERS), each taking whole test modules (--dist
# loadscope), so a module's fixtures are made once: a 2-core machine keeps both
# cores busy where one test alone would leave one idle (16 minutes in one
# process, 12.5 in two). ETSB_TEST_WORKERS=0 runs the suite in one process.
exec "$ROOT/.venv/bin/python" -m pytest -n "${ETSB_TEST_WORKERS:-2}" --dist loadscope "$@"
