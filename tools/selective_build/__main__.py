"""The one entry point of the ``etsb`` command line.

It runs the same way three ways: as the installed ``etsb`` console script
(:func:`main`), as ``python -m selective_build``, and by path
(``python tools/selective_build/__main__.py``), which is how build actions
run etsb from a checkout without installing it. Run by path, it first puts
the package's parent directory first on ``sys.path`` in place of this
directory, so that the package's own module names cannot shadow the standard
library's.

:func:`main` parses the arguments (:mod:`selective_build.argv`, against the
declarations of :mod:`selective_build.arguments`), checks the rules between
them, runs the command (:data:`selective_build.commands.RUNS`), and prints
user errors as
``file:line:col: error: message`` with exit status 2, never a traceback.
The launchers end the process with :func:`finish`.
"""

import gc
import os
import sys

if not __package__:  # run by path: python .../selective_build/__main__.py
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv: "list[str] | None" = None) -> int:
    """Run ``etsb`` with ``argv`` (default: the process arguments); return the exit status."""
    # The garbage collector stays off while etsb starts: importing and reading the
    # command line make thousands of objects and no garbage. A command turns it on as
    # its work begins; `build` once it is not a no-op (driver/fast.py).
    gc.disable()
    try:
        return _main(argv)
    finally:
        gc.enable()


def _main(argv: "list[str] | None") -> int:
    from selective_build.argv import UsageError, check, parse, usage_line
    from selective_build.model.errors import UserError

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parsed = parse(argv)
        if isinstance(parsed, str):
            print(parsed)
            return 0
        command, values = parsed
        parsed = _with_workspace_options(argv, command.name)
        if parsed is not None:
            command, values = parsed
        check(command, values)
        from selective_build.commands import RUNS

        if command.name != "build":
            gc.enable()
        return RUNS[command](values)
    except UsageError as error:
        if error.command:
            from selective_build.arguments import COMMANDS

            command = next(c for c in COMMANDS if c.name == error.command)
            print(f"{usage_line(command)}\netsb {error.command}: error: {error}", file=sys.stderr)
        else:
            print(f"usage: etsb COMMAND [options] (see etsb --help)\netsb: error: {error}", file=sys.stderr)
        return 2
    except UserError as error:
        for problem in error.problems:
            prefix = "" if problem.location else "etsb: "
            print(f"{prefix}{problem}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader of our output went away (`etsb query | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:  # the system refused something the files module does not handle: one line
        where = f": {error.filename}" if error.filename else ""
        print(f"etsb: error: {error.strerror or error}{where}", file=sys.stderr)
        return 1


def _with_workspace_options(argv: "list[str]", command: str):
    """``argv`` parsed again with the workspace's .etsbrc options for
    ``command`` before its own; None when there are none."""
    from selective_build.driver.rc import RC_COMMANDS, rc_arguments

    if command not in RC_COMMANDS:
        return None
    from selective_build.argv import parse
    from selective_build.driver.state import root_or_none
    from selective_build.model.errors import UserError

    root = root_or_none(os.getcwd())
    try:
        extra = rc_arguments(root, command) if root else []
    except ValueError as error:
        raise UserError(str(error)) from None
    if not extra:
        return None
    position = argv.index(command)
    return parse([*argv[:position + 1], *extra, *argv[position + 1:]])


def finish(status: int) -> None:
    """End the process with exit status ``status``. When nothing is registered
    to run at exit (no ``atexit`` callback, no ``threading`` module and so no
    thread to wait for), flush the standard streams and leave at once: tearing
    the interpreter down (freeing every object, a last garbage collection)
    changes nothing outside the process and cost a no-op build a tenth of its
    instructions. Otherwise, the ordinary exit."""
    import atexit

    callbacks = getattr(atexit, "_ncallbacks", None)  # CPython's count of registered callbacks
    if callbacks is not None and callbacks() == 0 and "threading" not in sys.modules and isinstance(status, int):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # a stream closed or gone: the ordinary exit says so as it would have
            sys.exit(status)
        os._exit(status)
    sys.exit(status)


if __name__ == "__main__":
    finish(main())
