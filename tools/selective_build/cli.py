"""The ``etsb`` command line: argument parsing only.

Each subcommand parses its flags, calls the library and writes its outputs;
the work itself lives in the pipeline modules.  User errors are printed as
``etsb: file:line:col: message`` with exit status 2 and no traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence

from selective_build import __version__
from selective_build.errors import UserError

# Subcommands register here as (name, help, add_arguments, run).
Subcommand = tuple[str, str, Callable[[argparse.ArgumentParser], None],
                   Callable[[argparse.Namespace], int]]
SUBCOMMANDS: list[Subcommand] = []


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="etsb",
        description="Selective builds of ExecuTorch kernel libraries: select the "
        "operators a model needs, resolve them to kernels, generate registration "
        "code and build a size-trimmed binary.",
    )
    parser.add_argument("--version", action="version", version=f"etsb {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text, add_arguments, run in SUBCOMMANDS:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add_arguments(sub)
        sub.set_defaults(run=run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``etsb`` with ``argv`` (default: the process arguments); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return 0
    try:
        return args.run(args)
    except UserError as error:
        print(f"etsb: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
