"""Export a .pte with more than 1 GB of constant data, for bench_oplist.py.

    .venv-export/bin/python bench/export_big_model.py OUTPUT.pte

A single Linear(16384, 16384) layer: 268 M float weights (1.07 GB) in a
constant segment after the flatbuffer (about a minute and a few GB of memory).
"""

from __future__ import annotations

import argparse
import os
import sys


def main(output: str) -> int:
    """Export the model to ``output`` (through a temporary file renamed over it)."""
    import torch
    from executorch.exir import to_edge

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16384, 16384), torch.nn.ReLU()).eval()
    program = to_edge(torch.export.export(model, (torch.zeros(1, 16384),))).to_executorch()
    with open(f"{output}.{os.getpid()}.tmp", "wb") as handle:
        program.write_to_file(handle)
    os.replace(f"{output}.{os.getpid()}.tmp", output)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="the .pte to write")
    sys.exit(main(parser.parse_args().output))
