"""The ``etsb`` console entry point. A no-op ``etsb build`` is answered by
:mod:`selective_build.build.fast` before the command line (argparse, the data
model) is even imported; everything else goes to :func:`selective_build.cli.main`."""

from __future__ import annotations

import sys


def main() -> int:
    """Run ``etsb`` with the process arguments; return the exit status."""
    argv = sys.argv[1:]
    if argv[:1] == ["build"]:
        from selective_build.build.fast import noop_build

        status = noop_build(argv[1:])
        if status is not None:
            return status
    from selective_build.cli import main as cli_main

    return cli_main(argv)
