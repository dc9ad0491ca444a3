"""``etsb run``: one binary built and run the same way on every platform.

The binary runs on this machine, or under its platform's emulator
(``qemu-aarch64``; ``qemu-system-arm`` for a board, whose command line is
semihosting's and whose files are this machine's). A development runner takes
the arguments after ``--`` as they are. A deploy runner reads no ``.npy`` and
writes none: here, on the host, its ``--inputs`` are checked against the
program and passed as raw files, and what it prints is read back into
``output_<i>.npy`` files (or printed as values), so that every binary answers
alike."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from types import SimpleNamespace

from selective_build.driver.layout import DEPLOY_EMBEDDED, DEVELOPMENT_RUNNER
from selective_build.driver.platforms import Platform
from selective_build.model.errors import CommandLine, Location, UserError


def command_line(platform: Platform, binary: str, arguments: Sequence[str]) -> list[str]:
    """The command that runs ``binary`` of ``platform`` with ``arguments`` here:
    directly, or under the platform's emulator (a board's arguments become its
    semihosting command line, which splits at spaces: none may hold one)."""
    if platform.hosted:
        return [*platform.emulator, binary, *arguments]
    spaced = [argument for argument in arguments if not argument or any(c.isspace() for c in argument)]
    if spaced:
        raise UserError(f"'{spaced[0]}': a {platform.name} binary's arguments reach it through semihosting's "
                        "command line, which cannot carry an empty argument or one with spaces",
                        CommandLine("run"))
    return [*platform.emulator, binary, *(["-append", " ".join(arguments)] if arguments else [])]


def run_binary(target, binary: str, platform: Platform, runner_args: Sequence[str],
               request: SimpleNamespace | None) -> int:
    """Run the built binary ``binary`` of the planned ``target`` on
    ``platform``: a development runner with the arguments given after ``--``;
    a deploy runner with what ``request`` asks (``model``, ``inputs``: a list
    of .npy paths, ``output_dir``: read from those arguments by the caller);
    its exit status (``exit_status``)."""
    if target.runner == DEVELOPMENT_RUNNER:
        sys.stdout.flush()
        return exit_status(subprocess.run(command_line(platform, binary, runner_args)).returncode, target.label)
    if target.runner == DEPLOY_EMBEDDED and (request.model or request.inputs):
        raise UserError(f"{target.label} carries its program and inputs (embed_model = True): give it only "
                        "--output-dir, or nothing to print the outputs", CommandLine("run"))
    if target.runner != DEPLOY_EMBEDDED and not request.model:
        raise UserError(f"{target.label} reads its program from a file: give --model PTE (and --inputs) after "
                        "'--'", CommandLine("run"))
    with tempfile.TemporaryDirectory(prefix="etsb-run-") as scratch:
        arguments = [] if target.runner == DEPLOY_EMBEDDED else _deploy_arguments(request, scratch)
        sys.stdout.flush()
        result = subprocess.run(command_line(platform, binary, arguments), stdout=subprocess.PIPE)
    printed = result.stdout.decode("utf-8", "replace")
    if result.returncode != 0:
        sys.stdout.write(printed)
        return exit_status(result.returncode, target.label)
    _deliver(printed, target.label, request.output_dir)
    return 0


def exit_status(returncode: int, label: str) -> int:
    """``etsb run``'s exit status for a binary (or the emulator running it)
    that ended with ``returncode``: its own status; for one killed by a
    signal, 128 + the signal's number (as a shell says it), the signal named
    on stderr (Python's -N would leave the process as 256 - N, which says nothing)."""
    if returncode >= 0:
        return returncode
    number = -returncode
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = "an unknown signal"
    sys.stdout.flush()
    sys.stderr.write(f"etsb run: {label} was killed by signal {name} ({number}); exit status {128 + number}\n")
    return 128 + number


def _deploy_arguments(request: SimpleNamespace, scratch: str) -> list[str]:
    """The deploy runner's own arguments: the program's path and each input's
    bytes in a raw file under ``scratch``, once the ``.npy`` inputs are checked
    against the program's first method."""
    from selective_build.readers import inputs
    from selective_build.readers.files import read_bytes, write_bytes_atomic
    from selective_build.readers.npy import read_npy
    from selective_build.readers.pte_memory import read_method_memory
    from selective_build.stages.deploy_memory import check_inputs

    method = read_method_memory(read_bytes(request.model, ".pte file"), request.model)[0]
    arrays = inputs.collect([lambda path=path: read_npy(path) for path in request.inputs])
    check_inputs(method, [(path, array.dtype, array.shape) for path, array in zip(request.inputs, arrays)])
    from selective_build.model.layouts import method_inputs_bytes

    raw = []
    # In the method's dim order, as the binary hands the bytes over.
    for index, data in enumerate(method_inputs_bytes(method, [array.data for array in arrays], request.model)):
        raw.append(os.path.join(scratch, f"input_{index}.bin"))
        write_bytes_atomic(raw[-1], data)
    return [os.path.abspath(request.model), *raw]


def _deliver(printed: str, label: str, output_dir: str | None) -> None:
    """What the deploy binary ``label`` printed: written as ``output_<i>.npy``
    files in ``output_dir``, or printed as values when there is none."""
    from selective_build.emit.deploy_outputs import render_outputs
    from selective_build.emit.npy import can_hold, npy_bytes
    from selective_build.model.dtypes import SCALAR_TYPE_NAMES
    from selective_build.readers.deploy_output import read_deploy_output
    from selective_build.readers.files import write_bytes_atomic

    outputs = read_deploy_output(printed, f"{label}'s output")
    if output_dir is None:
        sys.stdout.write(render_outputs(outputs))
        return
    for output in outputs:
        if output.dtype < 0 or not can_hold(output.dtype):
            what = "not a tensor" if output.dtype < 0 else f"of dtype {SCALAR_TYPE_NAMES.get(output.dtype)}"
            raise UserError(f"output {output.index} is {what}, which a .npy file cannot hold: run without "
                            "--output-dir to print the values", Location(output_dir))
    for output in outputs:
        write_bytes_atomic(os.path.join(output_dir, f"output_{output.index}.npy"),
                           npy_bytes(output.dtype, output.sizes, output.data))
