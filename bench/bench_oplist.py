"""Operator selection benchmark: `etsb gen-oplist` against ExecuTorch's
gen_oplist.py, in one run.

    .venv/bin/python bench/bench_oplist.py [--runs N] [--no-big]     (writes bench/results/bench_oplist.md)

End to end with process start (median of N interleaved runs), on each corpus
model and on a model of over 1 GB of constants (export_big_model.py, into
etsb-out/bench/big.pte on first use) with each tool's peak memory. Goals: 5x
gen_oplist.py per model; the 1 GB model in < 0.2 s and < 60 MB. About a minute with --no-big.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from lib.env import EXPORT_PYTHON, MODELS_DIR, REPO
from lib.models import manifest
from lib.results import finish, markdown
from lib.timing import gen_oplist, parser, peak_rss_mb, time_commands

BIG_MODEL = REPO / "etsb-out" / "bench" / "big.pte"


def big_model() -> Path:
    """The 1 GB model, exported on first use."""
    if not BIG_MODEL.exists():
        BIG_MODEL.parent.mkdir(parents=True, exist_ok=True)
        print(f"exporting {BIG_MODEL.relative_to(REPO)} (about a minute) ...", flush=True)
        subprocess.run([str(EXPORT_PYTHON), str(REPO / "bench" / "export_big_model.py"), str(BIG_MODEL)], check=True)
    return BIG_MODEL


def row(tmp: str, name: str, model: Path, runs: int, size: str, rss: bool) -> list[str]:
    """One model's row: size, both tools' medians, the speed-up, with ``rss`` each tool's peak RSS."""
    commands = {"etsb": gen_oplist(f"{tmp}/a.yaml", model), "peer": gen_oplist(f"{tmp}/b.yaml", model, peer=True)}
    times = time_commands(commands, runs)
    peaks = [f"{peak_rss_mb(commands[side]):.0f}" for side in ("etsb", "peer")] if rss else ["", ""]
    return [name, size, f"{times['etsb']:.1f}", f"{times['peer']:.1f}", f"{times['peer'] / times['etsb']:.1f}x",
            *peaks]


def main() -> int:
    """Time both tools on every model; write the report."""
    options = parser(__doc__, runs=9, no_big=(bool, False, "skip the 1 GB model")).parse_args()
    models = manifest(MODELS_DIR)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row(tmp, name, MODELS_DIR / models[name]["pte"], options.runs,
                    f"{os.path.getsize(MODELS_DIR / models[name]['pte']) / 1024:.0f} KB", False)
                for name in sorted(models)]
        if not options.no_big:
            rows.append(row(tmp, "1 GB constants", big_model(), max(3, options.runs // 3),
                            f"{os.path.getsize(big_model()) / 2**20:.0f} MB", True))
    floors = time_commands({"python": "pass", "imports": "import selective_build.commands, selective_build.readers."
                            "pte, selective_build.stages.sources, selective_build.emit.selected_operators"},
                           options.runs)
    return finish("bench_oplist", "\n".join([
        f"gen-oplist, end to end (median ms of {options.runs} interleaved runs; peak RSS in MB)", "",
        markdown(["model", "size", "etsb ms", "gen_oplist.py ms", "speed-up", "etsb MB", "peer MB"], rows), "",
        f"Floor here: python start {floors['python']:.1f} ms; "
        f"with the modules gen-oplist uses imported {floors['imports']:.1f} ms.", "",
        "Goals: speed-up >= 5x per model; 1 GB model < 200 ms and < 60 MB in etsb."]))


if __name__ == "__main__":
    sys.exit(main())
