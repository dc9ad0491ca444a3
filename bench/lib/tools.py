"""The command lines of the tools benches compare: etsb's and ExecuTorch's own (its peer)."""

from __future__ import annotations

from lib.env import ETSB, EXPORT_PYTHON


def gen_oplist(output: object, model: object, peer: bool = False) -> list[str]:
    """`etsb gen-oplist` of ``model`` into ``output``; with ``peer``, ExecuTorch's gen_oplist.py in the export venv."""
    tool = [str(EXPORT_PYTHON), "-m", "executorch.codegen.tools.gen_oplist"] if peer else [ETSB, "gen-oplist"]
    return [*tool, "--output_path", str(output), "--model_file_path", str(model)]
