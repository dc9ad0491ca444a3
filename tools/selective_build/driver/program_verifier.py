"""The build-time check of a program to embed (tools/runner/verify_program.cpp):
ExecuTorch's own verifier and the deploy runner's program checks, run on the
host on the exact bytes to embed, by a small tool compiled once against the
runtime wheel (whatever the target: it is a build-time tool). The embedded
deploy runner skips these checks at run time, so a program failing one is
refused here, naming the file, instead of becoming a binary that crashes."""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Sequence

from selective_build.driver.layout import TOOLS
from selective_build.model.errors import CommandLine, Location, UserError
from selective_build.readers.etsb_root import INSTALLED, REPO

SOURCE = os.path.join("tools", "runner", "verify_program.cpp")
HEADERS = (os.path.join("tools", "runner", "program_check.h"),)
# A program the verifier takes longer than this on is refused (real ones take milliseconds).
TIMEOUT_SECONDS = 120
HOW_TO_GET_THE_RUNTIME = ("pip install executorch==1.5.1 --no-deps in etsb's Python (scripts/setup.sh does), or "
                          "give the wheel's folder with --executorch-runtime")


def runtime_of(library: str | None) -> str:
    """The executorch wheel's folder (include/ and lib/libexecutorch.so):
    the one holding ``library`` (a libexecutorch.so, links followed), else
    the one this Python imports; a UserError when there is none."""
    if library:
        if not os.path.isfile(library):
            raise UserError(f"--runtime-library {library}: no such file (the executorch wheel's "
                            f"lib/libexecutorch.so, or a link to it)", CommandLine("--runtime-library"))
        root = os.path.dirname(os.path.dirname(os.path.realpath(library)))
    else:
        from selective_build.driver.state import executorch_runtime
        root = executorch_runtime() or ""
    if not root or not os.path.isfile(os.path.join(root, "lib", "libexecutorch.so")) or \
            not os.path.isdir(os.path.join(root, "include", "executorch")):
        raise UserError(f"an embedded program is verified at build time with the executorch wheel's runtime, and "
                        f"none was found{' at ' + root if root else ''}: {HOW_TO_GET_THE_RUNTIME}")
    return root


def verifier(runtime: str) -> str:
    """The verifier built against the wheel at ``runtime``: from the cache
    (keyed by its sources, the wheel and the compiler), else compiled now."""
    # The host's compiler, never $CXX, which may name the target's.
    compiler = os.environ.get("ETSB_HOST_CXX") or shutil.which("c++") or shutil.which("g++") or "c++"
    sources = [os.path.join(REPO, path) for path in (SOURCE, *HEADERS)]
    digest = hashlib.sha256()
    for path in sources:
        with open(path, "rb") as handle:
            digest.update(handle.read())
    library = os.path.join(runtime, "lib", "libexecutorch.so")
    stat = os.stat(library)
    digest.update(f"{os.path.realpath(library)} {stat.st_size} {stat.st_mtime_ns} {compiler}".encode())
    binary = os.path.join(_cache_dir(), f"verify_program-{digest.hexdigest()[:16]}")
    if os.access(binary, os.X_OK):
        return binary
    try:
        os.makedirs(os.path.dirname(binary), exist_ok=True)
        _compile(compiler, sources[0], runtime, binary)
    except OSError:
        # A cache that cannot be written (a build system's sandbox): a private build, removed at exit.
        private = tempfile.mkdtemp(prefix="etsb-verify-")
        atexit.register(shutil.rmtree, private, True)
        binary = os.path.join(private, "verify_program")
        _compile(compiler, sources[0], runtime, binary)
    return binary


def _cache_dir() -> str:
    """Where built verifiers are kept: the checkout's tools folder, or the user's cache when installed."""
    if not INSTALLED:
        return os.path.join(REPO, TOOLS)
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "etsb")


def _compile(compiler: str, source: str, runtime: str, binary: str) -> None:
    """Compile the verifier to ``binary`` (written whole or not at all)."""
    include = os.path.join(runtime, "include")
    temporary = f"{binary}.{os.getpid()}.tmp"
    command = [compiler, "-std=c++17", "-O1", "-DC10_USING_CUSTOM_GENERATED_MACROS", f"-I{include}",
               f"-I{os.path.join(include, 'executorch', 'runtime', 'core', 'portable_type', 'c10')}", source,
               "-o", temporary, f"-L{os.path.join(runtime, 'lib')}", "-lexecutorch",
               f"-Wl,-rpath,{os.path.join(runtime, 'lib')}"]
    try:
        try:
            run = subprocess.run(command, capture_output=True, text=True)
        except FileNotFoundError:
            raise UserError(f"an embedded program is verified at build time by a tool compiled for this machine, "
                            f"and there is no C++ compiler '{compiler}' to compile it (install g++, or set "
                            f"ETSB_HOST_CXX)") from None
        if run.returncode != 0:
            said = run.stderr.strip()[-2000:] or f"{compiler} exited with status {run.returncode}"
            raise UserError(f"building etsb's program verifier ({source}) failed: {said}")
        os.replace(temporary, binary)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def verify_program(binary: str, model: str, input_bytes: Sequence[int]) -> tuple[int, ...]:
    """Run the verifier ``binary`` on the program file ``model``, to be
    embedded with inputs of ``input_bytes`` bytes each: the planned buffers'
    sizes of its first method as ExecuTorch reads them, or a UserError located
    at ``model`` saying what is wrong (a crash of the verifier itself too)."""
    try:
        run = subprocess.run([binary, model, *map(str, input_bytes)], capture_output=True, text=True,
                             timeout=TIMEOUT_SECONDS, errors="replace")
    except subprocess.TimeoutExpired:
        raise UserError(f"cannot be embedded: ExecuTorch's verifier did not finish within {TIMEOUT_SECONDS} s",
                        Location(model)) from None
    lines = run.stdout.splitlines()
    if run.returncode < 0:
        name = signal.Signals(-run.returncode).name if -run.returncode in signal.valid_signals() else -run.returncode
        raise UserError(f"cannot be embedded: ExecuTorch's runtime crashed reading it ({name})", Location(model))
    if run.returncode != 0 or not lines or not lines[-1].startswith("planned:"):
        said = next((line.removeprefix("error: ") for line in lines if line.startswith("error: ")),
                    (run.stderr.strip().splitlines() or [f"exit status {run.returncode}"])[-1])
        raise UserError(f"cannot be embedded: {said} (checked at build time as the deploy runner checks a program "
                        f"read from a file)",
                        Location(model))
    return tuple(int(size) for size in lines[-1].split()[1:])


def check_planned(model: str, executorch: Sequence[int], etsb: Sequence[int]) -> None:
    """A UserError unless ExecuTorch and etsb's reader see the same planned
    buffers (etsb's sizes the binary's static pool)."""
    if tuple(executorch) != tuple(etsb):
        raise UserError(f"cannot be embedded: ExecuTorch reads the planned buffers {list(executorch)} where etsb "
                        f"reads {list(etsb)}", Location(model))


def verify_for_embedding(library: str | None, model: str, input_bytes: Sequence[int], planned: Sequence[int]) -> None:
    """Refuse (a UserError naming ``model``) a program the deploy runner would
    refuse read from a file, to be embedded with inputs of ``input_bytes``
    bytes each, or whose planned buffers ExecuTorch reads unlike etsb
    (``planned``: etsb sizes the binary's static pool from them), verified
    with the wheel of ``library`` (see :func:`runtime_of`)."""
    check_planned(model, verify_program(verifier(runtime_of(library)), model, input_bytes), planned)
