"""Processes the benches run: `etsb build`, peak memory of a command, a
command's failure, and binaries' sizes and the shared libraries they load."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from lib.env import ETSB
from selective_build.driver import size as size_mod

ACTION_LINE = re.compile(r"^\[\d+/\d+\] (.*)$", re.MULTILINE)
BUILT_LINE = re.compile(r"^(//\S+): (\S+)$", re.MULTILINE)


class BuildFailed(SystemExit):
    """A build that failed: exits with its message unless a bench catches it (to clean up and report)."""


@dataclass(frozen=True)
class Build:
    """One `etsb build`: wall seconds, the actions ninja ran ("[n/m]" lines), each label's output."""

    seconds: float
    actions: tuple[str, ...]
    outputs: Mapping[str, Path]


def etsb_build(workspace: Path, labels: Sequence[str], env: Mapping[str, str], *flags: str) -> Build:
    """`etsb build -j 2 FLAGS LABELS` in ``workspace`` (BuildFailed on failure)."""
    start = time.perf_counter()
    run = subprocess.run([ETSB, "build", "-j", "2", *flags, *labels], cwd=workspace, env=dict(env),
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - start
    if run.returncode != 0:
        raise BuildFailed(f"etsb build failed in {workspace} (exit {run.returncode}):\n{run.stdout[-5000:]}")
    return Build(seconds, tuple(ACTION_LINE.findall(run.stdout)),
                 {label: Path(workspace) / path for label, path in BUILT_LINE.findall(run.stdout)})


def actions_summary(actions: Sequence[str]) -> str:
    """How many actions of each kind ran ("3 CXX, 1 LINK"), or "none"."""
    kinds: dict[str, int] = {}
    for action in actions:
        kinds[action.split(" ", 1)[0]] = kinds.get(action.split(" ", 1)[0], 0) + 1
    return ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"


def peak_rss_mb(command: Sequence[str]) -> float:
    """Max resident set size of ``command`` in MB, measured in a fresh child
    (RUSAGE_CHILDREN keeps the maximum over all children, so wrap it)."""
    probe = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], check=True, "
             "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, *command], check=True, capture_output=True, text=True)
    return int(out.stdout) / 1024


def try_run(command: Sequence[str]) -> str | None:
    """None if ``command`` succeeds, else the last line of its error output."""
    result = subprocess.run(command, capture_output=True, text=True)
    lines = (result.stderr or result.stdout).strip().splitlines()
    return None if result.returncode == 0 else lines[-1] if lines else f"exit status {result.returncode}"


def stripped(path: Path, tmp: Path) -> int:
    """Bytes of ``path`` once stripped (a stripped copy in ``tmp``)."""
    copy = tmp / (path.name + ".stripped")
    subprocess.run(["strip", "-o", str(copy), str(path)], check=True)
    return os.stat(copy).st_size


def text_size(object_file: Path) -> int:
    """Bytes of code (.text) in an object file, from binutils' size."""
    out = subprocess.run(["size", str(object_file)], check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1].split()[0])


def ldd(binary: Path) -> dict[str, str]:
    """Each shared library ``binary`` loads, resolved as ldd resolves it ("not found" when it does not)."""
    out = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
    return {name.strip(): rest.split("(")[0].strip()
            for name, rest in (line.split("=>", 1) for line in out.splitlines() if "=>" in line)}


def executorch_libraries(binary: Path) -> dict[str, Path]:
    """The ExecuTorch libraries ``binary`` loads (libexecutorch*), in the
    order the walk over NEEDED meets them, each resolved as ldd resolves it."""
    resolved, found, pending = ldd(binary), {}, [binary]
    while pending:
        for name in size_mod.needed_libraries(str(pending.pop(0))):
            if name.startswith("libexecutorch") and name not in found:
                if resolved.get(name, "not found") == "not found":
                    raise SystemExit(f"{binary}: {name} does not resolve")
                found[name] = Path(resolved[name]).resolve()
                pending.append(found[name])
    return found


def check_et_runner(binary: Path, library: str) -> Path:
    """The path of ``library`` as the ExecuTorch runner loads it (exit when it
    does not, or another of its libraries does not resolve)."""
    resolved = ldd(binary)
    missing = [name for name, path in resolved.items() if path == "not found"]
    if missing or library not in resolved:
        raise SystemExit(f"{binary}: unresolved libraries: {missing}" if missing else f"{binary} does not load {library}")
    return Path(resolved[library])
