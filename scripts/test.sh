#!/usr/bin/env bash
# The test command: set up everything (the export environment included, for the
# tests that run ExecuTorch's own tools as peers), then run pytest.
#
#   scripts/test.sh             the full suite (what CI runs)
#   scripts/test.sh --quick     the quick tier: every test not marked `build`
#                               (nothing compiled, no toolchain run), in about a minute
#
# Other arguments go to pytest, e.g. scripts/test.sh -k manifest. Tests run on
# as many processes as the machine has cores, up to four (pytest-xdist; files
# that build in one shared place run in one process: tests/conftest.py GROUPS);
# ETSB_TEST_PROCESSES=1 runs them in one.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tier=()
if [ "${1:-}" = "--quick" ]; then
  shift
  tier=(-m "not build")
fi
processes="${ETSB_TEST_PROCESSES:-$(nproc)}"
case "$processes" in
  ''|*[!0-9]*|0) echo "scripts/test.sh: ETSB_TEST_PROCESSES is '$processes', not a number of processes (1 or more)" >&2
                 exit 2 ;;
esac
[ "$processes" -gt 4 ] && processes=4
parallel=()
[ "$processes" -gt 1 ] && parallel=(-n "$processes")
"$ROOT/scripts/setup.sh" --export-env
cd "$ROOT"
# The suite builds the same kernels and runtime in many workspaces of its own
# (one per test module, under the temporary folder): every compile of etsb's
# driver and of CMake runs under ccache, whose cache lives in this checkout's
# etsb-out, with paths under the temporary folder made relative so that two
# workspaces' compiles of one source are one. ETSB_CXX_LAUNCHER= (empty) turns it off.
if [ -z "${ETSB_CXX_LAUNCHER+set}" ] && command -v ccache >/dev/null; then
  export ETSB_CXX_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR="${CCACHE_DIR:-$ROOT/etsb-out/ccache}" CCACHE_BASEDIR="${TMPDIR:-/tmp}" CCACHE_NOHASHDIR=1
fi
# Python's compiled modules (etsb's tools, and the test files pytest rewrites)
# are kept in etsb-out/pycache, never beside the sources, even where the
# environment says not to write them (PYTHONDONTWRITEBYTECODE): the suite starts
# hundreds of etsb processes and a dozen pytest ones, which would each compile
# them again (a collection of the suite: 2.9 CPU-s without them, 1.3 with).
unset PYTHONDONTWRITEBYTECODE
export PYTHONPYCACHEPREFIX="${PYTHONPYCACHEPREFIX:-$ROOT/etsb-out/pycache}"
exec "$ROOT/.venv/bin/python" -m pytest "${parallel[@]}" "${tier[@]}" "$@"
