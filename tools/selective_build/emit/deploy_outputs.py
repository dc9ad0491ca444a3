"""A deploy binary's printed outputs (read by readers/deploy_output.py) as
values a reader takes in: what `etsb deploy-outputs` prints. Values in, text out."""

from __future__ import annotations

from collections.abc import Sequence

from selective_build.model.dtypes import SCALAR_TYPE_NAMES
from selective_build.model.program import DeployOutput


def render_outputs(outputs: Sequence[DeployOutput]) -> str:
    """A deploy binary's outputs as text: per output its dtype and sizes, then its
    values, eight to a line (floats to 9 significant digits: exact for Float)."""
    lines = []
    for output in outputs:
        if output.dtype < 0:
            lines.append(f"output {output.index}: not a tensor")
            continue
        lines.append(f"output {output.index}: {SCALAR_TYPE_NAMES.get(output.dtype, output.dtype)} "
                     f"{list(output.sizes)}")
        values = [format(v, ".9g") if isinstance(v, (float, complex)) else str(v) for v in output.values()]
        lines += ["  " + " ".join(values[at:at + 8]) for at in range(0, len(values), 8)]
    return "\n".join(lines) + "\n" if lines else ""
