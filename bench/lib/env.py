"""Where things are (the repository, its tools and venvs, the models, the
executorch wheel, bench/lib/files) and the set-up the build benches need."""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench"
RESULTS = BENCH / "results"
FILES = BENCH / "lib" / "files"   # sources and templates the benches write or compile
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
EXPORT_PYTHON = REPO / ".venv-export" / "bin" / "python"
ETSB = str(REPO / ".venv" / "bin" / "etsb")
STARLARK = str(REPO / "etsb-out" / "tools" / "etsb-starlark")
MODELS_DIR = REPO / "tests" / "models"
TREE = Path(os.environ.get("ETSB_EXECUTORCH_TREE") or REPO.parent / "shared" / "third_party" / "executorch").resolve()
OPTIMIZED_LIB = "libexecutorch_kernels_optimized.so"
MLP = "//examples/mlp:bin"

if str(REPO / "tools") not in sys.path:
    sys.path.insert(0, str(REPO / "tools"))


def executorch_runtime() -> Path:
    """The executorch wheel's directory in the project's venv."""
    import executorch

    return Path(executorch.__path__[0])


def starlark_env() -> dict[str, str]:
    """The environment of `etsb build`: the evaluator the set-up built (exit when it is missing)."""
    if not os.access(STARLARK, os.X_OK):
        raise SystemExit(f"{STARLARK} is missing: run scripts/setup.sh")
    return dict(os.environ, ETSB_STARLARK=STARLARK)
