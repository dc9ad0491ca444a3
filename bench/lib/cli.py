"""The command line the benches share: the parser, its common options, choosing among known names."""

from __future__ import annotations

import argparse
from typing import Iterable, Sequence

from lib.timing import wait_for_quiet


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


def wait(what: str, options: argparse.Namespace) -> float:
    """Wait for a quiet machine as --no-wait and --max-wait say; the load average timing starts at."""
    return wait_for_quiet(what, not options.no_wait, options.max_wait * 60)


def choose(kind: str, names: Sequence[str] | None, known: Iterable[str], hint: str = "") -> list[str]:
    """``names`` (all ``known`` when None), once each is known (exit naming the unknown ones otherwise)."""
    known = list(known)
    if unknown := [name for name in names or () if name not in known]:
        raise SystemExit(f"unknown {kind} {unknown}; known: {', '.join(known)}{hint}")
    return list(names or known)
