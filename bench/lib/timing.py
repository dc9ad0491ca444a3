"""Timing: interleaved rounds, commands and in-process calls, statistics, waiting for a quiet machine."""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import time
from typing import Callable, Mapping, Sequence, TypeVar

from lib.env import VENV_PYTHON

QUIET_LOAD = 0.8   # 1-minute load average to wait for before timing
K = TypeVar("K")
T = TypeVar("T")


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


def time_commands(commands: Mapping[str, Sequence[str]], runs: int, cwd: str | None = None,
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
    values = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        values.append((time.perf_counter() - start) * 1000)
    return statistics.median(values)


def probes(command: Sequence[str], runs: int, **kwargs) -> list[dict]:
    """The JSON ``command`` prints, from each of ``runs`` fresh processes (a probe timing steps inside itself)."""
    return [json.loads(subprocess.run(command, check=True, capture_output=True, text=True, **kwargs).stdout)
            for _ in range(runs)]


def geomean(values: Sequence[float]) -> float:
    """The geometric mean (of ratios)."""
    return math.exp(statistics.fmean(math.log(v) for v in values))


def wait_for_quiet(what: str, wait: bool = True, max_wait_s: float = 20 * 60) -> float:
    """Wait until the 1-minute load average is below QUIET_LOAD (polling every
    15 s, at most ``max_wait_s``); the load average timing starts at."""
    start, load = time.monotonic(), os.getloadavg()[0]
    while wait and load >= QUIET_LOAD and time.monotonic() - start < max_wait_s:
        print(f"  waiting for a quiet machine before {what}: load average {load:.2f}", flush=True)
        time.sleep(15)
        load = os.getloadavg()[0]
    note = "" if load < QUIET_LOAD else (f" (still >= {QUIET_LOAD} after {max_wait_s / 60:.0f} minutes: timing "
                                         "anyway)" if wait else " (--no-wait: timing at once)")
    print(f"{what}: load average {load:.2f}{note}", flush=True)
    return load
