"""The ``etsb`` command line: argument parsing only.

Each subcommand parses its flags, reads its inputs, calls the pipeline and
writes its outputs atomically. Pipeline modules are imported inside the
subcommands, so that a command pays only for what it uses. User errors are
printed as ``file:line:col: error: message``, with exit status 2 and no
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from selective_build import __version__
from selective_build.errors import UserError


def _add_aten_yaml(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--aten-yaml", "--aten_yaml", metavar="PATH",
        help="ATen schemas to resolve 'op:' entries against: a full native_functions.yaml "
             "(default: etsb's yaml/aten_ops.yaml)")


def _aten_schemas(path: str | None):
    from selective_build.kernel_yaml import load_default_aten_schemas, parse_aten_schemas

    if path is None:
        return load_default_aten_schemas()
    from selective_build.files import read_text

    return parse_aten_schemas(read_text(path, "ATen yaml file"), path)


def _read_kernel_yaml(path: str, aten):
    from selective_build.files import read_text
    from selective_build.kernel_yaml import parse_kernel_yaml

    return parse_kernel_yaml(read_text(path, "kernel yaml file"), path, aten)


def _read_kernel_yamls(paths: Sequence[str], aten) -> list:
    """Read every file, reporting the problems of all of them together."""
    results, problems = [], []
    for path in paths:
        try:
            results.append(_read_kernel_yaml(path, aten))
        except UserError as error:
            problems.extend(error.problems)
    if problems:
        raise UserError.of(problems)
    return results


# -- merge-yaml ---------------------------------------------------------------


def _merge_yaml_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--functions-yaml-path", "--functions_yaml_path", required=True, metavar="PATH",
                        help="the vendor kernel yaml; its entries win per operator")
    parser.add_argument("--fallback-yaml-path", "--fallback_yaml_path", metavar="PATH",
                        help="the fallback kernel yaml; its operators that the vendor yaml lacks are added")
    parser.add_argument("--output-dir", "--output_dir", required=True, metavar="DIR",
                        help="where merged.yaml is written (created if missing)")
    _add_aten_yaml(parser)


def _merge_yaml(args: argparse.Namespace) -> int:
    import os

    from selective_build.emit.kernel_yaml import render_kernel_yaml
    from selective_build.files import write_text_atomic
    from selective_build.merge import merge_kernel_yaml

    aten = _aten_schemas(args.aten_yaml)
    paths = [args.functions_yaml_path] + ([args.fallback_yaml_path] if args.fallback_yaml_path else [])
    functions, *fallback = _read_kernel_yamls(paths, aten)
    merged = merge_kernel_yaml(functions, fallback[0] if fallback else None)
    write_text_atomic(os.path.join(args.output_dir, "merged.yaml"), render_kernel_yaml(merged))
    return 0


# -- validate-yaml ------------------------------------------------------------


def _validate_yaml_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="+", metavar="YAML", help="kernel yaml files to check")
    _add_aten_yaml(parser)


def _validate_yaml(args: argparse.Namespace) -> int:
    for parsed in _read_kernel_yamls(args.paths, _aten_schemas(args.aten_yaml)):
        operators = len(parsed.entries)
        kernels = sum(len(entry.kernels) for entry in parsed.entries)
        print(f"{parsed.path}: valid, {operators} operator{'s' * (operators != 1)}, "
              f"{kernels} kernel{'s' * (kernels != 1)}")
    return 0


SUBCOMMANDS = (
    ("merge-yaml", "Merge a vendor kernel yaml over a fallback yaml into OUTPUT_DIR/merged.yaml.",
     _merge_yaml_arguments, _merge_yaml),
    ("validate-yaml", "Parse and validate kernel yaml files; report every problem with its place.",
     _validate_yaml_arguments, _validate_yaml),
)


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand."""
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
        for problem in error.problems:
            prefix = "" if problem.location else "etsb: "
            print(f"{prefix}{problem}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
