"""Operator selection benchmark: `etsb gen-oplist` against ExecuTorch's
gen_oplist.py, in one run.

    .venv/bin/python bench/bench_oplist.py [--runs N] [--no-big]     (writes bench/results/bench_oplist.md)

Rows, end to end with process start (median of N interleaved runs):
- each corpus model;
- a model with over 1 GB of constant data (exported on first use into
  etsb-out/bench/big.pte with the export environment; not committed), with
  the peak memory (max RSS) of each tool.
Goals: at least 5x faster than gen_oplist.py per model; the 1 GB model in
under 0.2 s and under 60 MB of peak memory. About a minute with --no-big.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib.env import ETSB, EXPORT_PYTHON, MODELS_DIR, REPO, VENV_PYTHON
from lib.processes import peak_rss_mb
from lib.results import finish, table
from lib.timing import time_commands

BIG_MODEL = REPO / "etsb-out" / "bench" / "big.pte"


def peer(output: str, model: str) -> list[str]:
    """ExecuTorch's gen_oplist.py on ``model``."""
    return [str(EXPORT_PYTHON), "-m", "executorch.codegen.tools.gen_oplist", "--output_path", output,
            "--model_file_path", model]


def ours(output: str, model: str) -> list[str]:
    """`etsb gen-oplist` on ``model``."""
    return [ETSB, "gen-oplist", "--output_path", output, "--model_file_path", model]


def ensure_big_model() -> Path:
    """The 1 GB model, exported on first use."""
    if not BIG_MODEL.exists():
        BIG_MODEL.parent.mkdir(parents=True, exist_ok=True)
        print(f"exporting {BIG_MODEL.relative_to(REPO)} (about a minute) ...", flush=True)
        subprocess.run([str(EXPORT_PYTHON), str(REPO / "bench" / "export_big_model.py"), str(BIG_MODEL)], check=True)
    return BIG_MODEL


def row(tmp: str, name: str, model: str, runs: int, size: str, rss: bool) -> list[str]:
    """One model's row: size, both tools' medians, the speed-up, with ``rss`` each tool's peak RSS."""
    times = time_commands({"etsb": ours(f"{tmp}/a.yaml", model), "peer": peer(f"{tmp}/b.yaml", model)}, runs)
    peaks = ([f"{peak_rss_mb(ours(f'{tmp}/a.yaml', model)):.0f}", f"{peak_rss_mb(peer(f'{tmp}/b.yaml', model)):.0f}"]
             if rss else ["", ""])
    return [name, size, f"{times['etsb']:.1f}", f"{times['peer']:.1f}", f"{times['peer'] / times['etsb']:.1f}x",
            *peaks]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-big", action="store_true", help="skip the 1 GB model")
    options = parser.parse_args()
    started = time.perf_counter()
    models = json.loads((MODELS_DIR / "manifest.json").read_text())["models"]
    with tempfile.TemporaryDirectory() as tmp:
        rows = [row(tmp, name, str(MODELS_DIR / models[name]["pte"]), options.runs,
                    f"{os.path.getsize(MODELS_DIR / models[name]['pte']) / 1024:.0f} KB", False)
                for name in sorted(models)]
        if not options.no_big:
            big = ensure_big_model()
            rows.append(row(tmp, "1 GB constants", str(big), max(3, options.runs // 3),
                            f"{os.path.getsize(big) / 2**20:.0f} MB", True))
    floor = time_commands({"python": [str(VENV_PYTHON), "-c", "pass"],
                           "imports": [str(VENV_PYTHON), "-c", "import selective_build.commands, "
                                       "selective_build.readers.pte, selective_build.stages.sources, "
                                       "selective_build.emit.selected_operators"]}, options.runs)
    text = "\n".join([
        f"gen-oplist, end to end (median ms of {options.runs} interleaved runs; peak RSS in MB)", "```",
        table(["model", "size", "etsb ms", "gen_oplist.py ms", "speed-up", "etsb MB", "peer MB"], rows),
        f"Floor here: python start {floor['python']:.1f} ms; "
        f"with the modules gen-oplist uses imported {floor['imports']:.1f} ms.", "```",
        "Goals: speed-up >= 5x per model; 1 GB model < 200 ms and < 60 MB in etsb."])
    return finish("bench_oplist", text, started)


if __name__ == "__main__":
    sys.exit(main())
