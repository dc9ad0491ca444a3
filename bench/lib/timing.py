"""The benches' command line, the commands they compare, and how they are
measured: interleaved rounds, wall time, peak memory, instructions, waiting
for a quiet machine."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

from lib.env import ETSB, EXPORT_PYTHON, VENV_PYTHON

QUIET_LOAD = 0.8   # 1-minute load average to wait for before timing
K = TypeVar("K")
T = TypeVar("T")


def listed(text: str) -> list[str]:
    """A comma-separated option's values."""
    return text.split(",")


def parser(doc: str, wait: bool = False, runs: int = 0, runs_help: str = "timed runs (median)",
           **more: tuple) -> argparse.ArgumentParser:
    """A parser described by the first line of ``doc``; with ``wait``, --no-wait and --max-wait; with
    ``runs``, --runs of that default; each of ``more``, --NAME (dashes for underscores) given (type, default, help)."""
    made = argparse.ArgumentParser(description=doc.splitlines()[0])
    if wait:
        made.add_argument("--no-wait", action="store_true", help="time at once, whatever the load (trial runs)")
        made.add_argument("--max-wait", type=float, default=20, help="minutes to wait for a quiet machine (default 20)")
    if runs:
        made.add_argument("--runs", type=int, default=runs, help=f"{runs_help} (default {runs})")
    for name, (kind, default, text) in more.items():
        flag = "--" + name.replace("_", "-")
        if kind is bool:
            made.add_argument(flag, action="store_true", help=text)
        else:
            made.add_argument(flag, type=kind, default=default, help=text)
    return made


def choose(kind: str, names: Sequence[str] | None, known: Iterable[str], hint: str = "") -> list[str]:
    """``names`` (all ``known`` when None), once each is known (exit naming the unknown ones otherwise)."""
    known = list(known)
    if unknown := [name for name in names or () if name not in known]:
        raise SystemExit(f"unknown {kind} {unknown}; known: {', '.join(known)}{hint}")
    return list(names or known)


def wait(what: str, options: argparse.Namespace) -> float:
    """Wait until the 1-minute load average is below QUIET_LOAD (polling every 15 s; --no-wait: not at all,
    --max-wait: at most so many minutes); the load average timing starts at."""
    start, load, limit = time.monotonic(), os.getloadavg()[0], options.max_wait * 60
    while not options.no_wait and load >= QUIET_LOAD and time.monotonic() - start < limit:
        print(f"  waiting for a quiet machine before {what}: load average {load:.2f}", flush=True)
        time.sleep(15)
        load = os.getloadavg()[0]
    note = "" if load < QUIET_LOAD else " (--no-wait: timing at once)" if options.no_wait else \
        f" (still >= {QUIET_LOAD} after {options.max_wait:.0f} minutes: timing anyway)"
    print(f"{what}: load average {load:.2f}{note}", flush=True)
    return load


def interleaved(names: Sequence[K], runs: int, measure: Callable[[K, int], T | None]) -> dict[K, list[T]]:
    """``measure(name, index)`` for each of ``runs`` rounds and each name in turn (A B A B ...), so that
    drift in machine load hits them alike: each name's results in round order, None ("skip") left out."""
    samples: dict[K, list[T]] = {name: [] for name in names}
    for index in range(runs):
        for name in names:
            if (value := measure(name, index)) is not None:
                samples[name].append(value)
    return samples


def python(code: str) -> list[str]:
    """The project's Python running ``code``."""
    return [str(VENV_PYTHON), "-c", code]


def gen_oplist(output: object, model: object, peer: bool = False) -> list[str]:
    """`etsb gen-oplist` of ``model`` into ``output``; with ``peer``, ExecuTorch's gen_oplist.py in the export venv."""
    tool = [str(EXPORT_PYTHON), "-m", "executorch.codegen.tools.gen_oplist"] if peer else [ETSB, "gen-oplist"]
    return [*tool, "--output_path", str(output), "--model_file_path", str(model)]


def time_commands(commands: Mapping[str, Sequence[str] | str], runs: int, cwd: str | None = None,
                  env: Mapping[str, str] | None = None, warm_up: bool = True) -> dict[str, float]:
    """Median wall ms of each command (a str: Python code), run interleaved, after one untimed run of each
    when ``warm_up``. Python may cache bytecode (as for any user; pip compiled the peers' at install time).
    A failing command exits with its error output."""
    env = dict(env if env is not None else os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = {name: python(c) if isinstance(c, str) else list(c) for name, c in commands.items()}

    def run(name: str, index: int) -> float | None:
        start = time.perf_counter()
        done = subprocess.run(argv[name], cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        if done.returncode:
            raise SystemExit(f"{' '.join(argv[name])} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
        return (time.perf_counter() - start) * 1000 if index or not warm_up else None

    return {name: statistics.median(values) for name, values in interleaved(list(argv), runs + warm_up, run).items()}


def time_call(function: Callable[[], object], runs: int) -> float:
    """Median wall ms of an in-process call."""
    def once() -> float:
        start = time.perf_counter()
        function()
        return (time.perf_counter() - start) * 1000
    return statistics.median(once() for _ in range(runs))


def probes(command: Sequence[str], runs: int, **kwargs) -> list[dict]:
    """The JSON ``command`` prints, from each of ``runs`` fresh processes (a probe timing steps inside itself)."""
    return [json.loads(subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout)
            for _ in range(runs)]


def geomean(values: Sequence[float]) -> float:
    """The geometric mean (of ratios)."""
    return math.exp(statistics.fmean(math.log(v) for v in values))


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


def instructions_of(command: Sequence[str], cwd: str | None = None, env: Mapping[str, str] | None = None) -> list[int]:
    """Instructions each process of ``command`` executes, its children's too (valgrind's callgrind following
    them; in order of process id): counts other load on the machine does not change. Bytecode cached, as
    time_commands runs them."""
    env = dict(env if env is not None else os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes",
                              f"--callgrind-out-file={tmp}/out.%p", f"--log-file={tmp}/log.%p", *command], cwd=cwd,
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        logs = sorted(Path(tmp).glob("log.*"), key=lambda path: int(path.suffix[1:]))
        counts = [int(m.group(1)) for log in logs if (m := re.search(r"Collected : (\d+)", log.read_text()))]
    if run.returncode != 0 or not counts:
        raise SystemExit(f"callgrind of {' '.join(command)} failed or counted nothing (exit {run.returncode})")
    return counts


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
