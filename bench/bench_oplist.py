"""Operator selection benchmark: `etsb gen-oplist` against ExecuTorch's
gen_oplist.py, in one run.

    .venv/bin/python bench/bench_oplist.py [--runs N] [--no-big]

Rows, end to end with process start (median of N interleaved runs):
- each corpus model;
- a model with over 1 GB of constant data (exported on first use into
  etsb-out/bench/big.pte with the export environment; not committed), with
  the peak memory (max RSS) of each tool.
Goals: at least 5x faster than gen_oplist.py per model; the 1 GB model in
under 0.2 s and under 60 MB of peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, table, time_commands  # noqa: E402

ETSB = str(REPO / ".venv" / "bin" / "etsb")
EXPORT_PYTHON = str(REPO / ".venv-export" / "bin" / "python")
BIG_MODEL = REPO / "etsb-out" / "bench" / "big.pte"


def peer(output: str, model: str) -> list[str]:
    return [EXPORT_PYTHON, "-m", "executorch.codegen.tools.gen_oplist", "--output_path", output,
            "--model_file_path", model]


def ours(output: str, model: str) -> list[str]:
    return [ETSB, "gen-oplist", "--output_path", output, "--model_file_path", model]


def peak_rss_mb(command: list[str]) -> float:
    """Max resident set size of ``command`` in MB, measured in a fresh child
    (RUSAGE_CHILDREN keeps the maximum over all children, so wrap it)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *command], check=True, capture_output=True, text=True)
    return int(out.stdout) / 1024


def ensure_big_model() -> Path:
    if not BIG_MODEL.exists():
        BIG_MODEL.parent.mkdir(parents=True, exist_ok=True)
        print(f"exporting {BIG_MODEL.relative_to(REPO)} (about a minute) ...", flush=True)
        subprocess.run([EXPORT_PYTHON, str(REPO / "bench" / "export_big_model.py"), str(BIG_MODEL)], check=True)
    return BIG_MODEL


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--no-big", action="store_true", help="skip the 1 GB model")
    options = parser.parse_args()
    models = json.loads((REPO / "tests" / "models" / "manifest.json").read_text())["models"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(models):
            model = str(REPO / "tests" / "models" / models[name]["pte"])
            times = time_commands({"etsb": ours(f"{tmp}/a.yaml", model),
                                   "peer": peer(f"{tmp}/b.yaml", model)}, options.runs)
            rows.append([name, f"{os.path.getsize(model) / 1024:.0f} KB", f"{times['etsb']:.1f}",
                         f"{times['peer']:.1f}", f"{times['peer'] / times['etsb']:.1f}x", "", ""])
        if not options.no_big:
            big = str(ensure_big_model())
            times = time_commands({"etsb": ours(f"{tmp}/a.yaml", big), "peer": peer(f"{tmp}/b.yaml", big)},
                                  max(3, options.runs // 3))
            rows.append(["1 GB constants", f"{os.path.getsize(big) / 2**20:.0f} MB", f"{times['etsb']:.1f}",
                         f"{times['peer']:.1f}", f"{times['peer'] / times['etsb']:.1f}x",
                         f"{peak_rss_mb(ours(f'{tmp}/a.yaml', big)):.0f}",
                         f"{peak_rss_mb(peer(f'{tmp}/b.yaml', big)):.0f}"])
    print("gen-oplist, end to end (median ms of interleaved runs; peak RSS in MB)")
    print(table(["model", "size", "etsb ms", "gen_oplist.py ms", "speed-up", "etsb MB", "peer MB"], rows))
    print("\nGoals: speed-up >= 5x per model; 1 GB model < 200 ms and < 60 MB in etsb.")
    python = str(REPO / ".venv" / "bin" / "python")
    floor = time_commands({"python": [python, "-c", "pass"],
                           "imports": [python, "-c", "import selective_build.commands, selective_build.readers.pte, "
                                                     "selective_build.stages.sources, "
                                                     "selective_build.emit.selected_operators"]}, options.runs)
    print(f"Floor here: python start {floor['python']:.1f} ms; "
          f"with the modules gen-oplist uses imported {floor['imports']:.1f} ms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
