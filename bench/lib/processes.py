"""Processes the benches run: `etsb build` and what it ran, the compared tools'
commands, peak memory of a command, instructions one function of it executes."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from lib.env import ETSB, EXPORT_PYTHON

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
    kinds = Counter(action.split(" ", 1)[0] for action in actions)
    return ", ".join(f"{count} {kind}" for kind, count in kinds.items()) or "none"


def gen_oplist(output: object, model: object, peer: bool = False) -> list[str]:
    """`etsb gen-oplist` of ``model`` into ``output``; with ``peer``, ExecuTorch's gen_oplist.py in the export venv."""
    tool = [str(EXPORT_PYTHON), "-m", "executorch.codegen.tools.gen_oplist"] if peer else [ETSB, "gen-oplist"]
    return [*tool, "--output_path", str(output), "--model_file_path", str(model)]


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


def instructions_in(command: Sequence[str], function: str) -> int:
    """Instructions ``command`` executes inside ``function`` (demangled, ``ns::Class::method()``) and what it
    calls: valgrind's callgrind collecting only there, a count no other load on the machine changes."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out",
                              f"--toggle-collect={function}", *command], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    collected = re.search(r"^==\d+== Collected : (\d+)$", run.stderr, re.MULTILINE)
    if run.returncode != 0 or not collected or not int(collected.group(1)):
        raise SystemExit(f"callgrind of {' '.join(command)} in {function} failed or counted nothing "
                         f"(exit {run.returncode}):\n{run.stderr[-2000:]}")
    return int(collected.group(1))
